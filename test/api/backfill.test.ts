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

/** The simulator's backfill has ended: its progress is gone from the plugin's status. */
async function backfillEnded(): Promise<boolean> {
  const rows = (await (await server.api('/api/v1/plugins')).json()) as Array<{
    id: string;
    progress: { done: number; total: number } | null;
  }>;
  const progress = rows.find((r) => r.id === 'sim')?.progress;
  return progress === null || (progress !== undefined && progress.done >= progress.total);
}

/**
 * Resolves once the backfill has recorded all 24 hours before now and ended (it records the
 * newest day first, so yesterday's last hour is the last one written): checked after each
 * plugin job run.
 */
async function backfilled(range: string, topic = 'inverter_2/pv_power'): Promise<void> {
  const giveUpAt = Date.now() + 90_000;
  for (;;) {
    const points = (await history(topic, range)).points;
    if (points.length >= 24 && (await backfillEnded())) return;
    if (Date.now() > giveUpAt) assert.fail(`${topic} has ${points.length} of the 24 backfilled hours after 90 s`);
    await within(
      new Promise((resolve) => server.plugins.once('status', resolve)),
      `plugin job run while ${topic} has ${points.length} of the 24 backfilled hours`,
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

test('backfilled days have their energy: the kWh totals rise by what the recorded power adds up to', async () => {
  const to = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
  const from = new Date(Date.parse(to) - 24 * 3_600_000).toISOString();
  const range = `from=${from}&to=${to}&group_by=1h`;
  await backfilled(range, 'total/pv_energy');
  for (const kind of ['pv', 'load']) {
    const [energy, power] = await Promise.all([
      history(`total/${kind}_energy`, `${range}&agg=last`),
      history(`total/${kind}_power`, range),
    ]);
    assert.equal(energy.points.length, 24, `${kind}: an energy figure for every backfilled hour`);
    // Rises between the hours' last values, as the page reads a period-to-date counter (a drop is a new period).
    let risen = 0;
    for (let i = 1; i < energy.points.length; i++) {
      const [now, before] = [energy.points[i]![1], energy.points[i - 1]![1]];
      risen += now < before ? now : now - before;
    }
    const meanKwh = power.points.slice(1).reduce((sum, [, watts]) => sum + watts / 1000, 0);
    assert.ok(meanKwh > 0.5, `${kind}: the backfilled day has power (${meanKwh} kWh)`);
    assert.ok(
      Math.abs(risen - meanKwh) <= 0.02 * meanKwh + 0.05,
      `${kind}: the energy totals rose ${risen.toFixed(3)} kWh over 23 hours, the power adds up to ${meanKwh.toFixed(3)} kWh`,
    );
  }
});

test("the battery's charge is in history for the backfilled day, rising while it charges and falling while it discharges", async () => {
  const to = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
  const from = new Date(Date.parse(to) - 24 * 3_600_000).toISOString();
  const range = `from=${from}&to=${to}&group_by=1h`;
  // Battery metrics are not recorded (API contract): the site's charge, total/battery_state_of_charge
  // (what the page's chart draws), is their history, from the backfilled battery_1 readings.
  await backfilled(range, 'total/battery_state_of_charge');
  const [soc, power] = await Promise.all([
    history('total/battery_state_of_charge', `${range}&agg=last`),
    history('total/battery_power', range),
  ]);
  assert.equal(soc.points.length, 24);
  assert.ok(
    soc.points.every(([, v]) => typeof v === 'number' && v >= 0 && v <= 100),
    JSON.stringify(soc.points),
  );
  const values = soc.points.map(([, v]) => v);
  assert.ok(Math.max(...values) > Math.min(...values), `the charge moves over the day: ${values.join(' ')}`);
  // An hour that charged on average at a few hundred watts ends fuller than the hour before.
  for (let i = 1; i < 24; i++) {
    const [time, mean] = power.points[i]!;
    const change = soc.points[i]![1] - soc.points[i - 1]![1];
    if (mean > 300) assert.ok(change > 0, `${time}: ${mean} W charging, SOC changed ${change}`);
    if (mean < -300) assert.ok(change < 0, `${time}: ${mean} W discharging, SOC changed ${change}`);
  }
  // Reading by reading (10 s) over five hours: the charge never moves against the power.
  const fine = `from=${new Date(Date.parse(to) - 5 * 3_600_000).toISOString()}&to=${to}&group_by=10s`;
  const [socFine, powerFine] = await Promise.all([
    history('total/battery_state_of_charge', fine),
    history('total/battery_power', fine),
  ]);
  assert.equal(socFine.points.length, 1800);
  const powerAt = new Map(powerFine.points);
  for (let i = 1; i < socFine.points.length; i++) {
    const [time, value] = socFine.points[i]!;
    const change = value - socFine.points[i - 1]![1];
    const watts = powerAt.get(time)!;
    if ((watts > 5 && change < 0) || (watts < -5 && change > 0))
      assert.fail(`${time}: SOC moved ${change} at ${watts} W`);
  }
  const battery = await server.api(`/api/v1/history?topic=battery_1/state_of_charge&${range}`);
  assert.equal(battery.status, 404, 'battery metrics themselves stay unrecorded');
});
