// The embedded default's promise: a newcomer sees days of history at once, totals included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { within } from '../helpers/deadline.js';

const server = await startTestServer({
  bundled: ['simulator'],
  plugins: [
    {
      id: 'sim',
      plugin: 'simulator',
      devices: ['inverter_1', 'inverter_2', 'battery_1'],
      config: { backfill_days: 1, demoForecast: false, demoPrices: false },
    },
  ],
});

type History = { points: Array<[string, number]> };

async function history(topic: string, query: string): Promise<History> {
  const res = await server.api(`/api/v1/history?topic=${topic}&${query}`);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as History;
}

/** Resolves once the backfill has reached the hour before now: checked after each plugin job run. */
async function backfilled(range: string): Promise<void> {
  for (;;) {
    const points = (await history('inverter_2/pv_power', range)).points;
    if (points.length >= 24) return;
    await within(
      new Promise((resolve) => server.plugins.once('status', resolve)),
      `plugin job run while inverter_2/pv_power has ${points.length} of the 24 backfilled hours`,
    );
  }
}

test('backfilled days show in the history of the devices and of the totals, and they agree', async () => {
  const to = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
  const from = new Date(Date.parse(to) - 24 * 3_600_000).toISOString();
  const range = `from=${from}&to=${to}&group_by=1h`;
  await backfilled(range);
  const [inv1, inv2, total] = await Promise.all([
    history('inverter_1/pv_power', range),
    history('inverter_2/pv_power', range),
    history('total/pv_power', range),
  ]);
  assert.equal(total.points.length, 24);
  total.points.forEach(([time, value], i) => {
    assert.equal(time, inv1.points[i]![0]);
    assert.ok(
      Math.abs(value - (inv1.points[i]![1] + inv2.points[i]![1])) < 0.01,
      `${time}: total ${value} = ${inv1.points[i]![1]} + ${inv2.points[i]![1]}`,
    );
  });
  assert.ok(
    total.points.some(([, v]) => v > 0),
    'the sun shone at some point of the day',
  );
  const grid = await history('total/grid_power', range);
  assert.equal(grid.points.length, 24);
});
