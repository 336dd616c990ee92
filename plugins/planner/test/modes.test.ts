// What the inverter is told for each slot of a solved plan (modes.ts `toActions`): the mode
// whose own behaviour gives the planned battery power, the command's power and target state of
// charge, and the reason in words. The solutions here are written by hand, so that each rule is
// met at its edge.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toActions } from '../src/modes.js';
import type { LpSolution, PlanInput, PlanParams } from '../src/plan-input.js';

const QUARTER = 15 * 60_000;
const start = Date.UTC(2026, 5, 10, 17); // 17:00 UTC
const describe = { currency: 'EUR', timeZone: 'UTC' };

// 10 kWh, 5 kW each way, 90 % each way (0.81 round trip), reserve 10 %.
const PARAMS: PlanParams = {
  capacityKwh: 10,
  maxChargeKw: 5,
  maxDischargeKw: 5,
  reserveSoc: 10,
  maxSoc: 100,
  roundTripEfficiency: 0.81,
  cycleCost: 0,
  gridImportMaxKw: 20,
  gridExportMaxKw: 20,
  exportAllowed: true,
};

interface Slot {
  /** Planned battery power, kW, positive = discharge. */
  battery: number;
  /** State of charge at the slot's end, %. */
  soc: number;
  load?: number;
  pv?: number;
  car?: number;
  price?: number;
  exportPrice?: number;
  minutes?: number;
  importKw?: number;
  exportKw?: number;
}

/** The actions of a plan of these slots from `socPercent`. */
function actions(slots: Slot[], socPercent = 50, params: Partial<PlanParams> = {}) {
  let at = start;
  const input: PlanInput = {
    params: { ...PARAMS, ...params },
    socPercent,
    terminalValue: 0,
    slots: slots.map((s) => {
      const slot = {
        start: at,
        end: at + (s.minutes ?? 15) * 60_000,
        importPrice: s.price ?? 0.2,
        exportPrice: s.exportPrice ?? 0.05,
        pvKw: s.pv ?? 0,
        loadKw: s.load ?? 0,
      };
      at = slot.end;
      return slot;
    }),
  };
  const sol: LpSolution = {
    importKw: slots.map((s) => s.importKw ?? 0),
    exportKw: slots.map((s) => s.exportKw ?? 0),
    chargeKw: slots.map((s) => Math.max(0, -s.battery)),
    dischargeKw: slots.map((s) => Math.max(0, s.battery)),
    curtailKw: slots.map(() => 0),
    socPercent: slots.map((s) => s.soc),
    carKw: slots.map((s) => s.car ?? 0),
    carShortKwh: 0,
    objective: 0,
  };
  return toActions(input, sol, describe);
}

const first = (slot: Slot, socPercent = 50, params: Partial<PlanParams> = {}) => {
  const a = actions([slot], socPercent, params)[0]!;
  return { mode: a.mode, powerW: a.powerW, targetSoc: a.targetSoc };
};

test('Normal where the battery does what it would by itself: covering the load, storing the surplus, within limits', () => {
  assert.equal(first({ battery: 2, soc: 45, load: 2 }).mode, 'normal');
  assert.equal(first({ battery: 2.05, soc: 45, load: 2 }).mode, 'normal', 'within 0.05 kW');
  assert.equal(first({ battery: 0.05, soc: 50, load: 1, pv: 1 }).mode, 'normal', '0.05 kW off is still Normal');
  assert.equal(first({ battery: -3, soc: 52, pv: 3 }).mode, 'normal');
  // Its limits: the inverter's power, the energy above the reserve, the room below the top.
  assert.equal(first({ battery: 5, soc: 40, load: 8 }).mode, 'normal');
  assert.equal(first({ battery: -5, soc: 60, pv: 8 }).mode, 'normal');
  // 2 % above the reserve: 0.2 kWh x 0.9 in a quarter hour is 0.72 kW.
  assert.equal(first({ battery: 0.72, soc: 10, load: 2 }, 12).mode, 'normal');
  // 2 % below the top: 0.2 kWh / 0.9 in a quarter hour is 0.889 kW.
  assert.equal(first({ battery: -0.889, soc: 100, pv: 3 }, 98).mode, 'normal');
  assert.equal(first({ battery: 0, soc: 10, load: 2 }, 10).mode, 'normal', 'at the reserve Normal gives nothing');
  // An hour's slot: 4 kWh x 0.9 above the reserve is 3.6 kW for the hour.
  assert.equal(first({ battery: 3.6, soc: 14, load: 5, minutes: 60 }).mode, 'normal');
  assert.deepEqual(first({ battery: 2, soc: 45, load: 2 }), { mode: 'normal', powerW: 0, targetSoc: 45 });
});

