// The Deye time-of-use program: the driver's plan for each mode, and the emulator's slot
// choice, checks and effect.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planFor } from '../src/battery-control.js';
import { TouProgram } from '../src/emulator/tou.js';
import { deyeModel } from '../src/models.js';

/** 6 times, 6 powers, 6 voltages, 6 SOCs, 6 flags (bit 1 generator charge set in slot 2). */
const PROGRAM = [
  ...[0, 400, 800, 1200, 1600, 2000],
  ...[5000, 5000, 5000, 5000, 5000, 5000],
  ...[4900, 4910, 4920, 4930, 4940, 4950],
  ...[20, 20, 20, 20, 20, 20],
  ...[0, 2, 0, 0, 0, 0],
];
const now = { program: PROGRAM, soc: 57, voltage: 51.2, minSoc: 15, maxCurrentA: 185 };

test('each mode writes the same values into all six slots, keeping times, voltages and other flag bits', () => {
  const charge = planFor({ mode: 'charge', powerW: 3000, targetSoc: 90 }, now);
  assert.deepEqual(charge.program.slice(0, 6), PROGRAM.slice(0, 6), 'times kept');
  assert.deepEqual(charge.program.slice(6, 12), [3000, 3000, 3000, 3000, 3000, 3000]);
  assert.deepEqual(charge.program.slice(12, 18), PROGRAM.slice(12, 18), 'voltages kept');
  assert.deepEqual(charge.program.slice(18, 24), [90, 90, 90, 90, 90, 90]);
  assert.deepEqual(charge.program.slice(24), [1, 3, 1, 1, 1, 1], 'grid charge on, the generator bit kept');
  assert.deepEqual([charge.useTimer, charge.gridCharge, charge.gridChargeA], [true, true, 58]);

  const hold = planFor({ mode: 'hold', powerW: 3000, targetSoc: 90 }, now);
  assert.deepEqual(hold.program.slice(6, 12), [0, 0, 0, 0, 0, 0]);
  assert.deepEqual(hold.program.slice(18, 24), [57, 57, 57, 57, 57, 57], 'the SOC now');
  assert.deepEqual(hold.program.slice(24), [0, 2, 0, 0, 0, 0]);
  assert.deepEqual([hold.useTimer, hold.gridCharge, hold.gridChargeA], [true, null, null]);

  const normal = planFor({ mode: 'normal', powerW: 3000, targetSoc: 90 }, now);
  assert.deepEqual(normal.program.slice(6, 12), PROGRAM.slice(6, 12), 'slot powers kept');
  assert.deepEqual(normal.program.slice(18, 24), [15, 15, 15, 15, 15, 15], 'the minimum SOC');
  assert.equal(normal.useTimer, false);

  const discharge = planFor({ mode: 'discharge', powerW: 2500, targetSoc: 30 }, now);
  assert.deepEqual(discharge.program.slice(18, 24), [30, 30, 30, 30, 30, 30]);
  assert.deepEqual(discharge.program.slice(6, 12), [2500, 2500, 2500, 2500, 2500, 2500]);
  assert.deepEqual(discharge.program.slice(24), [0, 2, 0, 0, 0, 0]);
});

test('the grid charge current fits the power and the device', () => {
  assert.equal(planFor({ mode: 'charge', powerW: 100, targetSoc: 90 }, now).gridChargeA, 1, 'at least 1 A');
  assert.equal(planFor({ mode: 'charge', powerW: 20000, targetSoc: 90 }, now).gridChargeA, 185);
});

test('the program registers follow the model identified from register 0', () => {
  assert.equal(deyeModel(3).value.tou.times, 250);
  assert.equal(deyeModel(3).value.tou.enable, 248);
  assert.equal(deyeModel(5).value.tou.times, 148);
  assert.equal(deyeModel(5).value.tou.gridChargeCurrent, 128);
  assert.equal(deyeModel(6).value.tou.batteryVoltageScale, 0.1);
  assert.throws(() => deyeModel(2), /2/, 'a string inverter is not a model this driver knows');
});

test('emulator: the slot in force wraps past midnight; writes are checked; the effect needs the timer', () => {
  const tou = new TouProgram();
  tou.write(250, 100); // slot 1 starts 01:00
  tou.write(268, 40);
  tou.write(273, 80); // slot 6 (20:00) to 80 %
  assert.equal(tou.slotAt(new Date(2026, 5, 21, 0, 30)), 5, '00:30 is still the 20:00 slot');
  assert.equal(tou.slotAt(new Date(2026, 5, 21, 1, 0)), 0);
  assert.equal(tou.effect(new Date(2026, 5, 21, 1, 0)), null, 'timer off');
  tou.write(248, 1);
  assert.deepEqual(tou.effect(new Date(2026, 5, 21, 1, 0)), {
    floorSoc: 40,
    maxDischargeW: 5000,
    gridChargeToSoc: null,
  });
  tou.write(232, 1);
  tou.write(279, 1);
  assert.deepEqual(tou.effect(new Date(2026, 5, 21, 21, 0)), {
    floorSoc: 80,
    maxDischargeW: 5000,
    gridChargeToSoc: 80,
  });
  assert.equal(TouProgram.valid(250, 2460), false, '24:60 is no time');
  assert.equal(TouProgram.valid(262, 3000), false, 'a slot voltage below 41 V');
  assert.equal(TouProgram.valid(268, 101), false);
  assert.equal(TouProgram.owns(280), false);
});
