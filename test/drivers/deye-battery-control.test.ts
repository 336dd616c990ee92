// Battery control on the deye driver in the real server against its emulator, on one manual
// clock: each forced mode is a lease in the time-of-use program (one slot from the device's
// time now to at most 30 min ahead, the rest of the day self-use), the emulator runs that
// program by its own clock and is back to normal by itself when nobody renews it (a silent
// link, a drifted clock, a window across midnight), a renewal writes one register, a forced
// program found at the start is ended and audited, a stop writes Normal; the program runs only
// on the days the window covers (its weekday bits, by the emulator's calendar), so a program
// left behind comes back a week later, not the next day; slot power units (10 W on HV) are as
// the public definitions say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import { DeyeDevice, type DeyeDeviceOptions } from '@heliograph/plugin-deye/emulator';
import { valuesOf, valuesWhen, write } from './driver-api.js';
import {
  advance,
  assertDriftedChargeRunsOut,
  assertEndedAtStart,
  assertLeaseEndedByDriver,
  assertLimitsAndRefusal,
  assertModeAudited,
  assertNoBatteryControl,
  assertNothingWrittenAtStart,
  assertStopWritesNormal,
  assertWeekdayOnly,
  command,
  DAY,
  DRIFT_MS,
  MINUTE,
  renewCharge,
  sharedClockStart,
  type SocProbe,
} from './battery-control.js';

const start = sharedClockStart({
  plugin: 'deye',
  transport: 'tcp',
  unit: 1,
  battery: { capacityKwh: 5.12, maxChargeW: 2500, maxDischargeW: 2500, minSoc: 20 },
  make: (options: DeyeDeviceOptions) => new DeyeDevice(options),
});

/** Registers `from`..`from+count-1` as the emulator holds them. */
const words = (device: DeyeDevice, from: number, count: number) =>
  device.readHoldingRegisters({ address: from, count });
/** The device's clock as a time register (HHMM), `minutes` on. */
const hhmm = (device: DeyeDevice, minutes = 0) => {
  const t = new Date(device.clock().getTime() + minutes * MINUTE);
  return t.getHours() * 100 + t.getMinutes();
};

/** The SOC at 184 on the shared clock, for {@link advance}. */
const battery = (clock: ManualClock, device: DeyeDevice): SocProbe => ({ clock, soc: () => words(device, 184, 1)[0]! });
/** Whether the use timer (248 bit 0) is off, and the word: what the driver's ending of it waits for. */
const timerOff = (device: DeyeDevice) => ({
  done: (words(device, 248, 1)[0]! & 1) === 0,
  seen: words(device, 248, 1)[0],
});

