import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  buildSlots,
  energyCost,
  extendSlots,
  loadSolver,
  makePlan,
  type PlanSlot,
  type PriceInput,
  solvePlan,
} from '../src/planning.js';
import { PARAMS, planRequest } from './fixtures.js';

const QUARTER = 15 * 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Hourly prices from `start` for `hours`, the import price by hour of the day. */
function hourly(start: number, hours: number, importAt: (hour: number) => number, exportPrice = 0): PriceInput[] {
  return Array.from({ length: hours }, (_, k) => ({
    start: start + k * HOUR,
    end: start + (k + 1) * HOUR,
    import: importAt(new Date(start + k * HOUR).getUTCHours()),
    export: exportPrice,
  }));
}

function flat(from: number, to: number, watts: number): Map<number, number> {
  const m = new Map<number, number>();
  for (let t = from; t < to; t += QUARTER) m.set(t, watts);
  return m;
}

/**
 * The plan from `now` on `prices` with a flat 2 kW load for two days and the battery at 60 %:
 * where its actions stop, and the SOC they end at.
 */
function planFrom60(
  highs: Awaited<ReturnType<typeof loadSolver>>,
  prices: PriceInput[],
  now: number,
): { horizonEnd: number; end: number } {
  const plan = makePlan(highs, {
    ...planRequest(prices, now),
    loadW: flat(now, now + 2 * DAY, 2000),
    defaultLoadW: 2000,
    socPercent: 60,
  });
  return { horizonEnd: plan.horizonEnd, end: plan.actions[plan.actions.length - 1]!.socPercent };
}

describe("the end of the plan's horizon", () => {
  test('no purchase is made profitable by the value of the energy left at the end', async () => {
    const highs = await loadSolver();
    const now = Date.UTC(2026, 0, 12);
    // Dear all day (0.40) but for one off-peak hour (0.20) just before the horizon ends: the
    // first version valued the end at the last 12 h's mean (0.38 x 0.95) and bought 4.7 kWh
    // in that hour to end full.
    const prices = hourly(now, 24, (h) => (h === 22 ? 0.2 : 0.4));
    const plan = makePlan(highs, {
      ...planRequest(prices, now),
      horizonMs: DAY,
      loadW: flat(now, now + DAY, 300),
      defaultLoadW: 300,
      socPercent: 20,
    });
    const end = plan.actions[plan.actions.length - 1]!.socPercent;
    assert.ok(end <= 21, `ends at ${end} %, not filled up for the end value (started at 20 %)`);
    // Buying in the off-peak hour for the last hour's load is still worth it.
    const offPeak = plan.actions.filter((a) => new Date(a.start).getUTCHours() === 22);
    assert.ok(offPeak.some((a) => a.mode === 'charge'));
  });

  test('with flat prices nothing is bought', async () => {
    const highs = await loadSolver();
    const now = Date.UTC(2026, 0, 12);
    const plan = makePlan(highs, {
      ...planRequest(
        hourly(now, 48, () => 0.3),
        now,
      ),
      socPercent: 40,
    });
    assert.ok(
      plan.actions.every((a) => a.mode !== 'charge'),
      'no charging',
    );
    assert.ok(plan.solution.chargeKw.every((c) => c < 1e-6));
  });

  test('prices that end at midnight do not empty the battery: the last known day is carried over', async () => {
    const highs = await loadSolver();
    const midnight = Date.UTC(2026, 0, 13);
    const now = midnight - 2 * HOUR;
    // The book holds yesterday's prices too (it keeps today's past ones): the night and the
    // morning are dear, the late evening a little less. Known to midnight only, the first
    // version spent the battery on 22:00-23:00 as if the world ended at midnight.
    const shape = (h: number) => (h === 22 ? 0.35 : h === 23 ? 0.3 : h < 9 ? 0.4 : 0.25);
    const prices = hourly(midnight - DAY, 24, shape);
    const { horizonEnd, end } = planFrom60(highs, prices, now);
    assert.equal(horizonEnd, midnight, 'the actions stop with the known prices');
    assert.ok(end >= 59, `kept for the dear night after midnight: ${end} % at midnight (started at 60 %)`);
  });

  test('a known day short of its first hours (the book not a day old) is still carried over', async () => {
    const highs = await loadSolver();
    const midnight = Date.UTC(2026, 0, 13);
    const now = midnight - 6 * HOUR;
    // Known from 01:00 (the service started then) to midnight: dear nights and mornings, a
    // cheap evening. Carried over (00:00-01:00 at 01:00's price), tomorrow morning is dear,
    // so the cheap evening fills the battery; the first version had no day to carry, held
    // the start (60 %) and bought 3 kWh less.
    const shape = (h: number) => (h < 9 ? 0.4 : h >= 18 ? 0.1 : 0.25);
    const prices = hourly(midnight - 23 * HOUR, 23, shape);
    const { horizonEnd, end } = planFrom60(highs, prices, now);
    assert.equal(horizonEnd, midnight, 'the actions stop with the known prices');
    assert.ok(end >= 95, `filled in the cheap evening for the dear morning: ${end} % at midnight`);
  });

  test("the carried-over day's prices are smoothed: a quarter hour's noise is not tomorrow's", () => {
    const midnight = Date.UTC(2026, 0, 13);
    const now = midnight - 2 * HOUR;
    // Yesterday's quarters alternate 0.20 / 0.40: carried as they are, every other quarter of
    // tomorrow would look like a bargain (and the cheapest, 0.20, the end value's replacement).
    const prices: PriceInput[] = Array.from({ length: 96 }, (_, k) => ({
      start: midnight - DAY + k * QUARTER,
      end: midnight - DAY + (k + 1) * QUARTER,
      import: k % 2 === 0 ? 0.2 : 0.4,
      export: 0,
    }));
    const req = { ...planRequest(prices, now), loadW: flat(now, now + 2 * DAY, 500) };
    const known = buildSlots(req);
    const carried = extendSlots(req, known).slice(known.length);
    assert.ok(carried.length > 96, `${carried.length} quarters carried over`);
    const inner = carried.slice(2, -2).map((s) => s.importPrice);
    assert.ok(
      inner.every((p) => p >= 0.28 - 1e-9 && p <= 0.32 + 1e-9),
      `within 0.28-0.32: ${Math.min(...inner)}-${Math.max(...inner)}`,
    );
  });

  test('without a known day to carry over, the plan ends no lower than it starts', async () => {
    const highs = await loadSolver();
    const midnight = Date.UTC(2026, 0, 13);
    const now = midnight - 2 * HOUR;
    const prices = hourly(now, 2, (h) => (h === 22 ? 0.35 : 0.3));
    const { end } = planFrom60(highs, prices, now);
    assert.ok(end >= 60 - 1e-6, `ends at ${end} %`);
  });
});

