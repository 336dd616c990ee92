// The settings page's plugin management over real HTTP: add, enable/disable, remove, edit,
// secrets that never come back, and a status that is green only once the first run worked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { InstanceStatus } from '@heliograph/core/testing';
import { jsonBody, startTestServer, type TestServer } from '../helpers/server.js';

const server = await startTestServer({
  fixtures: ['echo', 'keyed'],
  plugins: [
    { id: 'e', plugin: 'echo', devices: ['inverter_1'] },
    // Switched off, and its plugin since uninstalled: the start must not fail over it.
    { id: 'gone', plugin: 'uninstalled', enabled: false },
  ],
});

/** The parts of a plugin's config JSON Schema these tests read. */
type SchemaField = { writeOnly?: boolean; description?: string; enum?: string[] };
type ConfigSchema = { properties: { apiKey: SchemaField; region: SchemaField } };

type Issues = Array<{ path: Array<string | number>; message: string }>;

function send(method: string, path: string, body?: unknown) {
  return server.api(path, body === undefined ? { method } : { ...jsonBody(body), method });
}

function pluginsFile(s: TestServer = server): Array<Record<string, unknown>> {
  const file = JSON.parse(readFileSync(s.dataDir.replace(/data$/, 'plugins.json'), 'utf8')) as {
    plugins: Array<Record<string, unknown>>;
  };
  return file.plugins;
}

/** Every state an instance goes through until it reaches one of `until`. */
function statesOf(id: string, until: InstanceStatus['state'][]): Promise<InstanceStatus['state'][]> {
  const seen: InstanceStatus['state'][] = [];
  return new Promise((resolve) => {
    const listener = (status: InstanceStatus) => {
      if (status.id !== id) return;
      seen.push(status.state);
      if (until.includes(status.state)) {
        server.plugins.off('status', listener);
        resolve(seen);
      }
    };
    server.plugins.on('status', listener);
  });
}

test('GET /plugins/installed lists each plugin with its name, description, config schema and devices', async () => {
  const res = await server.api('/api/v1/plugins/installed');
  assert.equal(res.status, 200);
  const list = (await res.json()) as Array<{
    plugin: string;
    name: string;
    kind: string;
    description: string;
    devices: unknown;
    schema: ConfigSchema;
  }>;
  assert.deepEqual(
    list.map((p) => p.plugin),
    ['echo', 'keyed'],
  );
  const keyed = list.find((p) => p.plugin === 'keyed')!;
  assert.equal(keyed.name, 'Keyed provider');
  assert.equal(keyed.kind, 'prices');
  assert.match(keyed.description, /API key/);
  assert.equal(keyed.devices, null, 'a prices plugin drives no devices');
  assert.equal(keyed.schema.properties.apiKey.writeOnly, true, 'secret fields are write-only');
  assert.equal(keyed.schema.properties.apiKey.description, 'API key from your account page');
  assert.deepEqual(keyed.schema.properties.region.enum, ['north', 'south']);
  const echo = list.find((p) => p.plugin === 'echo')!;
  assert.equal(echo.name, 'echo', 'no name in the manifest: the id');
  assert.deepEqual(echo.devices, { kinds: ['inverter'], min: 1, max: null });
});

test('a refused new instance names each bad field in plain words and saves nothing', async () => {
  const before = readFileSync(server.dataDir.replace(/data$/, 'plugins.json'), 'utf8');
  const res = await send('POST', '/api/v1/plugins', {
    id: 'prices',
    plugin: 'keyed',
    config: { intervalMs: 5, region: 'east' },
  });
  assert.equal(res.status, 400);
  const body = (await res.json()) as { error: string; issues: Issues };
  const byPath = Object.fromEntries(body.issues.map((i) => [i.path.join('.'), i.message]));
  assert.deepEqual(byPath, {
    'config.apiKey': 'is required',
    'config.intervalMs': 'must be at least 1000 (milliseconds)',
    'config.region': 'must be one of "north", "south"',
  });
  assert.match(body.error, /config\.intervalMs: must be at least 1000 \(milliseconds\)/);
  assert.equal(readFileSync(server.dataDir.replace(/data$/, 'plugins.json'), 'utf8'), before);
  assert.equal(
    server.plugins.status().some((s) => s.id === 'prices'),
    false,
  );
});

