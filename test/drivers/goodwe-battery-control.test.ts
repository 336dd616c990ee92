// Battery control on the goodwe driver in the real server against its emulator, on one manual
// clock: each forced mode is a lease in the eco mode (marcelblijleven/goodwe goodwe/et.py
// `set_operation_mode`: eco_mode_1 at 47547 (EcoModeV2, goodwe/sensor.py `Schedule`), groups 2..4
// switched off, work_mode 47000 = 3 Eco): group 1 from the inverter's time now (its clock at
// 45200) to at most 30 min ahead on today's weekday, the rest self-use. The emulator runs the
// groups by its own clock and is back to normal by itself when nobody renews (a silent link, a
// drifted clock); a renewal writes one register, the group's end; a forced program found at the
// start is ended and audited; a stop writes Normal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import { GoodweDevice } from '@heliograph/plugin-goodwe/emulator';
import { pollUntil } from '../helpers/deadline.js';
import type { TestServer } from '../helpers/server.js';
import { write } from './driver-api.js';
import {
  advance,
  assertDriftedChargeRunsOut,
  assertEndedAtStart,
  assertLeaseEndedByDriver,
  assertLimitsAndRefusal,
  assertModeAudited,
  assertNothingWrittenAtStart,
  assertStopWritesNormal,
  assertWeekdayOnly,
  command,
  DRIFT_MS,
  MINUTE,
  sharedClockStart,
  type SocProbe,
} from './battery-control.js';

const SUNDAY = 0x01;
/** sensor.py `Schedule.encode_off`: 48:00..48:00, off, power 100, SOC 100. */
const OFF = [0x3000, 0x3000, 0x0000, 100, 100, 0];

const start = sharedClockStart({
  plugin: 'goodwe',
  transport: 'rtu-over-tcp',
  unit: 0xf7,
  battery: { capacityKwh: 10, maxChargeW: 5000, maxDischargeW: 5000, minSoc: 20 },
  make: (options) => new GoodweDevice(options),
});

const words = (device: GoodweDevice, from: number, count: number) =>
  device.readHoldingRegisters({ address: from, count });
/** Group 1 (EcoModeV2 at 47547): start, end (hour << 8 | minute), on/off << 8 | days, power (s16 %), SOC, months. */
const group1 = (device: GoodweDevice) => words(device, 47547, 6);
const time = (h: number, m: number) => (h << 8) | m;
const pct = (p: number) => p & 0xffff;
const soc = (device: GoodweDevice) => words(device, 37007, 1)[0]!;

/** The SOC at 37007 on the shared clock, as `server` shows it, for {@link advance}. */
const battery = (server: TestServer, clock: ManualClock, device: GoodweDevice): SocProbe => ({
  clock,
  soc: () => soc(device),
  shown: { server, topic: 'battery_1/state_of_charge' },
});
/** Whether the work mode is General (47000 = 0), and the word: what the driver's ending of it waits for. */
const general = (device: GoodweDevice) => ({ done: words(device, 47000, 1)[0] === 0, seen: words(device, 47000, 1) });

test('goodwe: each forced mode is a lease in eco group 1, and the battery follows it', async () => {
  const { clock, device, server } = await start();
  await assertNothingWrittenAtStart(server, 'inverter_1');

  // Charge: group 1 charges at 50 % of the rated 10 kW from 22:00 to 22:30 on Sunday, to 60 %.
  await command(server, 'inverter_1', { mode: 'charge', powerW: 5000, targetSoc: 60 });
  assert.equal(words(device, 47000, 1)[0], 3, 'work mode Eco');
  assert.deepEqual(group1(device), [time(22, 0), time(22, 30), 0xff00 | SUNDAY, pct(-50), 60, 0]);
  assert.deepEqual(words(device, 47553, 18), [...OFF, ...OFF, ...OFF], 'groups 2..4 off');
  await assertModeAudited(server, 'inverter_1', ['ok', 'Charge', 'rest']);
  const charging = await advance(battery(server, clock, device), 20);
  assert.ok(charging[3]! > 50, `SOC rises: ${charging.join(' ')}`);
  assert.equal(Math.max(...charging), 60, 'stops at the group SOC');
  assert.equal(charging.at(-1), 60);

  // Hold: a charge group at the least power (1 %) to the SOC now; at night the SOC stays.
  await command(server, 'inverter_1', { mode: 'hold', powerW: 5000, targetSoc: 60 });
  assert.deepEqual(group1(device).slice(2, 5), [0xff00 | SUNDAY, pct(-1), 60]);
  assert.deepEqual(new Set(await advance(battery(server, clock, device), 10)), new Set([60]), 'hold keeps the SOC');

  // Discharge: +50 % down to the target; the device knows no discharge target, the driver holds there.
  await command(server, 'inverter_1', { mode: 'discharge', powerW: 5000, targetSoc: 45 });
  assert.deepEqual(group1(device).slice(2, 5), [0xff00 | SUNDAY, 50, 100]);
  const discharging = await advance(battery(server, clock, device), 25);
  assert.ok(discharging[3]! < 60, `SOC falls: ${discharging.join(' ')}`);
  await pollUntil(
    () => Promise.resolve({ done: group1(device)[3] === pct(-1), seen: group1(device) }),
    'held at the discharge target',
  );
  const held = await advance(battery(server, clock, device), 4);
  assert.ok(
    Math.min(...discharging, ...held) >= 44,
    `stops at the target: ${discharging.join(' ')} | ${held.join(' ')}`,
  );
  assert.equal(new Set(held).size, 1, `then holds: ${held.join(' ')}`);

  // Normal: work mode General and group 1 off; the battery serves the night load again.
  await command(server, 'inverter_1', { mode: 'normal', powerW: 5000, targetSoc: 45 });
  assert.equal(words(device, 47000, 1)[0], 0, 'work mode General');
  assert.equal(group1(device)[2], SUNDAY, 'group 1 off (on/off byte 0), its day kept');
  const normal = await advance(battery(server, clock, device), 30);
  assert.ok(normal.at(-1)! < held.at(-1)!, `the night load discharges the battery: ${normal.join(' ')}`);

  // A device that refuses: reported and audited, the mode stays.
  await assertLimitsAndRefusal(server, 'inverter_1', { maxChargeW: 5000, minSoc: 20 }, () => (device.refuse = true));
});

