import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../src/clock.js';
import type { LoggedValue } from '../../src/config/settings-log.js';
import { migrate, openDatabase } from '../../src/db.js';
import { periodBounds, type ResetPeriod } from '../../src/energy/kwh-totals.js';
import { formatInZone, periodBuckets, type EnergyPeriod } from '../../src/energy/period-buckets.js';
import { PERIOD_COUNTERS, PeriodEnergy, type PeriodFigures } from '../../src/energy/period-energy.js';
import { priceMigrations } from '../../src/grid/price-history.js';
import { HistoryStore } from '../../src/history/store.js';
import { roundTo } from '../../src/numbers.js';
import { tempDir } from '../helpers/tmp.js';
import { topicMeta } from '../helpers/topics.js';

const MIN = 60_000;
const H = 3_600_000;
const DAY = 24 * H;
const BERLIN = 'Europe/Berlin';
type Name = (typeof PERIOD_COUNTERS)[number][0];
type Readings = Map<Name, Array<[number, number]>>;
type Rule = { period: ResetPeriod; timeZone: string };

/**
 * Counter readings every minute of [from, to) as EnergyTotals makes them: constant power
 * integrated, reset to 0 at each period's start under the rule in force, the kWh kept when
 * the rule changes (reconfigure), to 3 decimals.
 */
function simulate(from: number, to: number, kw: Partial<Record<Name, number>>, rule: (t: number) => Rule): Readings {
  const out: Readings = new Map(Object.keys(kw).map((name) => [name as Name, []]));
  const kwh = new Map<Name, number>();
  let bounds: { start: number; end: number } | undefined;
  let ruleNow: Rule | undefined;
  let last: number | undefined;
  for (let t = from; t < to; t += MIN) {
    const r = rule(t);
    if (!ruleNow || r.period !== ruleNow.period || r.timeZone !== ruleNow.timeZone) {
      ruleNow = r;
      bounds = periodBounds(t, r.period, r.timeZone);
    }
    let start = last ?? t;
    if (t >= bounds!.end) {
      bounds = periodBounds(t, r.period, r.timeZone);
      kwh.clear();
      start = Math.max(start, bounds.start);
    }
    for (const [name, power] of Object.entries(kw) as Array<[Name, number]>) {
      const value = (kwh.get(name) ?? 0) + (power * (t - start)) / H;
      kwh.set(name, value);
      out.get(name)!.push([t, roundTo(value, 3)]);
    }
    last = t;
  }
  return out;
}

/** Brute force: each reading's rise over the one before (a drop counts from 0), summed per bucket. */
function reference(readings: Readings, name: Name, from: number, to: number): number {
  const list = readings.get(name) ?? [];
  let sum = 0;
  for (let i = 1; i < list.length; i++) {
    const [t, v] = list[i]!;
    if (t < from || t >= to) continue;
    const before = list[i - 1]![1];
    sum += v < before ? v : v - before;
  }
  return roundTo(sum, 3);
}

async function setup(readings: Readings, zones: LoggedValue[], currency: string | null = null) {
  const db = await openDatabase(join(tempDir('period-energy-'), 'heliograph.db'));
  await migrate(db, priceMigrations);
  const store = await HistoryStore.open({
    db,
    clock: new ManualClock(Date.parse('2027-01-01T00:00:00Z')),
    config: { retentionDays: 3650, diskBudgetMb: 2048, flushIntervalMs: 5000 },
    autoFlush: false,
  });
  for (const [name, topic] of PERIOD_COUNTERS) {
    const list = readings.get(name);
    if (list) await store.recordPast(topicMeta(topic, { name, unit: 'kWh' }), list);
  }
  let log = zones;
  const energy = new PeriodEnergy({
    store,
    db,
    log: { values: () => log },
    timeZone: () => 'UTC',
    now: () => Date.parse('2027-01-01T00:00:00Z'),
    priceAdjust: () => ({ multiplier: 2, offset: 0.01 }),
    currency: () => Promise.resolve(currency),
  });
  return {
    db,
    energy,
    setLog: (next: LoggedValue[]) => (log = next),
    close: async () => {
      await store.close();
      await db.close();
    },
  };
}

const at = (iso: string) => Date.parse(iso);
const utcDaily = (): Rule => ({ period: 'daily', timeZone: 'UTC' });
const bounds = (b: PeriodFigures) => `${formatInZone(b.from, b.zone)} ${formatInZone(b.to, b.zone)} ${b.zone}`;

