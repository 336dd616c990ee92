import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ManualClock } from '../../src/clock.js';
import { migrate, openDatabase } from '../../src/db.js';
import { EnergyTotals, energyMigrations } from '../../src/energy/kwh-totals.js';
import { PastEnergy } from '../../src/energy/past-energy.js';
import { TopicRegistry, type Tick, type TopicMeta } from '../../src/topics/registry.js';
import { TotalsDeriver } from '../../src/topics/power-totals.js';
import { tempDir } from '../helpers/tmp.js';
import { topicMeta } from '../helpers/topics.js';

const BERLIN = 'Europe/Berlin';
const daily = () => ({ period: 'daily' as const, timeZone: BERLIN });

/** A registry with the power and energy totals defined, as the server has them when plugins backfill. */
async function registryWithTotals(start: number) {
  const clock = new ManualClock(start);
  const db = await openDatabase(join(tempDir('past-energy'), 'h.db'));
  await migrate(db, energyMigrations);
  const registry = new TopicRegistry(clock);
  new TotalsDeriver(registry).start();
  for (const t of ['inverter_1/pv_power', 'inverter_1/grid_power', 'inverter_1/battery_power', 'inverter_1/load_power'])
    registry.define(topicMeta(t));
  const energy = new EnergyTotals(registry, db, clock, 'daily', BERLIN);
  const stop = await energy.start();
  return {
    clock,
    registry,
    energy,
    close: async () => {
      await stop();
      await db.close();
    },
  };
}

/** The past total/* power series of readings (as PastTotals hands them over). */
function powerSeries(registry: TopicRegistry, readings: Array<[number, Record<string, number>]>) {
  const names = Object.keys(readings[0]![1]);
  return names.map((name): [TopicMeta, Array<[number, number]>] => [
    registry.get(`total/${name}`)!.meta,
    readings.map(([t, v]) => [t, v[name]!]),
  ]);
}

const last = (series: Array<[TopicMeta, Array<[number, number]>]>, topic: string) => {
  const points = series.find(([meta]) => meta.topic === topic)?.[1];
  assert.ok(points, `no ${topic} series among ${series.map(([m]) => m.topic).join(', ')}`);
  return points[points.length - 1]!;
};

test('past readings give the kWh the live totals count for the same readings', async () => {
  const start = Date.parse('2026-11-20T08:00:00Z');
  // Two hours a minute apart: PV 3 kW, the battery charging 1 kW then discharging 0.5 kW, the grid both ways.
  const readings: Array<[number, Record<string, number>]> = [];
  for (let m = 0; m <= 120; m++)
    readings.push([
      start + m * 60_000,
      { pv_power: 3000, battery_power: m < 60 ? 1000 : -500, grid_power: m < 60 ? -400 : 250, load_power: 1600 },
    ]);

  const live = await registryWithTotals(start);
  try {
    for (const [time, values] of readings.slice(1)) {
      live.clock.set(time);
      const tick = new Promise<Tick>((r) => live.registry.once('tick', r));
      for (const [name, watts] of Object.entries(values))
        live.registry.publish(live.registry.get(`inverter_1/${name}`)!, watts);
      await tick;
    }
    // The live totals integrate from their start (the first reading's time), with the first values unknown
    // until the first publish; the past ones from the first reading: compare over the readings after it.
    const past = await registryWithTotals(start);
    try {
      const series = new PastEnergy(past.registry, daily).add(powerSeries(past.registry, readings.slice(1)));
      for (const name of [
        'pv_energy',
        'battery_energy_in',
        'battery_energy_out',
        'grid_energy_in',
        'grid_energy_out',
        'load_energy',
      ]) {
        const [time, kwh] = last(series, `total/${name}`);
        assert.equal(time, start + 120 * 60_000, `${name}: the last point is the last reading's`);
        assert.equal(
          kwh,
          live.energy.kwh(name)! === undefined ? NaN : Math.round(live.energy.kwh(name)! * 1000) / 1000,
          name,
        );
      }
      assert.equal(last(series, 'total/pv_energy')[1], 5.95, '3 kW for 119 minutes');
      assert.equal(last(series, 'total/battery_energy_in')[1], 0.983, '1 kW for 59 minutes');
      assert.equal(last(series, 'total/battery_energy_out')[1], 0.5, '0.5 kW for 60 minutes');
    } finally {
      await past.close();
    }
  } finally {
    await live.close();
  }
});

