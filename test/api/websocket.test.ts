// The live stream of the whole service, as an existing client sees it: the official Phoenix
// client joins `metrics` on the embedded simulator and gets definitions, values and system rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { within } from '../helpers/deadline.js';
import { connectPhoenix, nextEvent } from '../helpers/phoenix.js';
import { PASSWORD, startTestServer } from '../helpers/server.js';

const server = await startTestServer({
  bundled: ['simulator'],
  plugins: [{ id: 'sim', plugin: 'simulator', devices: ['inverter_1', 'battery_1'], config: { pollIntervalMs: 1000 } }],
});

const connect = (params: Record<string, string>) => connectPhoenix(server.url, params);

test('a Phoenix client joins metrics and receives definitions, current values and system rows', async () => {
  const socket = connect({ password: PASSWORD });
  const channel = socket.channel('metrics', { topics: [{ topic: 'total/*' }] });
  const definition = nextEvent<{ definitions: unknown }>(channel, 'definition');
  const data = nextEvent<{ metrics: unknown }>(channel, 'data');
  const system = nextEvent<{ metrics: unknown }>(channel, 'system');
  const joined = await within(
    new Promise((resolve) => channel.join().receive('ok', resolve).receive('error', resolve)),
    'the reply to the join',
  );
  assert.deepEqual(joined, {});
  const definitions = (await definition).definitions as Array<Record<string, unknown>>;
  assert.ok(
    definitions.some(
      (d) =>
        d.topic === 'total/pv_power' &&
        d.unit === 'W' &&
        d.device === 'totals' &&
        d.number === null &&
        d.device_class === 'power',
    ),
  );
  assert.ok(definitions.every((d) => String(d.topic).startsWith('total/')));
  const first = (await data).metrics as Array<{ topic: string; value: unknown }>;
  assert.ok(first.some((m) => m.topic === 'total/battery_state_of_charge' && typeof m.value === 'number'));
  const rows = (await system).metrics as Array<{ topic: string }>;
  assert.ok(rows.some((r) => r.topic === 'system/software_version'));
  const update = (await nextEvent<{ metrics: unknown }>(channel, 'data')).metrics as Array<{ topic: string }>;
  assert.ok(
    update.length > 0 && update.every((m) => m.topic.startsWith('total/')),
    'later updates carry only the filter',
  );
  socket.disconnect();
});

test('a wrong password is refused before the upgrade with 401', async () => {
  const ws = new WebSocket(server.url.replace('http', 'ws') + '/api/websocket?vsn=2.0.0&password=wrong-password');
  const status = await within(
    new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!))),
    'the refused upgrade',
  );
  assert.equal(status, 401);
});