test('Hold where the battery is to stay idle while Normal would discharge it', () => {
  assert.deepEqual(first({ battery: 0, soc: 50, load: 2 }), { mode: 'hold', powerW: 0, targetSoc: 50 });
  assert.equal(first({ battery: 0.05, soc: 50, load: 2 }).mode, 'hold', 'within 0.05 kW');
  // A car the battery may not feed is load Normal would feed: held even with no house load.
  assert.equal(first({ battery: 0, soc: 50, car: 7 }).mode, 'hold');
});

test('Charge and Discharge at the planned power where Normal would do otherwise', () => {
  assert.deepEqual(first({ battery: -4, soc: 55.23, load: 2 }), { mode: 'charge', powerW: 4000, targetSoc: 56 });
  assert.deepEqual(first({ battery: -2.5, soc: 99.6, pv: 1 }), { mode: 'charge', powerW: 2500, targetSoc: 100 });
  assert.equal(first({ battery: -0.89, soc: 100, pv: 3 }, 98).mode, 'normal');
  assert.deepEqual(first({ battery: -0.95, soc: 100, pv: 3 }, 98), { mode: 'charge', powerW: 950, targetSoc: 100 });
  // More than Normal's 0.72 kW near the reserve.
  assert.deepEqual(first({ battery: 0.8, soc: 10, load: 2 }, 12), { mode: 'discharge', powerW: 800, targetSoc: 10 });
  // Exporting beyond the load: 4 kW with 2 kW of load; the target below now, never below the reserve.
  assert.deepEqual(first({ battery: 4.0004, soc: 47.6, load: 2 }), { mode: 'discharge', powerW: 4000, targetSoc: 47 });
  assert.equal(first({ battery: 2.06, soc: 45, load: 2 }).mode, 'discharge', 'beyond 0.05 kW');
  assert.equal(first({ battery: 4, soc: 50, load: 2 }).targetSoc, 49, 'at least a point below the start');
  assert.equal(first({ battery: 4, soc: 50.3, load: 2 }, 50.6).targetSoc, 50);
  assert.equal(first({ battery: 4, soc: 19.5, load: 2 }, 20.3, { reserveSoc: 20 }).targetSoc, 20);
  // The house only, with the car's charge kept off the battery: an exact Discharge.
  assert.deepEqual(first({ battery: 1, soc: 47, load: 1, car: 3 }), { mode: 'discharge', powerW: 1000, targetSoc: 47 });
  // The PV surplus exported rather than stored: Discharge at 0 W.
  assert.deepEqual(first({ battery: 0, soc: 50, pv: 3 }), { mode: 'discharge', powerW: 0, targetSoc: 49 });
});

test('each slot starts from the last one’s planned state of charge, and carries its flows', () => {
  const a = actions([
    { battery: -4, soc: 59.14, importKw: 4.2, price: 0.1 },
    { battery: 0, soc: 59.14, load: 2, price: 0.3 },
    { battery: 1.2346, soc: 56.1, load: 1.2346, exportKw: 0.4, price: 0.31 },
  ]);
  assert.deepEqual(
    a.map((x) => [x.start, x.end, x.mode, x.powerW, x.targetSoc, x.socPercent, x.batteryW, x.gridW, x.importPrice]),
    [
      [start, start + QUARTER, 'charge', 4000, 60, 59.1, -4000, 4200, 0.1],
      [start + QUARTER, start + 2 * QUARTER, 'hold', 0, 59.1, 59.1, 0, 0, 0.3],
      [start + 2 * QUARTER, start + 3 * QUARTER, 'normal', 0, 56.1, 56.1, 1235, -400, 0.31],
    ],
  );
});

