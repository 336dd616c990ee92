/// <reference types="node" />
// Energy from the kWh totals: the same days give the same figures in every period.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  costNote,
  counterQueryStart,
  counterRises,
  moneyOf,
  sharesOf,
  sumIntoBuckets,
  type ResetPeriod,
} from '../energy.js';
import { addPeriods, bucketsOf, periodStart, zonedInstant } from '../zone.js';

const ZONE = 'Europe/Berlin';
const HOUR = 3_600_000;

/**
 * A kWh total as history keeps it (last value per UTC hour), over `days` from `start`,
 * restarting at each reset period's start in the site zone; returns the points and the
 * true energy of each hour.
 */
function counter(
  start: number,
  hours: number,
  reset: ResetPeriod,
): { points: Array<[number, number]>; truth: Map<number, number> } {
  const points: Array<[number, number]> = [];
  const truth = new Map<number, number>();
  const unit = reset === 'daily' ? 'day' : reset === 'weekly' ? 'week' : 'month';
  let value = 0;
  let period = periodStart(ZONE, start, unit);
  for (let i = 0; i < hours; i++) {
    const t = start + i * HOUR;
    const p = periodStart(ZONE, t, unit);
    if (p !== period) {
      value = 0;
      period = p;
    }
    const energy = Math.round(((Math.sin(i / 5) + 1.2) * 0.7 + (i % 7) * 0.01) * 1000) / 1000;
    value = Math.round((value + energy) * 1000) / 1000;
    points.push([t, value]);
    truth.set(t, energy);
  }
  return { points, truth };
}

for (const reset of ['daily', 'weekly', 'monthly'] as const) {
  test(`${reset} resets: each day has the same kWh whether a week, a month or the year shows it`, () => {
    const first = zonedInstant(ZONE, 2026, 1, 1);
    const { points, truth } = counter(first, 24 * 120, reset); // January to April, across the March clock change
    const rises = counterRises(points, reset, ZONE);
    const byDay = (starts: number[], end: number) => {
      const sums = sumIntoBuckets(rises, starts, end);
      return new Map(starts.map((s, i) => [s, sums[i]!]));
    };
    const days = new Map<number, number>();
    // Each day's truth, from the hours that fall in it.
    for (const [t, e] of truth) {
      const d = periodStart(ZONE, t, 'day');
      days.set(d, Math.round(((days.get(d) ?? 0) + e) * 1000) / 1000);
    }
    const week = periodStart(ZONE, zonedInstant(ZONE, 2026, 3, 27), 'week');
    const month = zonedInstant(ZONE, 2026, 3, 1);
    const inWeek = byDay(bucketsOf(ZONE, week, 'week'), addPeriods(ZONE, week, 'week', 1));
    const inMonth = byDay(bucketsOf(ZONE, month, 'month'), addPeriods(ZONE, month, 'month', 1));
    for (const [day, kwh] of inWeek) {
      assert.equal(kwh, inMonth.get(day), `day ${new Date(day).toISOString()} in the week and the month`);
      assert.equal(kwh, days.get(day), `day ${new Date(day).toISOString()} against the truth`);
    }
    // The month's total equals the year's March bar.
    const year = zonedInstant(ZONE, 2026, 1, 1);
    const months = sumIntoBuckets(rises, bucketsOf(ZONE, year, 'year'), addPeriods(ZONE, year, 'year', 1));
    const march = [...inMonth.values()].reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(months[2]! - march) < 1e-6, `March: ${months[2]} in the year, ${march} in the month`);
  });
}

test('the first hour after a reset counts from zero; a set-back total never counts negative', () => {
  const monday = zonedInstant(ZONE, 2026, 11, 23);
  const points: Array<[number, number]> = [
    [monday - 2 * HOUR, 40],
    [monday - HOUR, 41.5],
    [monday, 0.2],
    [monday + HOUR, 0.9],
    [monday + 2 * HOUR, 0.5],
    [monday + 3 * HOUR, 1.1],
  ];
  assert.deepEqual(
    counterRises(points, 'weekly', ZONE).map(([, r]) => Math.round(r * 1000) / 1000),
    [40, 1.5, 0.2, 0.7, 0, 0.6],
  );
  // Asked from the start of its reset period, so the first bucket's base is zero.
  assert.equal(counterQueryStart(monday + 30 * HOUR, 'weekly', ZONE), monday);
  assert.equal(counterQueryStart(monday + 30 * HOUR, 'daily', ZONE), monday + 24 * HOUR);
});

