import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadPluginsFile } from '../../src/plugins/instances/instances.js';
import { tempDir } from '../helpers/tmp.js';
import { basic, PASSWORD, startWebServer } from './harness.js';

const server = await startWebServer({ staticDir: tempDir() });
after(() => server.close());
const auth = { authorization: basic(PASSWORD) };

function call(method: string, path: string, body?: unknown, headers: Record<string, string> = auth) {
  return fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

test('GET config: the plugin schema as JSON Schema and the config in force', async () => {
  const response = await call('GET', '/plugins/e/config');
  assert.equal(response.status, 200);
  const body = (await response.json()) as {
    schema: { type: string; properties: Record<string, { type: string; default: unknown }> };
    config: unknown;
  };
  assert.equal(body.schema.type, 'object');
  assert.deepEqual(Object.keys(body.schema.properties).sort(), ['port', 'pv_power']);
  assert.equal(body.schema.properties.port!.type, 'integer');
  assert.equal(body.schema.properties.pv_power!.default, 1000);
  assert.deepEqual(body.config, {});
});

test('an unknown instance is a 404 that says where the ids are listed', async () => {
  for (const method of ['GET', 'PUT']) {
    const response = await call(method, '/plugins/solax/config', method === 'PUT' ? {} : undefined);
    assert.equal(response.status, 404);
    assert.match(
      ((await response.json()) as { error: string }).error,
      /no plugin instance "solax": GET \/api\/v1\/plugins lists them/,
    );
  }
});

test('config routes need credentials', async () => {
  assert.equal((await call('GET', '/plugins/e/config', undefined, {})).status, 401);
  assert.equal((await call('PUT', '/plugins/e/config', { pv_power: 1 }, {})).status, 401);
  assert.deepEqual(server.host.describe('e')!.config, {}, 'nothing changed');
});

test('a refused config names each bad key and changes nothing', async () => {
  const before = readFileSync(server.pluginsFile, 'utf8');
  const response = await call('PUT', '/plugins/e/config', { pv_power: 'lots', port: 1.5 });
  assert.equal(response.status, 400);
  const { error, issues } = (await response.json()) as {
    error: string;
    issues: Array<{ path: unknown[]; message: string }>;
  };
  const lines = error.split('\n');
  assert.equal(lines.length, 2, error);
  assert.deepEqual(
    [...issues].sort((a, b) => String(a.path[0]).localeCompare(String(b.path[0]))),
    [
      { path: ['port'], message: 'must be a whole number' },
      { path: ['pv_power'], message: 'must be a number' },
    ],
    'each bad field with its key path, for the form',
  );
  assert.equal(
    lines.find((l) => l.includes('pv_power')),
    'config: pv_power: must be a number',
  );
  assert.equal(
    lines.find((l) => l.includes('port')),
    'config: port: must be a whole number',
  );
  assert.equal(readFileSync(server.pluginsFile, 'utf8'), before, 'plugins.json untouched');
  assert.equal(server.registry.get('inverter_1/pv_power')!.value, 1000, 'the running plugin kept its config');
  assert.equal(server.host.status()[0]!.state, 'running');
});

test('a body that is not a config object is a 400', async () => {
  const array = await call('PUT', '/plugins/e/config', '[1, 2]');
  assert.equal(array.status, 400);
  assert.match(((await array.json()) as { error: string }).error, /the body must be the new config as a JSON object/);
  // JSON that is not an object: refused by a strict body parser, else by the route.
  for (const body of ['"pv_power"', 'null', '42']) {
    const response = await call('PUT', '/plugins/e/config', body);
    assert.equal(response.status, 400, body);
    assert.match(
      ((await response.json()) as { error: string }).error,
      /^(the body is not valid JSON|the body must be the new config as a JSON object)/,
      body,
    );
  }
  const broken = await call('PUT', '/plugins/e/config', '{"pv_power": ');
  assert.equal(broken.status, 400);
  assert.equal(((await broken.json()) as { error: string }).error, 'the body is not valid JSON');
  assert.deepEqual(server.host.describe('e')!.config, {}, 'nothing changed');
});

test('an accepted config restarts the plugin with it and is saved to plugins.json', async () => {
  const response = await call('PUT', '/plugins/e/config', { pv_power: 2500, port: 503 });
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { pv_power: 2500, port: 503 });
  assert.equal(
    server.registry.get('inverter_1/pv_power')!.value,
    2500,
    'the restarted plugin publishes its new config',
  );
  assert.equal(server.host.status()[0]!.state, 'running');
  const saved = loadPluginsFile(server.pluginsFile);
  assert.deepEqual(saved, [
    { id: 'e', plugin: 'echo', enabled: true, devices: ['inverter_1'], config: { pv_power: 2500, port: 503 } },
  ]);
  const described = (await (await call('GET', '/plugins/e/config')).json()) as { config: unknown };
  assert.deepEqual(described.config, { pv_power: 2500, port: 503 });
});

test('when plugins.json cannot be written the answer says the change would not survive a restart', async () => {
  const failing = await startWebServer({
    staticDir: tempDir(),
    save: () => {
      throw new Error('EROFS: read-only file system');
    },
  });
  try {
    const response = await fetch(`${failing.url}/api/v1/plugins/e/config`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ pv_power: 10 }),
    });
    assert.equal(response.status, 500);
    assert.match(
      ((await response.json()) as { error: string }).error,
      /in force but could not be saved to plugins\.json.*EROFS: read-only file system/,
    );
  } finally {
    await failing.close();
  }
});