test('the reason of each mode in words, with the prices it weighs', () => {
  const reasons = (slots: Slot[]) => actions(slots).map((a) => a.reason);
  assert.deepEqual(
    reasons([
      { battery: -4, soc: 59, price: 0.1 },
      { battery: 0, soc: 59, load: 2, price: 0.25 },
      { battery: 2, soc: 54, load: 2, price: 0.3 },
      { battery: 2, soc: 49, load: 2, price: 0.35, exportPrice: 0.07 },
      { battery: 0, soc: 49, load: 2, price: 0.4 },
    ]),
    [
      // The dearest slot the battery supplies, not the dearest of all.
      'charge: 0.10 EUR/kWh now, 0.35 at 17:45',
      'hold: 0.25 EUR/kWh now, keeping the battery for 0.35 at 17:45',
      'normal: self-consumption at 0.30 EUR/kWh now',
      'normal: self-consumption at 0.35 EUR/kWh now',
      'hold: 0.40 EUR/kWh now, keeping the battery for later',
    ],
  );
  assert.deepEqual(
    reasons([
      { battery: -4, soc: 59, price: -0.02 },
      { battery: 0, soc: 59, price: 0.3 },
      { battery: -4, soc: 68, price: 0.1, exportPrice: 0.03 },
    ]),
    [
      'charge: -0.02 EUR/kWh now (paid to take power)',
      'normal: self-consumption at 0.30 EUR/kWh now',
      'charge: 0.10 EUR/kWh now; export would earn 0.03 EUR/kWh',
    ],
  );
  // Nothing later supplied by the battery: the dearest of all.
  assert.equal(
    reasons([
      { battery: -4, soc: 59, price: 0.1 },
      { battery: 0, soc: 59, price: 0.3 },
    ])[0],
    'charge: 0.10 EUR/kWh now, 0.30 at 17:15',
  );
  assert.deepEqual(
    reasons([
      { battery: 4, soc: 41, load: 1, price: 0.4, exportPrice: 0.3 },
      { battery: 0, soc: 41, pv: 2, price: 0.12, exportPrice: 0.06 },
      { battery: 0, soc: 41, price: 0.05 },
      { battery: 0, soc: 41, price: 0.08 },
      { battery: 3, soc: 33, load: 1, price: 0.4, exportPrice: 0.3 },
    ]),
    [
      'discharge: 0.40 EUR/kWh now, export pays 0.30 EUR/kWh; 0.05 at 17:30 to refill',
      'discharge: 0 W, export the PV for 0.06 EUR/kWh now, store it later',
      'normal: self-consumption at 0.05 EUR/kWh now',
      'normal: self-consumption at 0.08 EUR/kWh now',
      'discharge: 0.40 EUR/kWh now, export pays 0.30 EUR/kWh',
    ],
  );
  // A day on, the time names its day.
  const later = actions([
    { battery: -4, soc: 59, price: 0.1 },
    { battery: 0, soc: 59, minutes: 24 * 60 },
    { battery: 2, soc: 54, load: 2, price: 0.3 },
  ]);
  assert.equal(later[0]!.reason, 'charge: 0.10 EUR/kWh now, 0.30 at Thu 17:15');
});

test('at the edges: a PV surplus discharged, a slot from the one before, a price of 0, the dearest and the first of equals', () => {
  // With PV left over Normal charges: discharging as much is a Discharge, not a Hold.
  assert.deepEqual(first({ battery: 3, soc: 38, pv: 3 }), { mode: 'discharge', powerW: 3000, targetSoc: 38 });
  // 12 % after the first slot, so Normal gives 0.72 kW in the second.
  const near = actions([
    { battery: 5, soc: 12, load: 5 },
    { battery: 0.72, soc: 10, load: 2 },
  ]);
  assert.deepEqual(
    near.map((a) => a.mode),
    ['normal', 'normal'],
  );
  // A price of 0 is not being paid to take power.
  assert.equal(
    actions([
      { battery: -4, soc: 59, price: 0 },
      { battery: 2, soc: 54, load: 2, price: 0.3 },
    ])[0]!.reason,
    'charge: 0.00 EUR/kWh now, 0.30 at 17:15',
  );
  // None later supplied by the battery: the dearest of all, the first of equal prices.
  const reason = actions([
    { battery: -4, soc: 59, price: 0.1 },
    { battery: 0, soc: 59, price: 0.2 },
    { battery: 0, soc: 59, price: 0.3 },
    { battery: 0, soc: 59, price: 0.3 },
  ])[0]!.reason;
  assert.equal(reason, 'charge: 0.10 EUR/kWh now, 0.30 at 17:30');
});
