// What a plugin in a worker process publishes in one job run reaches clients as one update:
// two inverters polled one after the other arrive in one WebSocket `data` message, with the
// totals they imply, never one inverter's new value beside a total that does not add up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectPhoenix } from '../helpers/phoenix.js';
import { startTestServer, statusWhen } from '../helpers/server.js';

const UPDATES = 6;

test('one run of a worker plugin is one update over the WebSocket, totals consistent', async () => {
  const server = await startTestServer({
    fixtures: ['pair-poller'],
    plugins: [
      {
        id: 'pair',
        plugin: 'pair-poller',
        devices: ['inverter_1', 'inverter_2'],
        isolation: 'worker',
        config: { intervalMs: 100 },
      },
    ],
  });
  await statusWhen(server, 'pair', (s) => s.state === 'running');
  const socket = connectPhoenix(server.url);
  const channel = socket.channel('metrics', {
    topics: [{ topic: 'inverter_1/pv_power' }, { topic: 'inverter_2/pv_power' }, { topic: 'total/pv_power' }],
  });
  const updates: Array<Map<string, unknown>> = [];
  const enough = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`waited 20 s for ${UPDATES} data messages; got ${updates.length}`)),
      20_000,
    );
    channel.on('data', (payload: { metrics: Array<{ topic: string; value: unknown }> }) => {
      updates.push(new Map(payload.metrics.map((m) => [m.topic, m.value])));
      if (updates.length < UPDATES + 1) return;
      clearTimeout(timer);
      resolve();
    });
  });
  channel.join();
  try {
    await enough;
  } finally {
    socket.disconnect();
  }
  // The first message is the current state at the join; each later one is one run.
  for (const update of updates.slice(1)) {
    const shown = JSON.stringify([...update]);
    const one = update.get('inverter_1/pv_power');
    const two = update.get('inverter_2/pv_power');
    assert.equal(typeof one, 'number', `inverter_1 in every update: ${shown}`);
    assert.equal(two, (one as number) + 1, `inverter_2 of the same run in the same update: ${shown}`);
    assert.equal(update.get('total/pv_power'), (one as number) + two, `the total adds up: ${shown}`);
  }
});
