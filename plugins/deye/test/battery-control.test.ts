// The Deye time-of-use program as a lease: the program the driver writes for each mode, what a
// renewal changes, a window across midnight, the days it runs on (today, and tomorrow past
// midnight, by the device's calendar), what the driver reads back as the device's mode; and the
// emulator's program (its own addresses and units per model, weekday bits) and clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeyeDevice } from '../src/emulator/device.js';
import { TouProgram } from '../src/emulator/tou.js';
import { deyeModel } from '../src/models.js';
import {
  changedRuns,
  dayBit,
  deviceTime,
  leaseProgram,
  leaseTimer,
  programMode,
  slotAt,
  type DeviceTime,
  type LeaseInput,
} from '../src/tou-program.js';

const MINUTE = 60_000;
const LEASE = 30 * MINUTE;
/** Weekdays as the timer register counts them (bits 1..7). 21 June 2026 is a Sunday. */
const [MONDAY, SATURDAY, SUNDAY] = [1, 6, 7];
/** The device's time on a weekday, Sunday unless told. */
const at = (hour: number, minute: number, second = 0, weekday = SUNDAY): DeviceTime => ({
  hour,
  minute,
  second,
  weekday,
});

/** 6 times, 6 powers, 6 voltages, 6 SOCs, 6 flags (bit 1 generator charge set in slot 2). */
const PROGRAM = [
  ...[0, 400, 800, 1200, 1600, 2000],
  ...[5000, 5000, 5000, 5000, 5000, 5000],
  ...[4900, 4910, 4920, 4930, 4940, 4950],
  ...[20, 20, 20, 20, 20, 20],
  ...[0, 2, 0, 0, 0, 0],
];
const block = (program: readonly number[], n: number) => program.slice(n * 6, n * 6 + 6);

const input = (over: Partial<LeaseInput>): LeaseInput => ({
  command: { mode: 'charge', powerW: 3000, targetSoc: 90 },
  program: PROGRAM,
  timerOn: false,
  now: at(22, 5, 40),
  leaseMs: LEASE,
  soc: 57,
  minSoc: 15,
  powerWord: 3000,
  fullPowerWord: 4000,
  ...over,
});

test('a lease forces one slot from the device minute now to the lease end rounded down; the rest of the day is self-use', () => {
  const { program, start, end } = leaseProgram(input({}));
  assert.deepEqual([start, end], [22 * 60 + 5, 22 * 60 + 35], '22:05:40 + 30 min = 22:35:40, down to 22:35');
  assert.deepEqual(block(program, 0), [2205, 2235, 2201, 2202, 2203, 2204], 'forced, self-use, four self-use before');
  assert.deepEqual(block(program, 1), [3000, 4000, 4000, 4000, 4000, 4000], 'the power, then full power');
  assert.deepEqual(block(program, 2), block(PROGRAM, 2), 'voltages kept');
  assert.deepEqual(block(program, 3), [90, 15, 15, 15, 15, 15], 'the target, then the minimum SOC');
  assert.deepEqual(
    block(program, 4),
    [1, 2, 0, 0, 0, 0],
    'grid charge in the forced slot only; the generator bit kept',
  );
  assert.equal(slotAt(block(program, 0), 22 * 60 + 34), 0, 'forced at 22:34');
  assert.equal(slotAt(block(program, 0), 22 * 60 + 35), 1, 'self-use from 22:35');
  assert.equal(slotAt(block(program, 0), 22 * 60 + 3), 4, 'self-use just before the window');

  const hold = leaseProgram(input({ command: { mode: 'hold', powerW: 3000, targetSoc: 90 } })).program;
  assert.deepEqual([hold[6], hold[18], hold[24]], [0, 57, 0], 'hold: no power, the SOC now, no grid charge');
  const discharge = leaseProgram(
    input({ command: { mode: 'discharge', powerW: 2500, targetSoc: 30 }, powerWord: 2500 }),
  );
  assert.deepEqual([discharge.program[6], discharge.program[18], discharge.program[24]], [2500, 30, 0]);
});