test('deye: each forced mode is a lease in the time-of-use program, and the battery follows it', async () => {
  const { clock, device, server } = await start();
  await assertNothingWrittenAtStart(server, 'inverter_1');

  // Charge: slot 1 grid charges from the device's minute now to 30 min on, the rest self-use.
  await command(server, 'inverter_1', { mode: 'charge', powerW: 2000, targetSoc: 60 });
  assert.equal(words(device, 248, 1)[0]! & 0xff, 0x81, 'use timer on (bit 0), Sunday (bit 7) only');
  assert.equal(words(device, 232, 1)[0]! & 1, 1, 'grid charge enabled');
  assert.deepEqual(words(device, 250, 6), [2200, 2230, 2156, 2157, 2158, 2159], 'forced 22:00..22:30');
  assert.deepEqual(words(device, 256, 6), [2000, 2500, 2500, 2500, 2500, 2500], 'the power, then full power');
  assert.deepEqual(words(device, 268, 6), [60, 20, 20, 20, 20, 20], 'the target, then the minimum SOC');
  assert.deepEqual(
    words(device, 274, 6).map((w) => w & 1),
    [1, 0, 0, 0, 0, 0],
    'grid charge in the forced slot only',
  );
  const amps = words(device, 230, 1)[0]!;
  assert.ok(amps >= 30 && amps <= 2000 / 48, `grid charge current ${amps} A from 2000 W`);
  await assertModeAudited(server, 'inverter_1', ['ok', 'Charge', 'rest']);

  const charging = await advance(battery(clock, device), 20);
  assert.ok(charging[5]! > 50, `SOC rises: ${charging.join(' ')}`);
  assert.equal(Math.max(...charging), 60, 'stops at the target');
  assert.equal(charging.at(-1), 60);
  await valuesWhen(server, (v) => v.get('battery_1/state_of_charge') === 60, 'battery_1/state_of_charge at 60');

  // Hold: the slot holds the SOC now with no battery power; at night the SOC stays.
  await command(server, 'inverter_1', { mode: 'hold', powerW: 2000, targetSoc: 60 });
  assert.equal(words(device, 256, 1)[0], 0);
  assert.equal(words(device, 268, 1)[0], 60);
  assert.equal(words(device, 274, 1)[0]! & 1, 0);
  assert.deepEqual(new Set(await advance(battery(clock, device), 20)), new Set([60]), 'hold keeps the SOC');

  // Discharge (selling first): down to the target at the slot power, then it stops.
  await command(server, 'inverter_1', { mode: 'discharge', powerW: 2500, targetSoc: 45 });
  assert.deepEqual([words(device, 256, 1)[0], words(device, 268, 1)[0]], [2500, 45]);
  const discharging = await advance(battery(clock, device), 25);
  assert.ok(discharging[5]! < 60, `SOC falls: ${discharging.join(' ')}`);
  assert.equal(Math.min(...discharging), 45, 'stops at the target');

  // Normal: the timer off; the battery serves the night load again.
  await command(server, 'inverter_1', { mode: 'normal', powerW: 2500, targetSoc: 45 });
  assert.equal(words(device, 248, 1)[0]! & 1, 0, 'use timer off');
  const normal = await advance(battery(clock, device), 60);
  assert.ok(normal.at(-1)! < 45, `the night load discharges the battery: ${normal.at(-1)}`);

  // A device that refuses: reported and audited, the mode stays.
  await assertLimitsAndRefusal(server, 'inverter_1', { maxChargeW: 2500, minSoc: 20 }, () => (device.refuse = true));
});

test('deye: a Charge ends on the device by its own clock within 30 min, with the link silent and the clock drifted', () =>
  // The inverter's clock is 3 h 17 min 20 s behind the site's: the window is placed on its clock.
  assertDriftedChargeRunsOut(start, 2000, {
    placed: (device) => {
      assert.equal(hhmm(device), 1842);
      assert.deepEqual(
        words(device, 250, 2),
        [1842, 1912],
        'from 18:42 (18:42:40 on the device) to 19:12, 29 min 20 s on',
      );
      assert.equal(words(device, 248, 1)[0], 0x81, 'on Sunday, the day on the device');
      assert.equal(device.programNow()?.gridChargeToSoc, 90, 'grid charging now');
    },
    forced: (device) => {
      assert.equal(device.programNow()?.gridChargeToSoc, 90, 'still in the window at 19:11:40');
    },
    ended: (device) => {
      const now = device.programNow();
      assert.deepEqual(
        now && { slot: now.slot, floorSoc: now.floorSoc, maxDischargeW: now.maxDischargeW, grid: now.gridChargeToSoc },
        { slot: 1, floorSoc: 20, maxDischargeW: 2500, grid: null },
        'at 19:12:40 the slot in force is self-use: the minimum SOC, full power, no grid charge',
      );
      const flows = device.flowsNow();
      assert.equal(flows.charge, 0, 'no charging');
      assert.ok(flows.gridImport <= flows.load, 'the grid feeds at most the house');

      // Heliograph gone for good: the program stays. A day on, at the same time of day, the
      // inverter's timer does not run (Monday's bit is not set): its own default behaviour.
      // The same weekday comes round a week later: the program left behind forces it again, once a
      // week (the driver's clean-up, the timer off after the lease, cannot reach a silent device).
      assertWeekdayOnly(device, DRIFT_MS, {
        monday: () => assert.equal(device.flowsNow().charge, 0, 'no charging on Monday'),
        again: () =>
          assert.equal(device.programNow()?.gridChargeToSoc, 90, 'Sunday a week later, 18:47: the forced slot again'),
      });
    },
  }));