test('daily resets are found in the readings: each day is what its counters rose, the reset minute lost as in the counters', async () => {
  const from = at('2026-06-01T00:00:00Z');
  const readings = simulate(from, from + 3 * DAY, { pv: 1.2, load: 0.6 }, utcDaily);
  const s = await setup(readings, [{ time: from, value: 'UTC' }]);
  const { buckets } = await s.energy.figures('day', from, from + 3 * DAY);
  assert.deepEqual(
    buckets.map((b) => b.energy?.pv),
    [28.78, 28.78, 28.78],
  );
  assert.deepEqual(
    buckets.map((b) => b.energy?.load),
    [14.39, 14.39, 14.39],
  );
  assert.equal(buckets[0]!.energy!.grid_in, 0, 'a counter without history rose by nothing');
  for (const b of buckets) assert.equal(b.energy!.pv, reference(readings, 'pv', b.from, b.to));
  // Hours of the second day: the first hour after the reset counts from 0.
  const hours = await s.energy.figures('hour', from + DAY, from + DAY + 2 * H);
  assert.deepEqual(
    hours.buckets.map((b) => b.energy?.pv),
    [1.18, 1.2],
  );
  await s.close();
});

test('a reset inside an hour (a half-hour zone’s midnight read in UTC days) is counted from 0 after its peak', async () => {
  const from = at('2026-06-01T00:00:00Z');
  const readings = simulate(from, from + 3 * DAY, { pv: 1.2 }, () => ({
    period: 'daily',
    timeZone: 'Asia/Kolkata',
  }));
  const s = await setup(readings, [{ time: from, value: 'UTC' }]);
  const { buckets } = await s.energy.figures('day', from, from + 3 * DAY);
  for (const b of buckets) assert.equal(b.energy!.pv, reference(readings, 'pv', b.from, b.to), bounds(b));
  // 18:00-19:00 UTC holds Kolkata's midnight (18:30): 30 minutes before it, 29 after.
  const hour = await s.energy.figures('hour', from + DAY + 18 * H, from + DAY + 19 * H);
  assert.equal(hour.buckets[0]!.energy!.pv, 1.18);
  await s.close();
});

test('a zone and reset change mid-history: past days keep their UTC bounds and figures, later ones are Berlin days', async () => {
  const from = at('2026-06-01T00:00:00Z');
  const change = at('2026-06-03T14:00:00Z');
  const rule = (t: number): Rule =>
    t < change ? { period: 'weekly', timeZone: 'UTC' } : { period: 'daily', timeZone: BERLIN };
  const readings = simulate(from, from + 6 * DAY, { pv: 1.2, grid_in: 0.6 }, rule);
  const before = [{ time: from, value: 'UTC' }];
  const s = await setup(readings, before);
  const pastBefore = await s.energy.figures('day', from, change);
  const monthBefore = await s.energy.figures('month', from, change);
  s.setLog([...before, { time: change, value: BERLIN }]);
  const { buckets } = await s.energy.figures('day', from, at('2026-06-06T22:00:00Z'));
  assert.deepEqual(buckets.map(bounds), [
    '2026-06-01T00:00:00+00:00 2026-06-02T00:00:00+00:00 UTC',
    '2026-06-02T00:00:00+00:00 2026-06-03T00:00:00+00:00 UTC',
    // The day running at the change keeps its bounds.
    '2026-06-03T00:00:00+00:00 2026-06-04T00:00:00+00:00 UTC',
    // The next starts where it ended and runs to Berlin's next midnight.
    '2026-06-04T02:00:00+02:00 2026-06-05T00:00:00+02:00 Europe/Berlin',
    '2026-06-05T00:00:00+02:00 2026-06-06T00:00:00+02:00 Europe/Berlin',
    '2026-06-06T00:00:00+02:00 2026-06-07T00:00:00+02:00 Europe/Berlin',
  ]);
  assert.deepEqual(buckets.slice(0, 3), pastBefore.buckets, 'the days before the change are unchanged');
  for (const b of buckets.slice(0, 5))
    for (const name of ['pv', 'grid_in'] as const)
      assert.equal(b.energy![name], reference(readings, name, b.from, b.to), `${name} ${bounds(b)}`);
  // The weekly counter read as days: no resets on Jun 1-3, then the new daily ones in Berlin.
  assert.equal(buckets[0]!.energy!.pv, 28.78, 'the first day starts at its first reading');
  assert.equal(buckets[1]!.energy!.pv, 28.8);
  assert.equal(buckets[4]!.energy!.pv, reference(readings, 'pv', buckets[4]!.from, buckets[4]!.to));
  const month = await s.energy.figures('month', from, change);
  assert.deepEqual(month.buckets, monthBefore.buckets, 'June keeps its UTC bounds: the change waits for July');
  // Asked from a later start, a day has the same bounds and figure as asked within a longer range.
  const alone = await s.energy.figures('day', from + 4 * DAY, from + 4 * DAY + 1);
  assert.deepEqual(alone.buckets, [buckets[4]]);
  await s.close();
});