test('an id in use is 409; an unknown plugin, a bad id or a device in use is 400 at that field', async () => {
  const taken = await send('POST', '/api/v1/plugins', { id: 'e', plugin: 'echo' });
  assert.equal(taken.status, 409);
  assert.deepEqual(((await taken.json()) as { issues: Issues }).issues, [
    { path: ['id'], message: 'an instance "e" already exists: choose another id' },
  ]);

  const unknown = await send('POST', '/api/v1/plugins', { id: 'x', plugin: 'solax' });
  assert.equal(unknown.status, 400);
  const unknownIssues = ((await unknown.json()) as { issues: Issues }).issues;
  assert.deepEqual(unknownIssues[0]!.path, ['plugin']);
  assert.match(unknownIssues[0]!.message, /no plugin "solax" is installed \(installed: echo, keyed\)/);

  const badId = await send('POST', '/api/v1/plugins', {
    id: 'My Meter',
    plugin: 'echo',
    devices: ['inverter_2'],
    extra: 1,
  });
  assert.equal(badId.status, 400);
  const paths = ((await badId.json()) as { issues: Issues }).issues.map((i) => i.path.join('.')).sort();
  assert.deepEqual(paths, ['extra', 'id']);

  const device = await send('POST', '/api/v1/plugins', { id: 'e2', plugin: 'echo', devices: ['inverter_1'] });
  assert.equal(device.status, 400);
  assert.deepEqual(((await device.json()) as { issues: Issues }).issues, [
    { path: ['devices', 0], message: 'device "inverter_1" is already driven by instance "e": pick another number' },
  ]);

  const wrongDevices = async (body: unknown) => {
    const res = await send('POST', '/api/v1/plugins', body);
    assert.equal(res.status, 400);
    return ((await res.json()) as { issues: Issues }).issues;
  };
  assert.deepEqual(await wrongDevices({ id: 'k', plugin: 'keyed', devices: ['inverter_3'], config: { apiKey: 'x' } }), [
    { path: ['devices'], message: 'must be empty: Keyed provider drives no devices' },
  ]);
  assert.deepEqual(await wrongDevices({ id: 'e3', plugin: 'echo', devices: ['battery_1'] }), [
    { path: ['devices', 0], message: 'must be an inverter: echo drives no battery' },
  ]);
  assert.deepEqual(await wrongDevices({ id: 'e4', plugin: 'echo' }), [
    { path: ['devices'], message: 'must list at least 1 device for echo to drive' },
  ]);
});

test('an added instance is saved, starts, and shows running only after its first run', async () => {
  const states = statesOf('tariff', ['running', 'failed']);
  const res = await send('POST', '/api/v1/plugins', { id: 'tariff', plugin: 'keyed', config: { apiKey: 'k-123456' } });
  assert.equal(res.status, 201);
  const status = (await res.json()) as Record<string, unknown>;
  assert.equal(status.id, 'tariff');
  assert.equal(status.enabled, true);
  assert.equal(status.kind, 'prices');
  assert.deepEqual(await states, ['starting', 'running']);
  const saved = pluginsFile().find((p) => p.id === 'tariff')!;
  assert.deepEqual(saved, {
    id: 'tariff',
    plugin: 'keyed',
    enabled: true,
    devices: [],
    config: { apiKey: 'k-123456' },
  });
});

test('a config whose first run fails never shows running: it goes from starting to failed', async () => {
  const states = statesOf('refused', ['running', 'failed']);
  const res = await send('POST', '/api/v1/plugins', { id: 'refused', plugin: 'keyed', config: { apiKey: 'wrong' } });
  assert.equal(res.status, 201);
  assert.deepEqual(await states, ['starting', 'failed']);
  const listed = ((await (await server.api('/api/v1/plugins')).json()) as Array<Record<string, unknown>>).find(
    (p) => p.id === 'refused',
  )!;
  assert.equal(listed.state, 'failed');
  assert.match(String(listed.last_error), /job poll failed: 401 Unauthorized: the API key was refused/);
});

test('secrets are write-only: never answered, kept when a form leaves them out, replaced when given', async () => {
  const read = await server.api('/api/v1/plugins/tariff/config');
  assert.equal(read.status, 200);
  const form = (await read.json()) as {
    schema: ConfigSchema;
    config: Record<string, unknown>;
    secrets: Record<string, boolean>;
  };
  assert.deepEqual(form.config, {}, 'the key is not in the config');
  assert.deepEqual(form.secrets, { apiKey: true });
  assert.equal(form.schema.properties.apiKey.writeOnly, true);
  assert.doesNotMatch(JSON.stringify(form), /k-123456/);

  const kept = await send('PUT', '/api/v1/plugins/tariff/config', { region: 'south' });
  assert.equal(kept.status, 200);
  assert.deepEqual(await kept.json(), { region: 'south' });
  assert.deepEqual(pluginsFile().find((p) => p.id === 'tariff')!.config, { region: 'south', apiKey: 'k-123456' });

  const replaced = await send('PUT', '/api/v1/plugins/tariff/config', { region: 'south', apiKey: 'k-654321' });
  assert.equal(replaced.status, 200);
  assert.deepEqual(pluginsFile().find((p) => p.id === 'tariff')!.config, { region: 'south', apiKey: 'k-654321' });

  const bad = await send('PUT', '/api/v1/plugins/tariff/config', { intervalMs: 10 });
  assert.equal(bad.status, 400);
  assert.deepEqual(((await bad.json()) as { issues: Issues }).issues, [
    { path: ['intervalMs'], message: 'must be at least 1000 (milliseconds)' },
  ]);
});

