// The Solis remote control registers as a lease: the words each mode sets, what a renewal
// writes (43135 alone), the timeout to the lease's end, what the driver reads back as the
// inverter's mode; and the emulator's countdown on its own clock, the meter's sign and the
// storage control switch.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SolisDevice } from '../src/emulator/device.js';
import { RC, rcMismatch, rcMode, rcPlan, rcWrites, timeoutMinutes, type RcWords } from '../src/remote-control.js';

const MINUTE = 60_000;
const IDLE: RcWords = { mode: 0, chargePower: 150, dischargePower: 150, timeout: 5 };
const s32 = ([high, low]: number[]) => ((high! << 16) | low!) >> 0;

test('each mode as the RC registers: force charge / discharge at W / 10, hold a force charge at 0 W, normal 43135 = 0', () => {
  assert.deepEqual(rcPlan({ mode: 'charge', powerW: 2500, targetSoc: 90 }, IDLE, 30), {
    mode: 1,
    chargePower: 250,
    dischargePower: 150,
    timeout: 30,
  });
  assert.deepEqual(rcPlan({ mode: 'discharge', powerW: 1804, targetSoc: 20 }, IDLE, 30), {
    mode: 2,
    chargePower: 150,
    dischargePower: 180,
    timeout: 30,
  });
  assert.deepEqual(rcPlan({ mode: 'hold', powerW: 2500, targetSoc: 90 }, IDLE, 29), {
    mode: 1,
    chargePower: 0,
    dischargePower: 150,
    timeout: 29,
  });
  const charging = { ...IDLE, mode: 1, chargePower: 250, timeout: 30 };
  assert.deepEqual(rcPlan({ mode: 'normal', powerW: 2500, targetSoc: 90 }, charging, 30), { ...charging, mode: 0 });
  for (const words of [charging, { ...IDLE, mode: 2 }, { ...IDLE, mode: 1, chargePower: 0 }, IDLE])
    assert.deepEqual(rcPlan({ mode: rcMode(words)!, powerW: 2500, targetSoc: 90 }, words, 30).mode, words.mode);
  assert.equal(rcMode({ ...IDLE, mode: 2, dischargePower: 0 }), 'hold');
  assert.equal(rcMode({ ...IDLE, mode: 7 }), null, 'a value the document does not give');
});

test('writes: 43135 first, then only the setpoint and timeout that differ; a renewal is 43135 alone; normal once', () => {
  const charge = rcPlan({ mode: 'charge', powerW: 2500, targetSoc: 90 }, IDLE, 30);
  assert.deepEqual(rcWrites(IDLE, charge), [
    { address: RC.mode, value: 1 },
    { address: RC.chargePower, value: 250 },
    { address: RC.timeout, value: 30 },
  ]);
  assert.deepEqual(rcWrites(charge, charge), [{ address: RC.mode, value: 1 }], 'the renewal restarts the countdown');
  const hold = rcPlan({ mode: 'hold', powerW: 2500, targetSoc: 90 }, charge, 30);
  assert.deepEqual(rcWrites(charge, hold), [
    { address: RC.mode, value: 1 },
    { address: RC.chargePower, value: 0 },
  ]);
  const normal = rcPlan({ mode: 'normal', powerW: 0, targetSoc: 90 }, charge, 30);
  assert.deepEqual(rcWrites(charge, normal), [{ address: RC.mode, value: 0 }]);
  assert.deepEqual(rcWrites(normal, normal), [], 'already normal: nothing');
  assert.equal(rcMismatch(charge, charge), null);
  assert.equal(rcMismatch({ ...charge, timeout: 5 }, charge), 'register 43282 reads 5 after writing 30');
  assert.equal(rcMismatch({ ...normal, timeout: 5 }, normal), null, 'normal checks 43135 alone');
});

test('the RC timeout: whole minutes not past the lease, at most 30, none under a minute', () => {
  const now = Date.parse('2026-06-21T20:00:00Z');
  assert.equal(timeoutMinutes(now + 30 * MINUTE, now), 30);
  assert.equal(timeoutMinutes(now + 30 * MINUTE - 20, now), 30, 'a lease written 20 ms after it began');
  assert.equal(timeoutMinutes(now + 30 * MINUTE - 6000, now), 29);
  assert.equal(timeoutMinutes(now + 45 * MINUTE, now), 30);
  assert.equal(timeoutMinutes(now + MINUTE, now), 1);
  assert.equal(timeoutMinutes(now + 54_999, now), null);
});

test('emulator: a force runs for the RC timeout by the inverter clock, a rewrite of 43135 restarts it', () => {
  let clock = new Date(2026, 11, 21, 22, 0);
  const device = new SolisDevice({ now: () => clock, soc: 50 });
  const holding = (address: number) => device.readHoldingRegisters({ address, count: 1 })[0];
  assert.equal(holding(RC.timeout), 5, 'the default timeout');
  device.writeRegisters({ address: RC.mode, values: [1] });
  device.writeRegisters({ address: RC.chargePower, values: [200] });
  device.writeRegisters({ address: RC.timeout, values: [30] });
  clock = new Date(clock.getTime() + 20 * MINUTE);
  device.writeRegisters({ address: RC.mode, values: [1] });
  clock = new Date(clock.getTime() + 29 * MINUTE);
  assert.equal(holding(RC.mode), 1, 'the renewal restarted the countdown');
  const [high, low] = device.readInputRegisters({ address: 33149, count: 2 });
  assert.equal(s32([high!, low!]), 2000, 'charging at 43136 × 10 W');
  assert.equal(device.readInputRegisters({ address: 33135, count: 1 })[0], 0, 'direction: charging');
  const load = device.readInputRegisters({ address: 33147, count: 1 })[0]!;
  assert.equal(
    s32(device.readInputRegisters({ address: 33263, count: 2 })),
    -(2000 + load),
    'the meter: import negative',
  );
  device.clockOffsetMs = 2 * MINUTE;
  assert.equal(holding(RC.mode), 0, 'dropped by the inverter when its timeout ran out');
  assert.equal(
    s32(device.readInputRegisters({ address: 33263, count: 2 })),
    0,
    'self-use: the battery covers the load',
  );
  assert.equal(device.readInputRegisters({ address: 33135, count: 1 })[0], 1, 'discharging to the night load');
  assert.throws(() => device.writeRegisters({ address: RC.mode, values: [3] }), /exception 3/);
  assert.throws(() => device.writeRegisters({ address: 43111, values: [1] }), /exception 2/);
});

test('emulator: at a fixed noon the readings are non-zero and the meter counts export positive', () => {
  const device = new SolisDevice({ now: () => new Date(2026, 5, 21, 12, 0), soc: 50 });
  const input = (address: number, count = 1) => device.readInputRegisters({ address, count });
  for (const address of [33035, 33049, 33050, 33051, 33052, 33073, 33093, 33094, 33133, 33134, 33139, 33140, 33147])
    assert.notEqual(input(address)[0], 0, `input ${address}`);
  for (const address of [33163, 33167, 33171, 33175, 33179])
    assert.notEqual(input(address)[0], 0, `today's ${address}`);
  const meter = s32(input(33263, 2));
  assert.ok(meter > 0, `exporting the surplus at noon: ${meter} W`);
  assert.equal(s32(input(33257, 2)), meter, 'phase A of a single-phase meter');
  const backup = input(33148)[0]!;
  assert.ok(backup > 0, 'a backup load');
  assert.equal(input(33147)[0]! - s32(input(33079, 2)), backup - meter, 'load − AC power is off by the backup port');
});