test('DST days are 23 and 25 hours long, and a fall-back day has 25 hour buckets', async () => {
  const berlinMonthly = (): Rule => ({ period: 'monthly', timeZone: BERLIN });
  const autumn = at('2026-10-23T21:00:00Z');
  const spring = at('2026-03-27T23:00:00Z');
  const readings = simulate(autumn, autumn + 4 * DAY, { pv: 1.2 }, berlinMonthly);
  for (const [name, list] of simulate(spring, spring + 4 * DAY, { pv: 1.2 }, berlinMonthly))
    readings.get(name)!.push(...list);
  const s = await setup(readings, [{ time: spring, value: BERLIN }]);
  const days = await s.energy.figures('day', at('2026-10-24T12:00:00Z'), at('2026-10-26T12:00:00Z'));
  assert.deepEqual(days.buckets.map(bounds), [
    '2026-10-24T00:00:00+02:00 2026-10-25T00:00:00+02:00 Europe/Berlin',
    '2026-10-25T00:00:00+02:00 2026-10-26T00:00:00+01:00 Europe/Berlin',
    '2026-10-26T00:00:00+01:00 2026-10-27T00:00:00+01:00 Europe/Berlin',
  ]);
  assert.deepEqual(
    days.buckets.map((b) => b.energy!.pv),
    [28.8, 30, 28.8],
  );
  const hours = await s.energy.figures('hour', days.buckets[1]!.from, days.buckets[1]!.to);
  assert.equal(hours.buckets.length, 25);
  assert.deepEqual(
    hours.buckets.slice(2, 4).map((b) => formatInZone(b.from, b.zone)),
    ['2026-10-25T02:00:00+02:00', '2026-10-25T02:00:00+01:00'],
  );
  const march = await s.energy.figures('day', at('2026-03-29T12:00:00Z'), at('2026-03-29T13:00:00Z'));
  assert.equal(bounds(march.buckets[0]!), '2026-03-29T00:00:00+01:00 2026-03-30T00:00:00+02:00 Europe/Berlin');
  assert.equal(march.buckets[0]!.energy!.pv, 27.6);
  await s.close();
});