test('an unfinished bucket counts only what happened so far', () => {
  const day = zonedInstant(ZONE, 2026, 11, 25);
  const rises: Array<[number, number]> = [
    [day + 8 * HOUR, 0.5],
    [day + 9 * HOUR, 0.25],
  ];
  const sums = sumIntoBuckets(rises, bucketsOf(ZONE, day, 'day'), addPeriods(ZONE, day, 'day', 1));
  assert.equal(sums.length, 24);
  assert.equal(sums[8], 0.5);
  assert.equal(sums[9], 0.25);
  assert.equal(
    sums.reduce((a, b) => a + b, 0),
    0.75,
  );
});

test('self-consumption and self-sufficiency as Home Assistant defines them', () => {
  const shares = sharesOf({ pv: 20, load: 15, import: 3, export: 8, charge: 5, discharge: 4 });
  assert.equal(shares.selfConsumption, 0.6);
  assert.equal(shares.selfSufficiency, 0.8);
  assert.deepEqual(sharesOf({ pv: 0, load: 0, import: 0, export: 0, charge: 0, discharge: 0 }), {
    selfConsumption: null,
    selfSufficiency: null,
  });
});

test('cost and savings at the price of each hour; hours without a price are counted, not guessed', () => {
  const h0 = Date.parse('2026-11-25T10:00:00Z');
  const hours = [h0, h0 + HOUR, h0 + 2 * HOUR];
  const prices = [
    // Two half-hour slots in the first hour: the hour's price is their mean.
    { from: h0, to: h0 + HOUR / 2, importPrice: 0.2, exportPrice: 0.05 },
    { from: h0 + HOUR / 2, to: h0 + HOUR, importPrice: 0.4, exportPrice: 0.05 },
    { from: h0 + HOUR, to: h0 + 2 * HOUR, importPrice: 0.1, exportPrice: null },
  ];
  const money = moneyOf(hours, { import: [2, 1, 5], export: [1, 3, 0], load: [4, 2, 5] }, prices);
  // Hour 1: 2 × 0.3 − 1 × 0.05 = 0.55; hour 2: 1 × 0.1 − 3 × 0 = 0.1; hour 3: no price.
  assert.equal(money.cost, 0.65);
  // Without solar or battery: 4 × 0.3 + 2 × 0.1 = 1.4.
  assert.equal(money.savings, 0.75);
  assert.equal(money.priced, 2);
  assert.equal(money.unpriced, 1);
  assert.equal(costNote(money), 'Cost of 2 of 3 h; 1 h without a price.');
});

test('a past day costed at the prices kept for it: 20 of its 24 hours priced, in any order of slots per hour', () => {
  const day = Date.parse('2026-11-24T23:00:00Z');
  const hours = Array.from({ length: 24 }, (_, i) => day + i * HOUR);
  // Quarter-hour slots for the first 20 hours: hour i costs 0.1 + i/100 on average.
  const prices = hours.slice(0, 20).flatMap((h, i) =>
    [0, 1, 2, 3].map((q) => ({
      from: h + (q * HOUR) / 4,
      to: h + ((q + 1) * HOUR) / 4,
      importPrice: 0.1 + i / 100 + (q - 1.5) / 100,
      exportPrice: 0.05,
    })),
  );
  const used = hours.map(() => 0.5);
  const bought = hours.map(() => 0.125);
  const sold = hours.map(() => 0.05);
  const money = moneyOf(hours, { import: bought, export: sold, load: used }, prices);
  let cost = 0;
  let without = 0;
  for (let i = 0; i < 20; i++) {
    cost += 0.125 * (0.1 + i / 100) - 0.05 * 0.05;
    without += 0.5 * (0.1 + i / 100);
  }
  assert.ok(Math.abs(money.cost - cost) < 1e-4, `${money.cost} vs ${cost}`);
  assert.ok(Math.abs(money.savings - (without - cost)) < 1e-4, `${money.savings} vs ${without - cost}`);
  assert.deepEqual([money.priced, money.unpriced], [20, 4]);
  assert.equal(costNote(money), 'Cost of 20 of 24 h; 4 h without a price.');
  // No kept price at all: nothing summed, the hours named.
  const none = moneyOf(hours, { import: bought, export: sold, load: used }, []);
  assert.deepEqual([none.cost, none.priced, none.unpriced], [0, 0, 24]);
  assert.equal(costNote(none), 'No cost for this period: none of its 24 h with energy has a known price.');
  // Hours without energy need no price.
  const quiet = moneyOf(
    hours,
    { import: hours.map(() => 0), export: hours.map(() => 0), load: hours.map(() => 0) },
    [],
  );
  assert.equal(costNote(quiet), '');
});
