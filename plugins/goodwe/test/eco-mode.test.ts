// The GoodWe eco mode groups as a lease: the words of a group as the goodwe library encodes
// them (marcelblijleven/goodwe goodwe/sensor.py `Schedule.encode_charge`, `encode_off`,
// `EcoModeV1`), the inverter's clock (`read_datetime`), when a group is in force, the group a
// lease writes and what a renewal changes, what the driver reads back as the device's mode; and
// the emulator's V1 view of its groups.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GoodweDevice } from '../src/emulator/device.js';
import {
  changedRuns,
  decodeGroup,
  deviceMode,
  deviceTime,
  encodeGroup,
  inForce,
  leaseGroup,
  switchedOff,
  type DeviceTime,
  type LeaseInput,
} from '../src/eco-mode.js';

const words = (hex: string) =>
  Array.from({ length: hex.length / 4 }, (_, i) => parseInt(hex.slice(4 * i, 4 * i + 4), 16));
/** Sunday 22:00 in June. */
const at = (hour: number, minute: number, second = 0, weekday = 0): DeviceTime => ({
  minute: hour * 60 + minute,
  second,
  weekday,
  month: 5,
});
const LEASE = 30 * 60_000;
const input = (over: Partial<LeaseInput> = {}): LeaseInput => ({
  command: { mode: 'charge', powerW: 2000, targetSoc: 90 },
  group: decodeGroup(words('300030000000006400640000'), 'v2'),
  eco: false,
  now: at(22, 0),
  leaseMs: LEASE,
  soc: 55.6,
  minSoc: 10,
  powerPct: 20,
  permille: false,
  ...over,
});

test("groups decode and encode as the library's bytes", () => {
  // Schedule.encode_charge(50, 80) on an ECO_MODE group: 00:00-23:59, on (0xFF), every day, -50 %, SOC 80.
  const charge = words('0000173bff7fffce00500000');
  const group = decodeGroup(charge, 'v2');
  assert.deepEqual(group, { start: 0, end: 1439, onOff: 0xff, days: 0x7f, power: -50, soc: 80, months: 0 });
  assert.deepEqual(encodeGroup(group, 'v2'), charge);
  // Schedule.encode_off: 48:00-48:00, off, power 100, SOC 100.
  assert.deepEqual(encodeGroup(switchedOff(group), 'v2').slice(2, 3), [0x007f]);
  // EcoModeV1.encode_discharge(30): times, power, on/off and days.
  const v1 = words('0000173b001eff7f');
  assert.deepEqual(decodeGroup(v1, 'v1'), {
    start: 0,
    end: 1439,
    onOff: 0xff,
    days: 0x7f,
    power: 30,
    soc: 100,
    months: 0,
  });
  assert.deepEqual(encodeGroup(decodeGroup(v1, 'v1'), 'v1'), v1);
});

test("the inverter's clock as read_datetime reads it", () => {
  assert.deepEqual(deviceTime([0x1a06, 0x1516, 0x1e05]), { minute: 22 * 60 + 30, second: 5, weekday: 0, month: 5 });
  assert.throws(() => deviceTime([0x1a0d, 0x0101, 0]), /no date and time/);
});

test('a group is in force on its days from start to end, past midnight as its start day', () => {
  const g = { start: 22 * 60, end: 22 * 60 + 30, onOff: 0xff, days: 0x01, power: -20, soc: 90, months: 0 };
  assert.equal(inForce(g, at(22, 0)), true);
  assert.equal(inForce(g, at(22, 29, 59)), true);
  assert.equal(inForce(g, at(22, 30)), false, 'the end is not in the group');
  assert.equal(inForce(g, at(22, 10, 0, 1)), false, 'not on Monday');
  assert.equal(inForce({ ...g, onOff: 0 }, at(22, 10)), false, 'off');
  const night = { ...g, start: 23 * 60 + 50, end: 20 };
  assert.equal(inForce(night, at(0, 10, 0, 1)), true, "Monday 00:10 is Sunday's group");
  assert.equal(inForce(night, at(0, 10, 0, 0)), false, 'Sunday 00:10 belongs to Saturday');
});

test('a lease: group 1 from the minute now to the lease end; a renewal moves only the end, for an hour at most', () => {
  const first = leaseGroup(input({ now: at(22, 0, 40) }));
  assert.deepEqual(first, { start: 1320, end: 1350, onOff: 0xff, days: 0x01, power: -20, soc: 90, months: 0 });
  const renewed = leaseGroup(input({ group: first, eco: true, now: at(22, 15, 10) }));
  assert.deepEqual(changedRuns(47547, encodeGroup(first, 'v2'), encodeGroup(renewed, 'v2')), [
    { address: 47548, values: [(22 << 8) | 45] },
  ]);
  // Past an hour of forcing, the group starts again at the minute now.
  const late = leaseGroup(input({ group: { ...first, end: 23 * 60 }, eco: true, now: at(22, 45) }));
  assert.equal(late.start, 22 * 60 + 45);
  // Hold: a charge group at 1 % to the SOC now; a renewal keeps that SOC.
  const hold = leaseGroup(input({ command: { mode: 'hold', powerW: 2000, targetSoc: 90 } }));
  assert.deepEqual([hold.power, hold.soc], [-1, 55]);
  const held = leaseGroup(
    input({ command: { mode: 'hold', powerW: 2000, targetSoc: 90 }, group: hold, eco: true, soc: 70, now: at(22, 10) }),
  );
  assert.deepEqual([held.start, held.soc], [hold.start, 55]);
  // Discharge: a positive power; on platform 745 in tenths of a %.
  const sell = leaseGroup(
    input({ command: { mode: 'discharge', powerW: 3000, targetSoc: 20 }, powerPct: 30, permille: true }),
  );
  assert.deepEqual([sell.power, sell.onOff, sell.months], [300, 0xf9, 0x0fff]);
  // A charge never at the least power: that is Hold's.
  assert.equal(leaseGroup(input({ powerPct: 0.4 })).power, -2);
});

test("the device's mode from its work mode and groups", () => {
  const g = leaseGroup(input());
  const off = switchedOff(g);
  assert.equal(deviceMode({ workMode: 0, groups: [g], now: at(22, 5) }), 'normal', 'General: the groups do nothing');
  assert.equal(deviceMode({ workMode: 3, groups: [g, off], now: at(22, 5) }), 'charge');
  assert.equal(deviceMode({ workMode: 3, groups: [{ ...g, power: -1 }], now: at(22, 5) }), 'hold');
  assert.equal(deviceMode({ workMode: 3, groups: [{ ...g, power: 40 }], now: at(22, 5) }), 'discharge');
  assert.equal(deviceMode({ workMode: 3, groups: [g], now: at(23, 0) }), null, 'on, for another time: not normal');
  assert.equal(deviceMode({ workMode: 3, groups: [off], now: at(22, 5) }), 'normal');
});

test("the emulator's V1 groups are its V2 groups seen as EcoModeV1; a V1 write sets the V2 group", () => {
  const device = new GoodweDevice({ now: () => new Date(2026, 5, 21, 22, 0) });
  device.writeRegisters({ address: 47515, values: words('16001700ffceff01') });
  assert.deepEqual(device.readHoldingRegisters({ address: 47547, count: 6 }), words('16001700ff01ffce00640000'));
  device.writeRegisters({ address: 47000, values: [3] });
  assert.equal(device.programNow()?.powerW, 5000, '-50 % of the rated 10 kW: charging');
  assert.throws(
    () => device.writeRegisters({ address: 47547, values: [0x1900] }),
    /Modbus exception 3/,
    'hour 25 refused',
  );
});
