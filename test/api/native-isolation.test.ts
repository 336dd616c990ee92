// Isolation in a process of its own: a serial driver (serialport's native binding) runs over a
// real pseudo-terminal in the default isolation, and a plugin that aborts natively, during
// setup or afterwards, never takes the server down. One that dies while starting is switched
// off with the reason instead of being started (and dying) again and again.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startModbusEmulator } from '@heliograph/plugins-sdk/emulator';
import { DEFAULT_LOGGER_SERIAL, DeyeDevice } from '@heliograph/plugin-deye/emulator';
import type { InstanceStatus } from '@heliograph/core/testing';
import { jsonBody, startTestServer, statusWhen } from '../helpers/server.js';
import { serialBridge, SOCAT_SKIP } from '../helpers/pty-bridge.js';

const ABORTED_AT_START =
  /^switched off: its process died while starting \(switch it on again once the plugin or its config is fixed\): crashed: its worker process was ended by SIGABRT \(a native crash\)/;

async function serialDeye() {
  const device = new DeyeDevice({ now: () => new Date(2026, 5, 21, 12, 0), serial: '2306011234' });
  const emulator = await startModbusEmulator({
    transport: 'rtu-over-tcp',
    units: new Map([[1, device]]),
    loggerSerial: DEFAULT_LOGGER_SERIAL,
  });
  after(() => emulator.close());
  return { type: 'serial', path: await serialBridge(emulator.port), baudRate: 9600 };
}

test('a serial driver in a worker process, beside plugins that abort natively', { skip: SOCAT_SKIP }, async () => {
  const connection = await serialDeye();
  const server = await startTestServer({
    bundled: ['deye'],
    external: ['aborter'],
    plugins: [
      {
        id: 'deye',
        plugin: 'deye',
        devices: ['inverter_1', 'battery_1'],
        isolation: 'worker',
        config: { connection, pollIntervalMs: 1000, timeoutMs: 400 },
      },
      { id: 'dies-at-start', plugin: 'aborter', config: { at: 'setup' } },
      { id: 'dies-later', plugin: 'aborter', config: { at: 'run' } },
    ],
  });

  const deye = await statusWhen(server, 'deye', (s) => s.last_poll !== null);
  assert.equal(deye.state, 'running', String(deye.last_error));
  assert.equal(deye.isolation, 'worker');
  const pv = (await (await server.api('/api/v1/metrics?topic=inverter_1/pv_power&value=1')).text()).trim();
  assert.match(pv, /^\d+(\.\d+)?$/, 'a value read over the serial link');

  const atStart = await statusWhen(server, 'dies-at-start', (s) => s.state === 'failed');
  assert.equal(atStart.isolation, 'worker', 'a plugin from node_modules is isolated by default');
  assert.equal(atStart.enabled, false, 'switched off, not restarted');
  assert.match(atStart.last_error!, ABORTED_AT_START);

  const later = await statusWhen(server, 'dies-later', (s) => s.state === 'failed');
  assert.equal(later.enabled, true, 'a crash after a good start is restarted with back-off');
  assert.match(
    later.last_error!,
    /^crashed: its worker process was ended by SIGABRT \(a native crash\); retrying in \d+ s$/,
  );

  // The server answers, and the serial driver keeps polling.
  const polled = deye.last_poll;
  const again = await statusWhen(server, 'deye', (s) => s.last_poll !== polled);
  assert.equal(again.state, 'running', String(again.last_error));

  // Switched on again by hand, it is tried once more and switched off again.
  const patch = await server.api('/api/v1/plugins/dies-at-start', { ...jsonBody({ enabled: true }), method: 'PATCH' });
  assert.equal(patch.status, 200, await patch.clone().text());
  const retried = await statusWhen(server, 'dies-at-start', (s) => s.state === 'failed' && !s.enabled);
  assert.match(retried.last_error!, ABORTED_AT_START);

  // Saved through the API, an instance that aborts is refused the same way.
  const added = await server.api(
    '/api/v1/plugins',
    jsonBody({ id: 'added', plugin: 'aborter', config: { at: 'setup' } }),
  );
  assert.equal(added.status, 201, await added.clone().text());
  const addedStatus = await statusWhen(server, 'added', (s) => s.state === 'failed');
  assert.match(addedStatus.last_error!, ABORTED_AT_START);
  const list = (await (await server.api('/api/v1/plugins')).json()) as InstanceStatus[];
  assert.deepEqual(
    list.filter((p) => p.plugin === 'aborter').map((p) => [p.id, p.enabled]),
    [
      ['dies-at-start', false],
      ['dies-later', true],
      ['added', false],
    ],
  );
});