test('deye: a renewal writes one register, the end of the forced window; the lease run out, the driver switches the timer off', async () => {
  const { clock, device, server } = await start();
  await command(server, 'inverter_1', { mode: 'charge', powerW: 2000, targetSoc: 90 });
  const first = device.writes.splice(0);
  assert.ok(first.length > 0);
  clock.advance(15 * MINUTE);
  words(device, 184, 1); // the battery charged meanwhile: its voltage rose
  assert.equal((await write(server, 'inverter_1/battery_control_mode', 'Charge')).status, 200);
  assert.deepEqual(device.writes.splice(0), [{ address: 251, values: [2245] }], 'one request, one register');

  // Nobody renews; once the lease is over on the site's clock too, the timer goes off, so the
  // forced slot cannot come round again tomorrow at 22:00.
  await assertLeaseEndedByDriver(server, clock, 30, () => timerOff(device), 'the timer switched off after the lease');
  assert.deepEqual(device.writes.splice(0), [{ address: 248, values: [0x80] }], 'only the timer bit, Sunday kept');
});

/** A program an earlier run left on a single-phase unit: grid charging from 21:50 to 90 %, on the days of `timer`. */
function leaveForcedProgram(d: DeyeDevice, timer: number): void {
  d.writeRegisters({ address: 250, values: [2150, 2230, 2146, 2147, 2148, 2149] });
  d.writeRegisters({ address: 268, values: [90, 20, 20, 20, 20, 20] });
  d.writeRegisters({ address: 274, values: [1, 0, 0, 0, 0, 0] });
  d.writeRegisters({ address: 232, values: [1] });
  d.writeRegisters({ address: 248, values: [timer] });
}

test('deye: a forced program found at the start is ended through the write path and audited; a stop writes Normal', async () => {
  const { device, server } = await start({
    prepare: (d) => {
      // Left by an earlier run: grid charging from 21:50 to 90 %, in force now.
      leaveForcedProgram(d, 0xff);
      assert.equal(d.programNow()?.gridChargeToSoc, 90);
    },
  });
  await assertEndedAtStart(server, 'deye', () => timerOff(device), 'the timer switched off at the start');
  assert.equal(device.programNow(), null, 'the program does not run');

  // A stop while Charge: Normal is written before the connection closes, and audited.
  await assertStopWritesNormal(
    server,
    'deye',
    2000,
    () => words(device, 248, 1)[0]! & 1,
    [1, 0],
    'the timer off after the stop',
  );
});

test('deye: the power and the target are kept across a restart of the driver, the mode is not', async () => {
  const { server } = await start();
  await command(server, 'inverter_1', { mode: 'charge', powerW: 1800, targetSoc: 70 });
  server.plugins.setEnabled('deye', false);
  await server.plugins.settled();
  const stopped = await valuesOf(server);
  assert.equal(stopped.has('inverter_1/battery_control_power'), false, 'nothing of the stopped driver shown');
  server.plugins.setEnabled('deye', true);
  const values = await valuesWhen(
    server,
    (v) => v.has('inverter_1/battery_control_power'),
    'battery control from the restarted driver',
  );
  assert.deepEqual(
    ['mode', 'power', 'target_soc'].map((name) => values.get(`inverter_1/battery_control_${name}`)),
    ['Normal', 1800, 70],
  );
});

test('deye: a forced program left for another day is ended at the start too, though it does not run today', async () => {
  const { device, server } = await start({
    prepare: (d) => {
      // Left by an earlier run on a Monday: grid charging from 21:50; today is Sunday.
      leaveForcedProgram(d, 0x03);
      assert.equal(d.programNow(), null, 'the timer does not run on Sunday');
    },
  });
  await assertEndedAtStart(server, 'deye', () => timerOff(device), 'the timer switched off at the start');
  assert.deepEqual(device.writes, [{ address: 248, values: [0x02] }], 'the timer bit only, Monday left as found');
});

