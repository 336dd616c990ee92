// Every bundled plugin's config form, as the settings page gets it: a label and help text on
// every field, and every credential write-only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { InstalledPlugin } from '@heliograph/core/api-types';
import { REPO_ROOT, startTestServer, type TestServer } from '../helpers/server.js';

const bundled = readdirSync(join(REPO_ROOT, 'plugins'));
const server = await startTestServer({ bundled, plugins: [] });

type JsonSchema = {
  title?: string;
  description?: string;
  writeOnly?: boolean;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
};

/** Every field of a config schema with its dotted path, nested objects and list entries included. */
function fields(schema: JsonSchema, prefix = ''): Array<[string, JsonSchema]> {
  const out: Array<[string, JsonSchema]> = [];
  for (const [key, node] of Object.entries(schema.properties ?? {})) {
    const path = prefix + key;
    out.push([path, node]);
    for (const inner of [node, node.items, ...(node.anyOf ?? [])])
      if (inner?.properties) out.push(...fields(inner, `${path}.`));
  }
  return out;
}

/** An installed plugin as GET /api/v1/plugins/installed lists it, its config schema read as JSON Schema. */
type Installed = Omit<InstalledPlugin, 'schema'> & { schema: JsonSchema | null };

async function installed(on: TestServer): Promise<Installed[]> {
  return (await (await on.api('/api/v1/plugins/installed')).json()) as Installed[];
}

test('every bundled plugin is listed with a name, a description and a config schema', async () => {
  const list = await installed(server);
  assert.deepEqual(list.map((p) => p.plugin).sort(), [...bundled].sort());
  for (const plugin of list) {
    assert.ok(plugin.schema, `${plugin.plugin} loads`);
    assert.equal(plugin.bundled, true, `${plugin.plugin} is bundled`);
    assert.notEqual(plugin.name, plugin.plugin, `${plugin.plugin} has a display name`);
    assert.ok(plugin.description.length > 20, `${plugin.plugin} has a description`);
  }
});

test('every field of every bundled config schema has a title and a description', async () => {
  const list = await installed(server);
  const missing = list.flatMap((p) =>
    fields(p.schema!)
      .filter(([, node]) => !node.title || !node.description)
      .map(([path]) => `${p.plugin}: ${path}`),
  );
  assert.deepEqual(missing, []);
});

test('every credential in a bundled config schema is write-only', async () => {
  const list = await installed(server);
  const credentials = list.flatMap((p) =>
    fields(p.schema!)
      .filter(([path]) => /(token|key|password|secret)$/i.test(path))
      .map(([path, node]) => [`${p.plugin}: ${path}`, node.writeOnly === true]),
  );
  assert.ok(credentials.length >= 4, 'Tibber, ENTSO-E, Amber, Forecast.Solar');
  assert.deepEqual(
    credentials.filter(([, secret]) => !secret),
    [],
  );
});

test('each installed plugin says what it will ask the owner to approve, and whether it is bundled', async () => {
  // A third-party package (node_modules) beside bundled ones: the page checks a bundled
  // plugin's grants by default and leaves a third-party one's for the owner to tick.
  const mixed = await startTestServer({
    bundled: ['planner', 'deye'],
    fixtures: ['day-prices'],
    external: ['acme-link'],
    plugins: [],
  });
  const list = await installed(mixed);
  const byId = Object.fromEntries(list.map((p) => [p.plugin, { bundled: p.bundled, grants: p.grants }]));
  assert.deepEqual(byId, {
    'acme-link': { bundled: false, grants: { writes: ['battery_1/battery_control_*'], hosts: ['api.acme.example'] } },
    // A prices plugin asks to publish prices by its kind alone (its manifest has no grants).
    'day-prices': { bundled: true, grants: { prices: true } },
    planner: { bundled: true, grants: { writes: ['*/battery_control_*', '*/planned_power'] } },
    deye: { bundled: true, grants: {} },
  });
});
