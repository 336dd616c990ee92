// The car in the plan: its energy need by a deadline as a flexible load, planned with the
// home battery on the prices and the PV forecast.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadSolver, makePlan, type Plan, type PlanRequest, type PriceInput } from '../src/planning.js';
import { nextLocalTime } from '../src/car-inputs.js';
import { PARAMS } from './fixtures.js';

const HOUR = 3_600_000;
const QUARTER = 15 * 60_000;
const EVENING = Date.UTC(2026, 2, 10, 18);
const describeIn = { currency: 'EUR', timeZone: 'UTC' };

/** Hourly prices from `start` for `hours`, each from `price(hour of day)`. */
function hourly(start: number, hours: number, price: (hourOfDay: number) => number, exportPrice = 0.05): PriceInput[] {
  return Array.from({ length: hours }, (_, i) => ({
    start: start + i * HOUR,
    end: start + (i + 1) * HOUR,
    import: price(new Date(start + i * HOUR).getUTCHours()),
    export: exportPrice,
  }));
}

/** Dear 18-21, middling to 01:00, cheapest 01-05, then dearer again. */
const night = (h: number) => (h >= 18 && h < 21 ? 0.31 : h >= 21 || h < 1 ? 0.2 : h < 5 ? 0.07 : h < 7 ? 0.12 : 0.22);

function request(over: Partial<PlanRequest>): PlanRequest {
  return {
    now: EVENING,
    params: PARAMS,
    prices: hourly(EVENING, 24, night),
    pvW: new Map(),
    loadW: new Map(),
    defaultLoadW: 800,
    socPercent: 80,
    exportPrice: 0,
    describe: describeIn,
    ...over,
  };
}

const car = (needKwh: number, deadline: number, allowBattery = false) => ({
  device: 'charger_1',
  needKwh,
  deadline,
  maxW: 11_000,
  minW: 4_140,
  allowBattery,
});

/** The car's energy per slot, kWh. */
const carEnergy = (plan: Plan) =>
  plan.car!.powerW.map((w, t) => (w / 1000) * ((plan.actions[t]!.end - plan.actions[t]!.start) / HOUR));
const total = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