describe('import and export', () => {
  const slot = (k: number, importPrice: number, exportPrice: number, pvKw = 0): PlanSlot => ({
    start: Date.UTC(2026, 5, 1) + k * QUARTER,
    end: Date.UTC(2026, 5, 1) + (k + 1) * QUARTER,
    importPrice,
    exportPrice,
    pvKw,
    loadKw: 0.5,
  });

  test('never at once where export pays more than import costs, or a price is negative', async () => {
    const highs = await loadSolver();
    const slots = [
      ...Array.from({ length: 8 }, (_, k) => slot(k, 0.1, 0.2)), // Agile evening: export dearer
      ...Array.from({ length: 8 }, (_, k) => slot(8 + k, -0.05, 0.08, 3)), // negative import, fixed feed-in
      ...Array.from({ length: 8 }, (_, k) => slot(16 + k, 0.3, 0.05)),
    ];
    const sol = solvePlan(highs, { params: PARAMS, slots, socPercent: 50, terminalValue: 0 });
    for (let t = 0; t < slots.length; t++)
      assert.ok(
        Math.min(sol.importKw[t]!, sol.exportKw[t]!) < 1e-6,
        `slot ${t}: import ${sol.importKw[t]} kW and export ${sol.exportKw[t]} kW at once`,
      );
    // What it may do: export the battery in the dear-export slots, charge when paid to import.
    assert.ok(sol.exportKw.slice(0, 8).some((e) => e > 1));
    assert.ok(sol.chargeKw.slice(8, 16).some((c) => c > 1));
  });

  test('published costs and savings are billed on the net flow', () => {
    const slots = [slot(0, 0.3, 0.1)];
    const both = {
      importKw: [3],
      exportKw: [1],
      chargeKw: [0],
      dischargeKw: [0],
      curtailKw: [0],
      socPercent: [50],
      carKw: [0],
      carShortKwh: 0,
      objective: 0,
    };
    // 2 kW net import for a quarter hour at 0.30: 0.15, not 3 x 0.3 - 1 x 0.1 per hour.
    assert.ok(Math.abs(energyCost(slots, both, 0.02)[0]! - 0.15) < 1e-12);
    const exporting = { ...both, importKw: [1], exportKw: [3] };
    assert.ok(Math.abs(energyCost(slots, exporting, 0.02)[0]! + 0.05) < 1e-12, '2 kW net export at 0.10');
  });
});

describe('prices finer than a quarter hour', () => {
  test('are averaged over the quarter, weighted by time', () => {
    const start = Date.UTC(2026, 0, 12);
    const fiveMin = 5 * 60_000;
    // Amber's 5-minute prices: 0.90, 0.01, 0.01 in the first quarter, then 0.20 for an hour.
    const prices: PriceInput[] = [0.9, 0.01, 0.01].map((p, k) => ({
      start: start + k * fiveMin,
      end: start + (k + 1) * fiveMin,
      import: p,
      export: p / 2,
    }));
    prices.push({ start: start + QUARTER, end: start + HOUR, import: 0.2, export: null });
    const slots = buildSlots({ ...planRequest(prices, start), exportPrice: 0.04 });
    assert.equal(slots.length, 4);
    assert.ok(Math.abs(slots[0]!.importPrice - 0.92 / 3) < 1e-12, `${slots[0]!.importPrice}`);
    assert.ok(Math.abs(slots[0]!.exportPrice - 0.46 / 3) < 1e-12);
    assert.equal(slots[1]!.importPrice, 0.2);
    assert.equal(slots[1]!.exportPrice, 0.04, 'the configured feed-in where the book has none');
    // Now at 5 past: the first slot is what is left of the quarter.
    const late = buildSlots(planRequest(prices, start + fiveMin));
    assert.equal(late[0]!.start, start + fiveMin);
    assert.ok(Math.abs(late[0]!.importPrice - 0.01) < 1e-12);
  });
});
