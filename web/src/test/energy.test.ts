/// <reference types="node" />
// The energy view's pure parts: the service's per-period answer read as the page shows it,
// "no data" kept apart from 0, and money with what it includes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bucketsWithData, moneyNotes, moneyTotal, sharesOf, totalsOf } from '../state/energy.js';
import { energyPath, periodEnergyOf, type EnergyAnswer } from '../state/energy-data.js';
import { axisLabel, niceTop } from '../cards/energy-view.js';
import { zonedInstant } from '../state/zone.js';

const ZONE = 'Europe/Berlin';

const money = (importCost: number, exportRevenue: number, standing: number, priced: number, unpriced = 0) => ({
  import_cost: importCost,
  export_revenue: exportRevenue,
  standing_charge: standing,
  net_cost: Math.round((importCost - exportRevenue + standing) * 10000) / 10000,
  savings: 1,
  priced_hours: priced,
  unpriced_hours: unpriced,
});

/** Three days of a week: one with data and prices, one with data and some hours unpriced, one without data. */
const ANSWER: EnergyAnswer = {
  period: 'day',
  currency: 'EUR',
  buckets: [
    {
      from: '2026-11-23T00:00:00+01:00',
      to: '2026-11-24T00:00:00+01:00',
      time_zone: ZONE,
      energy: { pv: 10.53, load: 8.1, battery_in: 3.2, battery_out: 2.9, grid_in: 1.1, grid_out: 3.6 },
      money: money(0.31, 0.29, 0.45, 24),
    },
    {
      from: '2026-11-24T00:00:00+01:00',
      to: '2026-11-25T00:00:00+01:00',
      time_zone: ZONE,
      energy: { pv: 2, load: 4, battery_in: 0, battery_out: 0, grid_in: 2, grid_out: 0 },
      money: money(0.5, 0, 0.45, 20, 4),
    },
    {
      from: '2026-11-25T00:00:00+01:00',
      to: '2026-11-26T00:00:00+01:00',
      time_zone: ZONE,
      energy: null,
      money: null,
    },
  ],
};

test('a bucket without readings is no data (null), left out of sums, never 0', () => {
  const start = zonedInstant(ZONE, 2026, 11, 23);
  const energy = periodEnergyOf(ANSWER, 'week', start, start + 7 * 86_400_000, ZONE);
  assert.deepEqual(energy.table.pv, [10.53, 2, null]);
  assert.deepEqual(energy.table.import, [1.1, 2, null]);
  assert.deepEqual(energy.table.charge, [3.2, 0, null]);
  assert.equal(energy.buckets[0], Date.parse('2026-11-22T23:00:00Z'));
  assert.equal(energy.money[2], null);
  const totals = totalsOf(energy.table);
  assert.equal(totals.pv, 12.53);
  assert.equal(totals.export, 3.6);
  assert.equal(bucketsWithData(energy.table), 2);
  const empty = totalsOf({
    pv: [null],
    load: [null],
    import: [null],
    export: [null],
    charge: [null],
    discharge: [null],
  });
  assert.equal(empty.pv, null, 'a period without data totals no data, not 0');
  assert.deepEqual(sharesOf(empty), { selfConsumption: null, selfSufficiency: null });
});

test('the money of a period says what it includes and what it leaves out', () => {
  const start = zonedInstant(ZONE, 2026, 11, 23);
  const energy = periodEnergyOf(ANSWER, 'week', start, start + 7 * 86_400_000, ZONE);
  const total = moneyTotal(energy.money)!;
  assert.equal(total.importCost, 0.81);
  assert.equal(total.exportRevenue, 0.29);
  assert.equal(total.standingCharge, 0.9);
  assert.equal(total.netCost, 1.42);
  assert.deepEqual([total.pricedHours, total.unpricedHours], [44, 4]);
  assert.deepEqual(moneyNotes(total, 3.6, 2), ['Cost of 44 of 48 h; 4 h without a price.']);
  // Sold energy that earned nothing: no export price, said so.
  const unpaid = { ...total, exportRevenue: 0, unpricedHours: 0 };
  assert.deepEqual(moneyNotes(unpaid, 3.6, 2), ['Sold energy not priced: no export price.']);
  assert.deepEqual(moneyNotes(unpaid, 0, 2), [], 'nothing sold: nothing to say');
  assert.deepEqual(moneyNotes(null, 3.6, 2), [
    'No cost for this period: no price is known for any of its hours with energy.',
  ]);
  assert.deepEqual(moneyNotes(null, null, 0), []);
  assert.equal(moneyTotal([null, null]), null);
});