test('a renewal changes one register: the self-use slot time where the forced window ends', () => {
  const first = leaseProgram(input({})).program;
  const renewed = leaseProgram(input({ program: first, timerOn: true, now: at(22, 20) }));
  assert.deepEqual(changedRuns(250, first, renewed.program), [{ address: 251, values: [2250] }]);
  assert.equal(renewed.start, 22 * 60 + 5, 'the start kept');

  // A hold renewed keeps the SOC it holds (no write as PV lifts the battery).
  const hold = input({ command: { mode: 'hold', powerW: 3000, targetSoc: 90 } });
  const held = leaseProgram(hold).program;
  const again = leaseProgram({
    ...hold,
    program: held,
    timerOn: true,
    soc: 63,
    now: at(22, 20),
  });
  assert.deepEqual(changedRuns(250, held, again.program), [{ address: 251, values: [2250] }]);

  // A window that would reach the tail of the day starts again at the minute now.
  const late = leaseProgram(input({ program: first, timerOn: true, now: at(21, 50) }));
  assert.deepEqual(block(late.program, 0), [2150, 2220, 2146, 2147, 2148, 2149]);
});

test('a forced window across midnight wraps; the device reads it as forced until its end', () => {
  const { program } = leaseProgram(input({ now: at(23, 50) }));
  assert.deepEqual(block(program, 0), [2350, 20, 2346, 2347, 2348, 2349]);
  const timer = 1 | dayBit(SUNDAY) | dayBit(MONDAY);
  const mode = (now: DeviceTime, over: { timer?: number; gridCharge?: boolean; program?: number[] } = {}) =>
    programMode({ timer, gridCharge: true, program, now, minSoc: 15, ...over });
  assert.equal(mode(at(23, 55)), 'charge');
  assert.equal(mode(at(0, 19, 0, MONDAY)), 'charge', 'past midnight, still the 23:50 slot');
  assert.equal(mode(at(0, 20, 0, MONDAY)), null, 'self-use now, but the forced slot comes round again at 23:50');
  assert.equal(mode(at(23, 55), { timer: timer & ~1 }), 'normal', 'the timer off');
  assert.equal(mode(at(23, 55), { timer: 1 }), 'normal', 'the timer on for no day');
  const selfUse = [...program];
  selfUse[24] = 0; // no grid charge
  selfUse[18] = 15; // at the minimum SOC
  assert.equal(mode(at(23, 55), { program: selfUse }), 'normal', 'every slot self-use');
  assert.equal(mode(at(23, 55, 0, SATURDAY), { program: selfUse }), 'normal', 'not today, and self-use anyway');
  const hold = leaseProgram(input({ command: { mode: 'hold', powerW: 0, targetSoc: 90 } })).program;
  assert.equal(mode(at(22, 6), { gridCharge: false, program: hold, timer: 0x81 }), 'hold');
});

test('a lease runs on the days its window covers by the device calendar: today, and tomorrow past midnight', () => {
  assert.equal(leaseProgram(input({})).days, dayBit(SUNDAY), 'Sunday 22:05 to 22:35: Sunday only');
  assert.equal(
    leaseProgram(input({ now: at(23, 50) })).days,
    dayBit(SUNDAY) | dayBit(MONDAY),
    'Sunday 23:50 to Monday 00:20',
  );
  assert.equal(
    leaseProgram(input({ now: at(23, 45, 0, SATURDAY) })).days,
    dayBit(SATURDAY) | dayBit(SUNDAY),
    'Saturday into Sunday',
  );
  assert.equal(
    leaseProgram(input({ now: at(23, 30) })).days,
    dayBit(SUNDAY),
    'a window ending at midnight: today only',
  );
  assert.equal(leaseProgram(input({ now: at(0, 5, 0, MONDAY) })).days, dayBit(MONDAY), 'after midnight: Monday only');

  // The timer register: bit 0 and exactly those days, unless it already runs them and at most yesterday besides.
  const sunday = dayBit(SUNDAY);
  const sundayMonday = sunday | dayBit(MONDAY);
  assert.equal(leaseTimer({ old: 0xfe, days: sunday, weekday: SUNDAY }), 0x81, 'from Normal (every day, timer off)');
  assert.equal(leaseTimer({ old: 0xff, days: sunday, weekday: SUNDAY }), 0x81, 'every day is cleared to today');
  assert.equal(leaseTimer({ old: 0x81, days: sunday, weekday: SUNDAY }), 0x81, 'a renewal the same day: unchanged');
  assert.equal(leaseTimer({ old: 0x81, days: sundayMonday, weekday: SUNDAY }), 0x83, 'a window into Monday adds it');
  assert.equal(leaseTimer({ old: 0x83, days: dayBit(MONDAY), weekday: MONDAY }), 0x83, 'after midnight: kept');
  assert.equal(leaseTimer({ old: 0x83, days: dayBit(2), weekday: 2 }), 0x05, 'Tuesday: Sunday is no yesterday');
  assert.equal(leaseTimer({ old: 0x03, days: dayBit(MONDAY), weekday: MONDAY }), 0x03);
  assert.equal(leaseTimer({ old: 0x0102, days: dayBit(MONDAY), weekday: MONDAY }), 0x0103, 'bits above 7 kept');
});