test('money: import at the mean price of each hour, export, a prorated standing charge, adjusted as /grid shows prices', async () => {
  const day = at('2026-06-10T00:00:00Z');
  const readings = simulate(day - H, day + 2 * DAY, { load: 2.4, grid_in: 1.2, grid_out: 0.6 }, (): Rule => ({
    period: 'monthly',
    timeZone: 'UTC',
  }));
  const s = await setup(readings, [{ time: day - DAY, value: 'UTC' }], 'EUR');
  const slot = (kind: string, start: number, end: number, price: number) =>
    s.db.run(
      "INSERT INTO price_slots (kind, start, end, price, currency, provider) VALUES (?, ?, ?, ?, 'EUR', 'test')",
      kind,
      start,
      end,
      price,
    );
  await slot('import', day, day + 7 * H, 0.1);
  // One hour in two half-hour slots: its price is their mean.
  await slot('import', day + 7 * H, day + 7.5 * H, 0.1);
  await slot('import', day + 7.5 * H, day + 8 * H, 0.3);
  await slot('import', day + 8 * H, day + DAY, 0.2);
  await slot('export', day, day + DAY, 0.05);
  await slot('export', day + DAY, day + 2 * DAY, 0.05);
  // A slot of another currency is not this answer's.
  await s.db.run(
    "INSERT INTO price_slots (kind, start, end, price, currency, provider) VALUES ('import', ?, ?, 5, 'USD', 'x')",
    day + DAY + H,
    day + DAY + 2 * H,
  );
  await slot('standing', day, day + DAY, 0.48);
  const { currency, buckets } = await s.energy.figures('day', day, day + 2 * DAY);
  assert.equal(currency, 'EUR');
  assert.deepEqual(buckets[0]!.energy, {
    pv: 0,
    load: 57.6,
    battery_in: 0,
    battery_out: 0,
    grid_in: 28.8,
    grid_out: 14.4,
  });
  // Import 0.1 -> 0.21 (x2 + 0.01), 0.2 -> 0.41, hour 7 mean(0.21, 0.61) = 0.41; export 0.05 -> 0.11.
  // import: 7 x 1.2 x 0.21 + 17 x 1.2 x 0.41 = 1.764 + 8.364 = 10.128; export: 14.4 x 0.11 = 1.584.
  // load at import: 7 x 2.4 x 0.21 + 17 x 2.4 x 0.41 = 3.528 + 16.728 = 20.256.
  assert.deepEqual(buckets[0]!.money, {
    import_cost: 10.128,
    export_revenue: 1.584,
    standing_charge: 0.48,
    net_cost: 9.024,
    savings: 11.712,
    priced_hours: 24,
    unpriced_hours: 0,
  });
  // The next day has energy, an export price and no import price: nothing to cost.
  assert.ok(buckets[1]!.energy);
  assert.equal(buckets[1]!.money, null);
  const hours = await s.energy.figures('hour', day + 7 * H, day + 8 * H);
  assert.deepEqual(hours.buckets[0]!.money, {
    import_cost: 0.492,
    export_revenue: 0.066,
    standing_charge: 0.02,
    net_cost: 0.446,
    savings: 0.558,
    priced_hours: 1,
    unpriced_hours: 0,
  });
  await s.close();
});

test('a bucket without readings is null ("no data"), not 0; hours without an import price are counted apart', async () => {
  const day = at('2026-06-10T00:00:00Z');
  const readings = simulate(day, day + 12 * H, { pv: 1.2 }, utcDaily);
  const s = await setup(readings, [{ time: day, value: 'UTC' }], 'EUR');
  await s.db.run(
    "INSERT INTO price_slots (kind, start, end, price, currency, provider) VALUES ('import', ?, ?, 0.1, 'EUR', 't'), ('standing', ?, ?, 0.48, 'EUR', 't')",
    day,
    day + 6 * H,
    day,
    day + 2 * DAY,
  );
  const { buckets } = await s.energy.figures('day', day - DAY, day + 2 * DAY);
  assert.deepEqual(
    buckets.map((b) => b.energy?.pv ?? null),
    [null, 14.38, null],
  );
  assert.deepEqual(
    buckets.map((b) => b.money),
    [
      null,
      {
        import_cost: 0,
        export_revenue: 0,
        standing_charge: 0.24,
        net_cost: 0.24,
        savings: 0,
        priced_hours: 6,
        unpriced_hours: 6,
      },
      null,
    ],
  );
  await s.close();
});

test('bucket bounds: several changes within one bucket leave the last; a change back before it takes effect leaves none', () => {
  const t0 = at('2026-01-01T00:00:00Z');
  const day = (period: EnergyPeriod, zones: LoggedValue[]) =>
    periodBuckets(period, at('2026-01-05T12:00:00Z'), at('2026-01-07T12:00:00Z'), zones, 'UTC').map(
      (b) => `${formatInZone(b.from, b.zone)} ${b.zone}`,
    );
  const changes = [
    { time: t0, value: 'UTC' },
    { time: at('2026-01-05T10:00:00Z'), value: BERLIN },
    { time: at('2026-01-05T11:00:00Z'), value: 'America/New_York' },
  ];
  assert.deepEqual(day('day', changes), [
    '2026-01-05T00:00:00+00:00 UTC',
    // The rest of New York's Jan 5 after the UTC day ended.
    '2026-01-05T19:00:00-05:00 America/New_York',
    '2026-01-06T00:00:00-05:00 America/New_York',
    '2026-01-07T00:00:00-05:00 America/New_York',
  ]);
  assert.deepEqual(day('day', [...changes.slice(0, 2), { time: at('2026-01-05T11:00:00Z'), value: 'UTC' }]), [
    '2026-01-05T00:00:00+00:00 UTC',
    '2026-01-06T00:00:00+00:00 UTC',
    '2026-01-07T00:00:00+00:00 UTC',
  ]);
  assert.deepEqual(day('day', []), day('day', [{ time: t0, value: 'UTC' }]), 'an empty log: the zone in force');
});