test('a past day starts from 0 at local midnight; gaps over 5 minutes count nothing; one point a minute', async () => {
  const site = await registryWithTotals(Date.parse('2026-11-21T12:00:00Z'));
  try {
    const midnight = Date.parse('2026-11-20T23:00:00Z'); // Berlin's midnight
    const readings: Array<[number, Record<string, number>]> = [];
    // 23:30-00:30 local, every 10 s, 1.2 kW of PV.
    for (let t = midnight - 30 * 60_000; t <= midnight + 30 * 60_000; t += 10_000)
      readings.push([t, { pv_power: 1200 }]);
    // An hour's gap, then ten more minutes.
    for (let t = midnight + 90 * 60_000; t <= midnight + 100 * 60_000; t += 10_000)
      readings.push([t, { pv_power: 1200 }]);
    const series = new PastEnergy(site.registry, daily).add(powerSeries(site.registry, readings));
    const pv = series.find(([m]) => m.topic === 'total/pv_energy')![1];
    const before = pv.filter(([t]) => t < midnight);
    // The evening's last reading holds until midnight: its last 10 s are the evening's, counted
    // in a point just before the reset, so nothing is lost at it.
    assert.equal(before[before.length - 1]![0], midnight - 1, "the evening's end has its point");
    assert.equal(before[before.length - 1]![1], 0.6, 'the evening: 1.2 kW for the whole 30 min');
    const after = pv.filter(([t]) => t >= midnight);
    const [firstTime, firstKwh] = after[0]!;
    assert.equal(
      firstKwh,
      Math.round((1.2 * (firstTime - midnight)) / 3_600) / 1000,
      'the count starts again at midnight',
    );
    const beforeGap = after.filter(([t]) => t <= midnight + 30 * 60_000);
    const [gapTime, gapKwh] = beforeGap[beforeGap.length - 1]!;
    assert.equal(gapKwh, Math.round((1.2 * (gapTime - midnight)) / 3_600) / 1000, 'counting on until the gap');
    assert.equal(pv[pv.length - 1]![1], 0.8, 'the gap counts nothing, the ten minutes after it 0.2 kWh');
    const regular = pv.filter(([t]) => t !== midnight - 1).slice(0, -1);
    for (let i = 1; i < regular.length; i++)
      assert.ok(
        regular[i]![0] - regular[i - 1]![0] >= 60_000,
        `points a minute apart, but for the period's last (at ${i})`,
      );
    assert.ok(pv.length < readings.length / 5, `${pv.length} points for ${readings.length} readings`);
  } finally {
    await site.close();
  }
});

test('readings out of order start a new count rather than count twice', async () => {
  const site = await registryWithTotals(Date.parse('2026-11-21T12:00:00Z'));
  try {
    const t0 = Date.parse('2026-11-21T09:00:00Z');
    const hour = (from: number) =>
      Array.from({ length: 61 }, (_, m): [number, Record<string, number>] => [from + m * 60_000, { pv_power: 2000 }]);
    const energy = new PastEnergy(site.registry, daily);
    const first = energy.add(powerSeries(site.registry, hour(t0)));
    assert.equal(last(first, 'total/pv_energy')[1], 2);
    // The same hour again (a backfill after a restart): counted from 0, so its rises add up to the same 2 kWh.
    const again = energy.add(powerSeries(site.registry, hour(t0)));
    assert.equal(last(again, 'total/pv_energy')[1], 2);
  } finally {
    await site.close();
  }
});

test('each reading is counted by the rules in force at its time: a re-recorded range counts as it did before a change', async () => {
  const site = await registryWithTotals(Date.parse('2026-11-21T12:00:00Z'));
  try {
    const midnight = Date.parse('2026-11-20T23:00:00Z'); // Berlin's
    const readings: Array<[number, Record<string, number>]> = [];
    for (let t = midnight - 30 * 60_000; t <= midnight + 30 * 60_000; t += 60_000)
      readings.push([t, { pv_power: 1200 }]);
    // Weekly until an owner switched to daily resets at 23:50 (so this midnight is a reset),
    // asked of each reading's time: a reading after the switch, whenever it is recorded, resets.
    const switched = midnight - 10 * 60_000;
    const rules = (time: number) => ({
      period: time < switched ? ('weekly' as const) : ('daily' as const),
      timeZone: BERLIN,
    });
    const pv = new PastEnergy(site.registry, rules)
      .add(powerSeries(site.registry, readings))
      .find(([m]) => m.topic === 'total/pv_energy')![1];
    const [, firstAfter] = pv.find(([t]) => t >= midnight)!;
    assert.ok(firstAfter < 0.05, `counted from 0 at midnight by the daily rule in force then: ${firstAfter}`);
    assert.equal(pv.at(-1)![1], 0.6, 'the half hour after midnight');
  } finally {
    await site.close();
  }
});

test('nothing before the energy totals exist', () => {
  const registry = new TopicRegistry(new ManualClock(0));
  new TotalsDeriver(registry).start();
  registry.define(topicMeta('inverter_1/pv_power'));
  const series = new PastEnergy(registry, daily).add(
    powerSeries(registry, [
      [0, { pv_power: 1 }],
      [60_000, { pv_power: 1 }],
    ]),
  );
  assert.deepEqual(series, []);
});