test('the per-period request asks hours for a day, days for a week or month, months for a year', () => {
  const day = zonedInstant(ZONE, 2026, 3, 29); // the clocks go forward: 23 h
  assert.equal(
    energyPath(ZONE, 'day', day),
    '/energy?period=hour&from=2026-03-28T23%3A00%3A00.000Z&to=2026-03-29T22%3A00%3A00.000Z',
  );
  // A day more each side where days were recorded in another zone.
  assert.equal(
    energyPath(ZONE, 'day', day, true),
    '/energy?period=hour&from=2026-03-27T23%3A00%3A00.000Z&to=2026-03-30T22%3A00%3A00.000Z',
  );
  const month = zonedInstant(ZONE, 2026, 11, 1);
  assert.match(energyPath(ZONE, 'month', month), /^\/energy\?period=day&from=2026-10-31T23.*&to=2026-11-30T23/);
  assert.match(energyPath(ZONE, 'week', month), /^\/energy\?period=day&/);
  assert.match(
    energyPath(ZONE, 'year', zonedInstant(ZONE, 2026, 1, 1), true),
    /^\/energy\?period=month&from=2025-12-30T23.*to=2027-01-01T23/,
  );
});

test('a period holds the days as they were recorded: a UTC day read from Berlin is still that day', () => {
  // The site counted in UTC until the 25th, in Berlin from then on.
  const utcDay = (date: string) => ({
    from: `${date}T00:00:00+00:00`,
    to: `${date}T23:59:59+00:00`,
    time_zone: 'UTC',
    energy: { pv: 1, load: 1, battery_in: 0, battery_out: 0, grid_in: 0, grid_out: 0 },
    money: null,
  });
  const answer: EnergyAnswer = {
    period: 'day',
    currency: null,
    buckets: [utcDay('2026-11-22'), utcDay('2026-11-23'), utcDay('2026-11-24'), { ...ANSWER.buckets[2]! }],
  };
  const week = zonedInstant(ZONE, 2026, 11, 23);
  const energy = periodEnergyOf(answer, 'week', week, week + 7 * 86_400_000, ZONE);
  // The 22nd (UTC) begins an hour after the Berlin week does, but it is the 22nd: not this week.
  assert.deepEqual(
    energy.buckets.map((t) => new Date(t).toISOString().slice(0, 10)),
    ['2026-11-23', '2026-11-24', '2026-11-24'],
  );
  assert.deepEqual(energy.zones, ['UTC', 'UTC', ZONE]);
});

test('bar labels: hours every 3 (6 on a phone), every day of a week, months; a kWh scale with a round top', () => {
  const day = zonedInstant(ZONE, 2026, 11, 25);
  const hours = Array.from({ length: 24 }, (_, i) => axisLabel('day', day + i * 3_600_000, ZONE));
  assert.deepEqual(hours.map((k, i) => (k ? `${i}:${k}` : '')).filter(Boolean), [
    '0:major',
    '3:minor',
    '6:major',
    '9:minor',
    '12:major',
    '15:minor',
    '18:major',
    '21:minor',
  ]);
  assert.equal(axisLabel('week', day, ZONE), 'major');
  assert.equal(axisLabel('year', zonedInstant(ZONE, 2026, 4, 1), ZONE), 'major');
  assert.equal(axisLabel('year', zonedInstant(ZONE, 2026, 5, 1), ZONE), 'minor');
  assert.equal(niceTop(0), 1);
  assert.equal(niceTop(0.7), 1);
  assert.equal(niceTop(1.7), 2);
  assert.equal(niceTop(2.2), 2.5);
  assert.equal(niceTop(42.1), 50);
  assert.equal(niceTop(70.3), 100);
});