test('deye three-phase LV: the program at 146..177, slot power in W, a window across midnight and its days', async () => {
  // The device's clock at 23:20 on Sunday: renewals carry the window into Monday.
  const { clock, device, server } = await start({ model: 'three-phase-lv', clockOffsetMs: 80 * MINUTE });
  await valuesWhen(server, (v) => v.get('inverter_1/model') === 'Three-phase hybrid (LV)', 'the LV model identified');
  await command(server, 'inverter_1', { mode: 'charge', powerW: 2000, targetSoc: 60 });
  assert.equal(words(device, 146, 1)[0]! & 0xff, 0x81, 'use timer (bit 0) and Sunday (bit 7): 23:20 to 23:50');
  assert.equal(words(device, 130, 1)[0]! & 1, 1, 'grid charge enabled');
  assert.deepEqual(words(device, 148, 6), [2320, 2350, 2316, 2317, 2318, 2319], 'from 23:20 (62..64) to 23:50');
  assert.deepEqual(words(device, 154, 6), [2000, 2500, 2500, 2500, 2500, 2500], 'LV: slot power in W');
  assert.deepEqual(words(device, 166, 6), [60, 20, 20, 20, 20, 20]);
  assert.ok(words(device, 128, 1)[0]! >= 30, 'grid charge current from the power');
  assert.deepEqual(words(device, 248, 32), new Array<number>(32).fill(0), 'nothing at the single-phase addresses');
  assert.equal(device.programNow()?.gridChargeToSoc, 60, 'the emulator runs it: the day bit is set');

  const renew = (why: string) => renewCharge(server, clock, device, why);
  assert.deepEqual(
    await renew('23:35, the window reaches 00:05'),
    [
      { address: 149, values: [5] },
      { address: 146, values: [0x83] },
    ],
    'a renewal into a new day: the window end, then Monday (bit 1) added to the timer, last',
  );
  assert.deepEqual(await renew('23:50'), [{ address: 149, values: [20] }], 'within the same days: one register');
  assert.deepEqual(
    await renew('00:05 on Monday'),
    [{ address: 148, values: [5, 35, 1, 2, 3, 4] }],
    "the window would pass an hour (23:20 to 00:35): it starts again at 00:05, in one request; Sunday's bit left as it is",
  );
  assert.equal(device.clock().getDay(), 1, 'Monday on the device');
  assert.equal(device.programNow()?.gridChargeToSoc, 60, 'after midnight still in the window, from 00:05');

  device.clockOffsetMs += 29 * MINUTE;
  assert.equal(device.programNow()?.gridChargeToSoc, 60, '00:34');
  device.clockOffsetMs += MINUTE;
  assert.deepEqual([device.programNow()?.slot, device.programNow()?.gridChargeToSoc], [1, null], 'self-use from 00:35');
  // By the device's calendar alone (the site's clock stands, the lease is not over for the
  // driver): Tuesday at 00:05 runs no program; Monday a week on runs the forced slot again.
  device.clockOffsetMs += DAY - 30 * MINUTE;
  assert.deepEqual([device.clock().getDay(), hhmm(device)], [2, 5], 'Tuesday 00:05');
  assert.equal(device.programNow(), null, 'no program on Tuesday');
  device.clockOffsetMs += 6 * DAY;
  assert.equal(device.programNow()?.gridChargeToSoc, 60, 'Monday a week on, 00:05');
});

test('deye three-phase HV: slot power in tens of W (Discharge 2500 W reads 250), and the emulator caps at 2500 W', async () => {
  const { device, server } = await start({ model: 'three-phase-hv' });
  await valuesWhen(server, (v) => v.get('inverter_1/model') === 'Three-phase hybrid (HV)', 'the HV model identified');
  device.settings.maxDischargeA = 185; // the battery current would allow far more than 2500 W
  await command(server, 'inverter_1', { mode: 'discharge', powerW: 2500, targetSoc: 30 });
  assert.deepEqual(words(device, 154, 6), [250, 250, 250, 250, 250, 250], '2500 W as 250 x 10 W; full power too');
  assert.equal(device.programNow()?.maxDischargeW, 2500);
  assert.equal(device.flowsNow().discharge, 2500, 'selling first: the battery discharges at the slot power, no more');
});

test('deye: no battery control without a battery device, even with config.battery', async () => {
  const { server } = await start({ devices: ['inverter_1'] });
  await assertNoBatteryControl(server, 'inverter_1');
});
