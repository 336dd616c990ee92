// Failure containment over the whole service: a plugin that throws never takes the API down.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, statusWhen } from '../helpers/server.js';

const server = await startTestServer({
  bundled: ['simulator'],
  fixtures: ['crashing', 'flaky', 'echo'],
  plugins: [
    {
      id: 'broken',
      plugin: 'crashing',
      devices: ['inverter_2'],
      config: { message: 'serial port /dev/ttyUSB0 not found' },
    },
    { id: 'flaky', plugin: 'flaky', config: { failures: 1000, intervalMs: 50 } },
    { id: 'good', plugin: 'echo', devices: ['inverter_1'] },
    { id: 'off', plugin: 'crashing', enabled: false },
  ],
});

test('a plugin that throws in setup is listed as failed with its error; the rest run', async () => {
  const res = await server.api('/api/v1/plugins');
  assert.equal(res.status, 200);
  const list = (await res.json()) as Array<Record<string, unknown>>;
  assert.deepEqual(
    list.map((p) => p.id),
    ['broken', 'flaky', 'good', 'off', 'history'],
    'history follows the plugins',
  );
  const off = list.find((p) => p.id === 'off')!;
  assert.equal(off.enabled, false, 'a disabled instance stays listed');
  assert.equal(off.state, 'stopped', 'and does not run');
  assert.equal(list.find((p) => p.id === 'good')!.enabled, true);
  assert.deepEqual(list.at(-1), {
    id: 'history',
    plugin: 'core',
    kind: 'history',
    devices: [],
    device_status: [],
    enabled: true,
    state: 'running',
    last_error: null,
    last_poll: null,
    isolation: 'process-local',
  });
  const broken = list.find((p) => p.id === 'broken')!;
  assert.equal(broken.plugin, 'crashing');
  assert.equal(broken.kind, 'integration');
  assert.deepEqual(broken.devices, ['inverter_2'], 'device ids, as SDK 1.0 clients read them');
  assert.deepEqual(broken.device_status, [
    { id: 'inverter_2', available: false, reason: 'the instance is failed', identity: {} },
  ]);
  assert.ok(['failed', 'starting'].includes(broken.state as string));
  assert.match(String(broken.last_error), /serial port \/dev\/ttyUSB0 not found/);
  const good = list.find((p) => p.id === 'good')!;
  assert.equal(good.state, 'running');
  assert.equal(good.last_error, null);
});

test('a plugin whose job keeps failing is failed, and the API keeps answering', async () => {
  await statusWhen(server, 'flaky', (s) => s.state === 'failed', { what: 'state `failed`', timeoutMs: 60_000 });
  const flaky = server.plugins.status().find((p) => p.id === 'flaky')!;
  assert.match(flaky.last_error!, /job poll failed: device timeout #\d+/);
  const res = await server.api('/api/v1/metrics?topic=inverter_1/pv_power&value=1');
  assert.equal(res.status, 200);
  assert.equal(await res.text(), '1000');
  const crashedTopic = await server.api('/api/v1/metrics?topic=inverter_2/*');
  assert.deepEqual(await crashedTopic.json(), [], 'what the crashed plugin declared was undone');
});