test('a disabled instance is stopped, stays listed and saved; enabling starts it again', async () => {
  const off = await send('PATCH', '/api/v1/plugins/e', { enabled: false });
  assert.equal(off.status, 200);
  const status = (await off.json()) as Record<string, unknown>;
  assert.equal(status.enabled, false);
  assert.equal(status.state, 'stopped');
  assert.equal(server.registry.get('inverter_1/pv_power'), undefined, 'what it declared is undone');
  const listed = (await (await server.api('/api/v1/plugins')).json()) as Array<Record<string, unknown>>;
  assert.deepEqual(
    listed.find((p) => p.id === 'e'),
    { ...status, last_poll: null },
  );
  assert.equal(pluginsFile().find((p) => p.id === 'e')!.enabled, false);
  const config = await server.api('/api/v1/plugins/e/config');
  assert.equal(config.status, 200, 'a disabled instance can still be edited');

  const on = await send('PATCH', '/api/v1/plugins/e', { enabled: true });
  assert.equal(on.status, 200);
  assert.equal(((await on.json()) as Record<string, unknown>).enabled, true);
  assert.equal(pluginsFile().find((p) => p.id === 'e')!.enabled, true);
  assert.equal(server.registry.get('inverter_1/pv_power')!.value, 1000, 'it runs again');

  const badBody = await send('PATCH', '/api/v1/plugins/e', { enabled: 'no' });
  assert.equal(badBody.status, 400);
  assert.deepEqual(((await badBody.json()) as { issues: Issues }).issues, [
    { path: ['enabled'], message: 'must be true or false' },
  ]);
  assert.equal((await send('PATCH', '/api/v1/plugins/nope', { enabled: false })).status, 404);
});

test('a removed instance is stopped and gone from the list and plugins.json', async () => {
  const res = await send('DELETE', '/api/v1/plugins/refused');
  assert.equal(res.status, 204);
  assert.equal(
    server.plugins.status().some((s) => s.id === 'refused'),
    false,
  );
  assert.equal(
    pluginsFile().some((p) => p.id === 'refused'),
    false,
  );
  assert.equal((await send('DELETE', '/api/v1/plugins/refused')).status, 404);
  assert.equal((await server.api('/api/v1/plugins/refused/config')).status, 404);
});

test('a disabled instance of an uninstalled plugin is listed, has no form, and cannot be enabled', async () => {
  const listed = ((await (await server.api('/api/v1/plugins')).json()) as Array<Record<string, unknown>>).find(
    (p) => p.id === 'gone',
  )!;
  assert.equal(listed.enabled, false);
  assert.equal(listed.state, 'stopped');
  const form = await server.api('/api/v1/plugins/gone/config');
  assert.equal(form.status, 409);
  assert.match(
    ((await form.json()) as { error: string }).error,
    /plugin "uninstalled" is not installed or cannot be loaded/,
  );
  const on = await send('PATCH', '/api/v1/plugins/gone', { enabled: true });
  assert.equal(on.status, 400);
  const issues = ((await on.json()) as { issues: Issues }).issues;
  assert.deepEqual(issues[0]!.path, ['enabled']);
  assert.match(issues[0]!.message, /no plugin "uninstalled" is installed/);
  assert.equal(pluginsFile().find((p) => p.id === 'gone')!.enabled, false);
});

test('plugin and token changes are audited with who made them, secrets shown as ***', async () => {
  const created = await send('POST', '/api/v1/tokens', { name: 'phone' });
  const token = (await created.json()) as { id: string };
  assert.equal((await send('DELETE', `/api/v1/tokens/${token.id}`)).status, 204);

  const audit = (await (await server.api('/api/v1/audit?limit=100')).json()) as Array<Record<string, unknown>>;
  assert.doesNotMatch(JSON.stringify(audit), /k-123456|k-654321/, 'no secret in the audit log');
  const of = (topic: string) => audit.filter((a) => a.topic === topic).reverse();
  const tariff = of('plugins/tariff');
  assert.deepEqual(
    tariff.map((a) => [a.who, a.via, a.result]),
    [
      ['admin', 'rest', 'ok'],
      ['admin', 'rest', 'ok'],
      ['admin', 'rest', 'ok'],
    ],
  );
  assert.equal(tariff[0]!.old_value, '');
  assert.equal(
    tariff[0]!.new_value,
    '{"id":"tariff","plugin":"keyed","enabled":true,"devices":[],"config":{"apiKey":"***"}}',
  );
  assert.equal(tariff[1]!.new_value, '{"config":{"region":"south","apiKey":"***"}}');
  assert.deepEqual(
    of('plugins/e').map((a) => [a.old_value, a.new_value]),
    [
      ['{"enabled":true}', '{"enabled":false}'],
      ['{"enabled":false}', '{"enabled":true}'],
    ],
  );
  assert.equal(of('plugins/refused').at(-1)!.new_value, '', 'removal');
  assert.deepEqual(
    of('tokens/phone').map((a) => a.new_value),
    ['created', 'revoked'],
  );
});
