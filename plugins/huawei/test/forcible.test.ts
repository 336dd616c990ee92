// The forcible charge/discharge as a lease: the registers each mode sets (wlcrs/huawei_solar
// services.py's order: power, period, setting mode, command), the period for a lease's end,
// what a renewal writes, what the driver reads back as the device's mode; and the emulator's
// countdown on its own clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  forcibleMismatch,
  forcibleMode,
  forciblePlan,
  forcibleWrites,
  periodMinutes,
  type Forcible,
} from '../src/battery-control.js';
import { HuaweiDevice } from '../src/emulator/device.js';
import { FORCIBLE } from '../src/register-map.js';

const MINUTE = 60_000;
const STOPPED: Forcible = { period: 120, command: 0, settingMode: 0, chargePower: 0, dischargePower: 0 };

test('the period is the whole minutes left to the lease end, rounded up, 1..30', () => {
  const now = 1_000_000;
  assert.equal(periodMinutes(now + 30 * MINUTE - 5, now), 30);
  assert.equal(periodMinutes(now + 30 * MINUTE, now), 30);
  assert.equal(periodMinutes(now + 90 * MINUTE, now), 30, 'never past the SDK lease');
  assert.equal(periodMinutes(now + 14 * MINUTE + 1, now), 15);
  assert.equal(periodMinutes(now - MINUTE, now), 1, 'never 0: a period of 0 would end at once');
});

test('each mode as the forcible registers; Normal is the stop alone', () => {
  for (const [command, period, registers] of [
    [{ mode: 'normal', powerW: 3000, targetSoc: 90 }, 0, { command: 0 }],
    [{ mode: 'hold', powerW: 3000, targetSoc: 90 }, 30, { dischargePower: 0, period: 30, settingMode: 0, command: 2 }],
    [
      { mode: 'charge', powerW: 2500.4, targetSoc: 90 },
      30,
      { chargePower: 2500, period: 30, settingMode: 0, command: 1 },
    ],
    [
      { mode: 'discharge', powerW: 2000, targetSoc: 20 },
      12,
      { dischargePower: 2000, period: 12, settingMode: 0, command: 2 },
    ],
  ] as const)
    assert.deepEqual(forciblePlan(command, period), registers, command.mode);
});

test('the writes: what differs, the command last; a renewal writes the period and the command only', () => {
  const charge = forciblePlan({ mode: 'charge', powerW: 2000, targetSoc: 90 }, 30);
  assert.deepEqual(forcibleWrites(STOPPED, charge), ['chargePower', 'period', 'command']);
  const charging: Forcible = { ...STOPPED, period: 30, command: 1, chargePower: 2000 };
  assert.deepEqual(forcibleWrites(charging, charge), ['period', 'command'], 'the renewal');
  assert.deepEqual(forcibleWrites({ ...charging, settingMode: 1 }, charge), ['period', 'settingMode', 'command']);
  assert.deepEqual(forcibleWrites(charging, forciblePlan({ mode: 'normal', powerW: 0, targetSoc: 90 }, 0)), [
    'command',
  ]);
  assert.deepEqual(forcibleWrites(STOPPED, { command: 0 }), [], 'already stopped: nothing');
});

test('read back: a mismatch names the register; a period counting down holds', () => {
  const plan = forciblePlan({ mode: 'discharge', powerW: 2000, targetSoc: 20 }, 30);
  const read: Forcible = { ...STOPPED, period: 29, command: 2, dischargePower: 2000 };
  assert.equal(forcibleMismatch(read, plan), null);
  assert.match(forcibleMismatch({ ...read, command: 0 }, plan)!, /\(register 47100\) reads 0 after writing 2/);
  assert.match(forcibleMismatch({ ...read, dischargePower: 1500 }, plan)!, /register 47249/);
});

test('the mode the registers make: stop normal, either command at 0 W hold', () => {
  assert.equal(forcibleMode(STOPPED), 'normal');
  assert.equal(forcibleMode({ ...STOPPED, command: 1, chargePower: 0 }), 'hold');
  assert.equal(forcibleMode({ ...STOPPED, command: 1, chargePower: 100 }), 'charge');
  assert.equal(forcibleMode({ ...STOPPED, command: 2, dischargePower: 0 }), 'hold');
  assert.equal(forcibleMode({ ...STOPPED, command: 2, dischargePower: 2000 }), 'discharge');
  assert.equal(forcibleMode({ ...STOPPED, command: 7 }), null);
});

test('the emulator runs a forcible charge for its period by its own clock, restarted by a write of the command', () => {
  let clock = new Date(2026, 11, 21, 22, 0);
  const device = new HuaweiDevice({ now: () => clock, soc: 40 });
  const command = () => device.readHoldingRegisters({ address: FORCIBLE.command, count: 1 })[0];
  device.writeRegisters({ address: FORCIBLE.chargePower, values: [0, 3000] });
  device.writeRegisters({ address: FORCIBLE.period, values: [30] });
  device.writeRegisters({ address: FORCIBLE.settingMode, values: [0] });
  device.writeRegisters({ address: FORCIBLE.command, values: [1] });
  assert.equal(command(), 1);
  clock = new Date(clock.getTime() + 20 * MINUTE);
  assert.equal(command(), 1);
  assert.ok(device.soc > 40, `charging: ${device.soc}`);
  device.writeRegisters({ address: FORCIBLE.command, values: [1] }); // the renewal
  device.clockOffsetMs = 29 * MINUTE;
  assert.equal(command(), 1, 'within the renewed period');
  device.clockOffsetMs = 31 * MINUTE;
  assert.equal(command(), 0, 'the period ran out: stopped on the device');
  const soc = device.soc;
  clock = new Date(clock.getTime() + 60 * MINUTE);
  device.readHoldingRegisters({ address: 37760, count: 1 });
  assert.ok(device.soc < soc, 'self-consumption again: the night load discharges it');
  assert.throws(() => device.writeRegisters({ address: FORCIBLE.command, values: [3] }), /exception 3/);
  assert.throws(() => device.writeRegisters({ address: 37760, values: [500] }), /exception 2/);
});