test('the device clock registers: (year−2000)<<8|month, day<<8|hour, minute<<8|second; the weekday from the date', () => {
  assert.deepEqual(deviceTime([(26 << 8) | 6, (21 << 8) | 22, (30 << 8) | 15]), at(22, 30, 15, SUNDAY));
  assert.equal(deviceTime([(26 << 8) | 6, (22 << 8) | 0, 0]).weekday, MONDAY);
  assert.equal(deviceTime([(24 << 8) | 2, (29 << 8) | 12, 0]).weekday, 4, '29 February 2024, a Thursday');
  assert.throws(() => deviceTime([(26 << 8) | 6, 22, 0]), /the inverter's clock reads 2026-06-00 22:00:00/, 'day 0');
  assert.throws(() => deviceTime([(26 << 8) | 6, (21 << 8) | 25, 0]), /reads 2026-06-21 25:00:00, no date and time/);
  assert.throws(() => deviceTime([(25 << 8) | 2, (29 << 8) | 1, 0]), /2025-02-29/, 'no 29 February in 2025');
  assert.throws(() => leaseProgram(input({ leaseMs: 10_000, now: at(1, 0) })), /shorter/);
});

test('the program registers and units follow the model identified from register 0', () => {
  assert.deepEqual(
    [deyeModel(3).value.tou.times, deyeModel(3).value.tou.enable, deyeModel(3).value.tou.clock],
    [250, 248, 22],
  );
  assert.deepEqual([deyeModel(5).value.tou.times, deyeModel(5).value.tou.clock], [148, 62]);
  assert.equal(deyeModel(5).value.tou.gridChargeCurrent, 128);
  assert.equal(deyeModel(5).value.tou.powerUnitW, 1);
  assert.equal(deyeModel(6).value.tou.powerUnitW, 10, 'HV: slot power in tens of W');
  assert.equal(deyeModel(6).value.tou.batteryVoltageScale, 0.1);
  assert.ok(50_000 / deyeModel(6).value.tou.powerUnitW <= deyeModel(6).value.tou.maxPowerWord, '50 kW fits');
  assert.throws(() => deyeModel(2), /2/, 'a string inverter is not a model this driver knows');
});

test('emulator: the program at each model’s addresses and units; the slot wraps past midnight; writes are checked', () => {
  const tou = new TouProgram();
  tou.write(250, 100); // slot 1 starts 01:00
  tou.write(268, 40);
  tou.write(273, 80); // slot 6 (20:00) to 80 %
  assert.equal(tou.slotAt(new Date(2026, 5, 21, 0, 30)), 5, '00:30 is still the 20:00 slot');
  assert.equal(tou.slotAt(new Date(2026, 5, 21, 1, 0)), 0);
  assert.equal(tou.effect(new Date(2026, 5, 21, 1, 0)), null, 'timer off');
  tou.write(248, 1);
  assert.equal(tou.effect(new Date(2026, 5, 21, 1, 0)), null, 'the timer on for no day (deye_hybrid.yaml: 0x0001)');
  tou.write(248, 1 | (1 << 7)); // Sunday (0x0081)
  assert.deepEqual(tou.effect(new Date(2026, 5, 21, 1, 0)), {
    slot: 0,
    floorSoc: 40,
    maxDischargeW: 5000,
    gridChargeToSoc: null,
  });
  tou.write(232, 1);
  tou.write(279, 1);
  assert.equal(tou.effect(new Date(2026, 5, 21, 21, 0))?.gridChargeToSoc, 80);
  assert.equal(tou.effect(new Date(2026, 5, 22, 21, 0)), null, 'single-phase too: no program on Monday');
  assert.equal(tou.effect(new Date(2026, 5, 28, 21, 0))?.gridChargeToSoc, 80, 'the next Sunday');
  assert.equal(tou.valid(250, 2460), false, '24:60 is no time');
  assert.equal(tou.valid(262, 3000), false, 'a slot voltage below 41 V');
  assert.equal(tou.valid(268, 101), false);
  assert.equal(tou.owns(280), false);
  assert.equal(tou.owns(148), false, 'the three-phase program is not on a single-phase unit');

  const hv = new TouProgram('three-phase-hv');
  assert.equal(hv.owns(154) && !hv.owns(256), true);
  hv.write(154, 250);
  hv.write(146, 1);
  const sunday = new Date(2026, 5, 21, 1, 0); // 21 June 2026 is a Sunday
  assert.equal(
    hv.effect(sunday),
    null,
    'three-phase: the timer alone does not run the program, the day bit must be set',
  );
  hv.write(146, 1 | (1 << 7));
  assert.equal(hv.effect(sunday)?.maxDischargeW, 2500, 'HV: 250 in tens of W');
  assert.equal(hv.effect(new Date(2026, 5, 22, 1, 0)), null, 'Monday (bit 1) not set');
  assert.equal(hv.valid(155, 12_800), true, '128 kW');
  assert.equal(hv.valid(155, 12_801), false);
  assert.equal(hv.valid(160, 4000), true, 'HV slot voltage 400.0 V');
  assert.equal(new TouProgram('three-phase-lv').valid(155, 32_001), false, 'LV: up to 32000 W');
});

test('emulator: its clock in the registers (22..24; 62..64 on three-phase units), settable by writing them or by an offset', () => {
  const at = new Date(2026, 5, 21, 22, 7, 30);
  const single = new DeyeDevice({ now: () => at });
  assert.deepEqual(single.readHoldingRegisters({ address: 22, count: 3 }), [
    (26 << 8) | 6,
    (21 << 8) | 22,
    (7 << 8) | 30,
  ]);
  single.clockOffsetMs = 65 * MINUTE;
  assert.equal(single.readHoldingRegisters({ address: 23, count: 1 })[0]! & 0xff, 23, 'an hour and five minutes ahead');
  single.writeRegisters({ address: 22, values: [(26 << 8) | 6, (21 << 8) | 21, 0] });
  assert.equal(single.clockOffsetMs, -(67 * MINUTE + 30_000), 'set to 21:00:00');
  assert.throws(() => single.writeRegisters({ address: 23, values: [(21 << 8) | 24] }), /exception 3/);

  const three = new DeyeDevice({ now: () => at, model: 'three-phase-lv' });
  assert.deepEqual(three.readHoldingRegisters({ address: 62, count: 3 }), [
    (26 << 8) | 6,
    (21 << 8) | 22,
    (7 << 8) | 30,
  ]);
  assert.equal(three.readHoldingRegisters({ address: 22, count: 1 })[0], 0x0203, 'MPPTs and phases at 22');
});

test('emulator: time caught up minute by minute, so grid charging stops when the slot ends', () => {
  let now = new Date(2026, 5, 21, 22, 0);
  const device = new DeyeDevice({ now: () => now, soc: 30 });
  device.settings.gridChargeA = 40;
  device.settings.workMode = 1; // zero export to load: self-use serves the house, sells nothing
  // Slot 1 grid charges to 100 % from 22:00 to 22:30, then self-use at the minimum SOC.
  device.writeRegisters({ address: 250, values: [2200, 2230, 2226, 2227, 2228, 2229] });
  device.writeRegisters({ address: 268, values: [100, 20, 20, 20, 20, 20] });
  device.writeRegisters({ address: 274, values: [1, 0, 0, 0, 0, 0] });
  device.writeRegisters({ address: 232, values: [1] });
  device.writeRegisters({ address: 248, values: [0x81] }); // on, Sunday
  assert.equal(device.programNow()?.gridChargeToSoc, 100);
  now = new Date(2026, 5, 21, 23, 0);
  const soc = device.readHoldingRegisters({ address: 184, count: 1 })[0]!;
  // 40 A at about 50 V for half an hour: about 1 kWh of 5.12 (+16 points, +32 for the hour); then the night load.
  assert.ok(soc >= 40 && soc <= 50, `charged for the half hour only: ${soc} %`);
  assert.equal(device.programNow()?.slot, 1);
  assert.equal(device.flowsNow().charge, 0, 'no charging after the slot');
});

test('renewed every quarter hour for hours, the forced window never spans more than an hour', () => {
  let program = leaseProgram(input({ now: at(1, 0) })).program;
  const windows: number[] = [];
  for (let q = 1; q <= 16; q++) {
    const minute = 60 + 15 * q;
    const renewed = leaseProgram(input({ program, timerOn: true, now: at(Math.floor(minute / 60), minute % 60) }));
    windows.push(renewed.end - renewed.start);
    assert.ok(renewed.start <= minute && renewed.end > minute, `the window holds the minute now (${q})`);
    program = renewed.program;
  }
  assert.ok(
    Math.max(...windows) <= 60,
    `at most 60 minutes: a program left behind forces an hour at most (${windows.join(', ')})`,
  );
  assert.ok(
    windows.filter((w) => w === 30).length >= 4,
    'the window starts again at the minute now once it would pass an hour',
  );
});
