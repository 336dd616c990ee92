// What a plugin in a worker hands a ctx method crosses to the host as data, checked there
// against the method's schema (core/src/plugins/context/methods.ts): the worker runs code the
// core does not trust, so arguments that do not fit end it instead of reaching the core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, statusWhen } from '../helpers/server.js';

const server = await startTestServer({
  fixtures: ['bad-args'],
  plugins: [
    { id: 'bad', plugin: 'bad-args', devices: ['inverter_1'], isolation: 'worker' },
    { id: 'good', plugin: 'bad-args', devices: ['inverter_2'], isolation: 'worker', config: { bad: false } },
  ],
});

test('arguments that fit the method reach the core', async () => {
  await statusWhen(server, 'good', (s) => s.state === 'running');
  const res = await server.api('/api/v1/metrics?topic=inverter_2/pv_power&value=1');
  assert.equal(await res.text(), '1');
});

test('arguments the schema refuses end the worker, and its status says why', async () => {
  const status = await statusWhen(server, 'bad', (s) => s.last_error !== null, { what: 'the bad instance failed' });
  assert.equal(status.state, 'failed');
  assert.match(
    status.last_error!,
    /^setup failed: its worker sent a message the host does not understand \(.+\) and was terminated; retrying in \d+ s$/,
  );
  const res = await server.api('/api/v1/metrics?topic=inverter_1/pv_power&value=1');
  // Its declaration was undone with the worker: nothing of it is left in the registry.
  assert.equal(res.status, 404, await res.clone().text());
});