test('goodwe: a Charge ends on the device by its own clock within 30 min, with the link silent and the clock drifted', () =>
  // The inverter's clock is 3 h 17 min 20 s behind the site's: the group is placed on its clock.
  assertDriftedChargeRunsOut(start, 4000, {
    placed: (device) => {
      assert.deepEqual(
        words(device, 45200, 3),
        [0x1a06, (21 << 8) | 18, (42 << 8) | 40],
        'the device: 21 June 2026 18:42:40',
      );
      assert.deepEqual(
        group1(device).slice(0, 3),
        [time(18, 42), time(19, 12), 0xff00 | SUNDAY],
        '18:42 to 19:12, 29 min 20 s on',
      );
      assert.equal(device.programNow()?.powerW, 4000, 'grid charging now');
    },
    forced: (device) => {
      assert.equal(device.programNow()?.powerW, 4000, 'still in the group at 19:11:40');
    },
    ended: (device) => {
      assert.equal(device.programNow(), null, 'at 19:12:40 no group is in force: self-use');
      const flows = device.flowsNow();
      assert.equal(flows.charge, 0, 'no charging');
      assert.ok(flows.grid <= flows.load, 'the grid feeds at most the house');
      // Heliograph gone for good: the group stays, on Sunday only. Monday at the same time: nothing.
      // The same weekday a week later, at most the window again (the driver's clean-up cannot reach a silent device).
      assertWeekdayOnly(device, DRIFT_MS, {
        again: () => assert.equal(device.programNow()?.powerW, 4000, 'Sunday a week later, 18:47: the group again'),
      });
    },
  }));

test('goodwe: a renewal writes one register, the end of group 1; the lease run out, the driver switches the group off', async () => {
  const { clock, device, server } = await start();
  await command(server, 'inverter_1', { mode: 'charge', powerW: 2000, targetSoc: 90 });
  assert.ok(device.writes.splice(0).length > 0);
  clock.advance(15 * MINUTE);
  soc(device);
  assert.equal((await write(server, 'inverter_1/battery_control_mode', 'Charge')).status, 200);
  assert.deepEqual(device.writes.splice(0), [{ address: 47548, values: [time(22, 45)] }], 'one request, one register');

  // Nobody renews; once the lease is over on the site's clock too, the group goes off and the
  // work mode back to General, so the group cannot come round next Sunday.
  await assertLeaseEndedByDriver(server, clock, 31, () => general(device), 'work mode General after the lease');
  assert.deepEqual(
    device.writes.splice(0),
    [
      { address: 47000, values: [0] },
      { address: 47549, values: [SUNDAY] },
    ],
    'the work mode, then the on/off byte; the day kept',
  );
});

/** A program an earlier run left: work mode Eco, group 1 grid charging from 21:50 to 22:30 to 90 % on `days`. */
function leaveForcedGroup(d: GoodweDevice, days: number): void {
  d.writeRegisters({ address: 47547, values: [time(21, 50), time(22, 30), 0xff00 | days, pct(-30), 90, 0] });
  d.writeRegisters({ address: 47000, values: [3] });
}

test('goodwe: a forced group found at the start is ended through the write path and audited; a stop writes Normal', async () => {
  const { device, server } = await start({
    prepare: (d) => {
      leaveForcedGroup(d, SUNDAY);
      assert.equal(d.programNow()?.powerW, 3000);
    },
  });
  await assertEndedAtStart(server, 'goodwe', () => general(device), 'work mode General at the start');
  assert.equal(device.programNow(), null, 'no group runs');
  assert.equal(group1(device)[2], SUNDAY, 'group 1 off');

  // A stop while Charge: Normal is written before the connection closes, and audited.
  await assertStopWritesNormal(
    server,
    'goodwe',
    2000,
    () => words(device, 47000, 1)[0],
    [3, 0],
    'work mode General after the stop',
  );
  assert.equal(device.programNow(), null);
});

test('goodwe: a forced group left for another day is ended at the start too, though it does not run now', async () => {
  const { device, server } = await start({
    prepare: (d) => {
      leaveForcedGroup(d, 0x02); // Monday; today is Sunday
      assert.equal(d.programNow(), null);
    },
  });
  await assertEndedAtStart(server, 'goodwe', () => general(device), 'work mode General at the start');
});