describe('the car in the plan', () => {
  test('30 kWh by 07:00 goes into the cheapest night hours, with the home battery kept off the car', async () => {
    const highs = await loadSolver();
    const deadline = EVENING + 13 * HOUR; // 07:00
    const plan = makePlan(highs, request({ car: car(30, deadline) }));
    const energy = carEnergy(plan);
    assert.ok(Math.abs(total(energy) - 30) < 0.01, `30 kWh planned, not ${total(energy).toFixed(2)}`);
    assert.equal(plan.car!.shortKwh, 0, 'the need is met');
    const cheapest = (t: number) =>
      plan.actions[t]!.start >= EVENING + 7 * HOUR && plan.actions[t]!.end <= deadline - 2 * HOUR;
    const inCheapest = total(energy.filter((_, t) => cheapest(t)));
    assert.ok(inCheapest > 29.99, `all of it in 01:00-05:00 (0.07), not ${inCheapest.toFixed(2)} kWh`);
    assert.ok(
      plan.actions.every((a) => a.end <= deadline || plan.car!.powerW[plan.actions.indexOf(a)] === 0),
      'nothing after the deadline',
    );
    for (const [t, a] of plan.actions.entries())
      if (plan.car!.powerW[t]! > 0)
        assert.ok(a.batteryW <= 800 + 1, `slot ${t}: battery ${a.batteryW} W is no more than the house's 800 W`);
  });

  test('with PV in the afternoon before a late deadline, the car takes the PV', async () => {
    const highs = await loadSolver();
    const morning = Date.UTC(2026, 5, 10, 8);
    const pvW = new Map<number, number>();
    for (let t = morning; t < morning + 10 * HOUR; t += QUARTER) {
      const h = new Date(t).getUTCHours();
      pvW.set(t, h >= 11 && h < 15 ? 9000 : 0);
    }
    const deadline = morning + 10 * HOUR; // 18:00
    const plan = makePlan(
      highs,
      request({
        now: morning,
        prices: hourly(morning, 24, () => 0.25, 0.05),
        pvW,
        socPercent: 100,
        car: car(20, deadline),
      }),
    );
    const energy = carEnergy(plan);
    const sunny = (t: number) => (pvW.get(plan.actions[t]!.start) ?? 0) > 0;
    const fromPvHours = total(energy.filter((_, t) => sunny(t)));
    assert.ok(Math.abs(total(energy) - 20) < 0.01, 'the 20 kWh are planned');
    assert.ok(fromPvHours > 19.99, `the car charges while the sun shines, ${fromPvHours.toFixed(2)} kWh of 20`);
  });

  test('battery discharge never exceeds the house load while the car charges, unless the owner allows it', async () => {
    const highs = await loadSolver();
    // Only dear hours before the deadline: the full battery would pay to feed the car.
    const deadline = EVENING + 3 * HOUR;
    const kept = makePlan(highs, request({ socPercent: 100, car: car(15, deadline) }));
    let carSlots = 0;
    for (const [t, a] of kept.actions.entries()) {
      if (kept.car!.powerW[t]! <= 0) continue;
      carSlots++;
      const house = 800;
      const discharge = kept.solution.dischargeKw[t]! * 1000 - kept.solution.exportKw[t]! * 1000;
      assert.ok(discharge <= house + 1, `slot ${t}: battery ${discharge.toFixed(0)} W into a house of ${house} W`);
      assert.notEqual(a.mode, 'normal', `slot ${t}: Normal would let the battery feed the car`);
    }
    assert.ok(carSlots > 0, 'the car charges before its deadline');
    const allowed = makePlan(highs, request({ socPercent: 100, car: car(15, deadline, true) }));
    assert.ok(
      allowed.actions.some((a, t) => allowed.car!.powerW[t]! > 0 && a.batteryW > 800 + 100),
      'allowed, the battery does feed the car at the dear price (the constraint is what keeps it off)',
    );
  });

  test('a need out of reach charges all it can and says how much is missing', async () => {
    const highs = await loadSolver();
    const deadline = EVENING + 2 * HOUR;
    const plan = makePlan(highs, request({ car: car(40, deadline) }));
    const energy = total(carEnergy(plan));
    assert.ok(Math.abs(energy - 22) < 0.01, `2 h at 11 kW: 22 kWh, not ${energy.toFixed(2)}`);
    assert.ok(Math.abs(plan.car!.shortKwh - 18) < 0.01, `18 kWh short, not ${plan.car!.shortKwh}`);
  });
});

describe("the car's deadline", () => {
  test('is the next time the local clock shows it, across a change to summer time too', () => {
    const zone = 'Europe/Berlin';
    // 20:00 CET on 28 March 2026: the clocks go forward that night, 07:00 CEST is 05:00 UTC.
    assert.equal(nextLocalTime(Date.parse('2026-03-28T19:00:00Z'), '07:00', zone), Date.parse('2026-03-29T05:00:00Z'));
    // 06:59 local: 07:00 today; 07:00 itself: tomorrow's.
    assert.equal(nextLocalTime(Date.parse('2026-12-22T05:59:00Z'), '07:00', zone), Date.parse('2026-12-22T06:00:00Z'));
    assert.equal(nextLocalTime(Date.parse('2026-12-22T06:00:00Z'), '07:00', zone), Date.parse('2026-12-23T06:00:00Z'));
    // Back to winter time on 25 October: 07:00 CET is 06:00 UTC.
    assert.equal(nextLocalTime(Date.parse('2026-10-24T18:00:00Z'), '07:00', zone), Date.parse('2026-10-25T06:00:00Z'));
    assert.equal(nextLocalTime(0, 'soon', zone), null);
  });
});
