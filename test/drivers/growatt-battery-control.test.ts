// Battery control on the growatt driver in the real server against its emulator, on one manual
// clock: each forced mode is slot 1 of a priority (battery first for Charge and Hold, grid first
// for Discharge) from the unit's time now to at most 30 min ahead by its own clock (holding
// 45..50), as the Growatt Inverter Modbus RTU Protocol v1.24 places them ("Priority set": grid
// first 1070 discharge rate, 1071 stop SOC, slot 1 1080..1082; battery first 1090 charge rate,
// 1091 stop SOC, 1092 AC charge, slot 1 1100..1102; times hour in the high byte, minute in the
// low byte). The emulator runs the slots by its clock and is back in load first by itself when
// nobody renews them; a renewal writes one word (the EEPROM's endurance), a forced slot found at
// the start is ended and audited, a stop writes Normal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import { GrowattDevice, type GrowattDeviceOptions } from '@heliograph/plugin-growatt/emulator';
import { valuesWhen } from './driver-api.js';
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
  command,
  DAY,
  DRIFT_MS,
  MINUTE,
  renewCharge,
  sharedClockStart,
  type SocProbe,
} from './battery-control.js';

const start = sharedClockStart({
  plugin: 'growatt',
  transport: 'tcp',
  unit: 1,
  battery: { capacityKwh: 6.5, maxChargeW: 3000, maxDischargeW: 3000, minSoc: 20 },
  make: (options: GrowattDeviceOptions) => new GrowattDevice(options),
});

/** Holding registers `from`..`from+count-1` as the emulator holds them. */
const words = (device: GrowattDevice, from: number, count = 1) => device.readHoldingRegisters({ address: from, count });
const word = (device: GrowattDevice, address: number) => words(device, address)[0]!;
/** The SOC as input 1014 reads it. */
const soc = (device: GrowattDevice) => device.readInputRegisters({ address: 1014, count: 1 })[0]!;
/** A time word: hour in the high byte, minute in the low byte. */
const hm = (hour: number, minute: number) => (hour << 8) | minute;

/** The SOC at input 1014 on the shared clock, for {@link advance}. */
const battery = (clock: ManualClock, device: GrowattDevice): SocProbe => ({ clock, soc: () => soc(device) });
/** Whether slot 1 of a priority (its switch at `from` + 2) is off, and the slot: what the driver's ending of it waits for. */
const slotOff = (device: GrowattDevice, from: number) => ({
  done: word(device, from + 2) === 0,
  seen: words(device, from, 3),
});

test('growatt: each forced mode is slot 1 of its priority, and the battery follows it', async () => {
  const { clock, device, server } = await start();
  await assertNothingWrittenAtStart(server, 'inverter_1');

  // Charge: battery first from the unit's minute now to 30 min on, AC charge on, at 100 % rate.
  await command(server, 'inverter_1', { mode: 'charge', powerW: 3000, targetSoc: 60 });
  assert.deepEqual(words(device, 1100, 3), [hm(22, 0), hm(22, 30), 1], 'battery first 22:00..22:30, on');
  assert.deepEqual(words(device, 1090, 3), [100, 60, 1], 'charge rate 100 %, stop SOC 60 %, AC charge on');
  assert.equal(word(device, 1082), 0, 'grid first slot 1 off');
  assert.equal(word(device, 1044), 1, 'the unit reports battery first in force');
  await assertModeAudited(server, 'inverter_1', ['ok', 'Charge', 'rest']);

  const charging = await advance(battery(clock, device), 20);
  assert.ok(charging[3]! > 50, `SOC rises: ${charging.join(' ')}`);
  assert.equal(Math.max(...charging), 60, 'stops at the target');
  assert.equal(charging.at(-1), 60);
  await valuesWhen(server, (v) => v.get('battery_1/state_of_charge') === 60, 'battery_1/state_of_charge at 60');

  // Hold: battery first without AC charge; at night nothing charges it and nothing discharges it.
  await command(server, 'inverter_1', { mode: 'hold', powerW: 3000, targetSoc: 60 });
  assert.deepEqual(words(device, 1100, 3), [hm(22, 0), hm(22, 50), 1], 'the same slot, its stop moved');
  assert.equal(word(device, 1092), 0, 'AC charge off');
  assert.deepEqual(new Set(await advance(battery(clock, device), 20)), new Set([60]), 'hold keeps the SOC');

  // Discharge: grid first at 80 % rate (2400 of 3000 W) down to the target, then it stops.
  await command(server, 'inverter_1', { mode: 'discharge', powerW: 2400, targetSoc: 45 });
  assert.deepEqual(words(device, 1080, 3), [hm(22, 40), hm(23, 10), 1], 'grid first 22:40..23:10, on');
  assert.deepEqual(words(device, 1070, 2), [80, 45], 'discharge rate 80 %, stop SOC 45 %');
  assert.equal(word(device, 1102), 0, 'battery first slot 1 off');
  const discharging = await advance(battery(clock, device), 29);
  assert.ok(discharging[5]! < 60, `SOC falls: ${discharging.join(' ')}`);
  assert.equal(Math.min(...discharging), 45, 'stops at the target');

  // Normal: both slots off; load first serves the night load from the battery again.
  await command(server, 'inverter_1', { mode: 'normal', powerW: 2400, targetSoc: 45 });
  assert.deepEqual([word(device, 1082), word(device, 1102)], [0, 0]);
  assert.deepEqual(words(device, 1103, 3), [hm(8, 30), hm(9, 30), 1], "the owner's slot 2 left as it was");
  assert.ok(
    device.writes.every((w) => w.address + w.values.length <= 1103 && w.address >= 1070),
    'nothing written outside 1070..1102',
  );
  const normal = await advance(battery(clock, device), 60);
  assert.ok(normal.at(-1)! < 45, `the night load discharges the battery: ${normal.at(-1)}`);

  // A device that refuses: reported and audited, the mode stays.
  await assertLimitsAndRefusal(server, 'inverter_1', { maxChargeW: 3000, minSoc: 20 }, () => (device.refuse = true));
});

test('growatt: a Charge ends on the device by its own clock within 30 min, with the link silent and the clock drifted', () =>
  // The unit's clock is 3 h 17 min 20 s behind the site's: the slot is placed on its clock.
  assertDriftedChargeRunsOut(start, 3000, {
    placed: (device) => {
      assert.deepEqual(words(device, 45, 6).slice(3, 5), [18, 42], 'the clock registers: 18:42');
      assert.deepEqual(
        words(device, 1100, 3),
        [hm(18, 42), hm(19, 12), 1],
        'from 18:42 (18:42:40 on the unit) to 19:12',
      );
    },
    forced: (device) => {
      assert.equal(device.settings.priority, 1, 'still battery first at 19:11:40');
      assert.ok(device.flowsNow().charge > 0);
    },
    ended: (device) => {
      assert.equal(device.settings.priority, 0, 'at 19:12:40 load first, the unit by itself');
      const flows = device.flowsNow();
      assert.equal(flows.charge, 0, 'no charging');
      assert.ok(flows.grid <= flows.load, 'the grid feeds at most the house');

      // Heliograph gone for good: the slot stays enabled, and the protocol's slots have no date, so
      // it runs again the next day at 18:42 for its 30 min (README: what a lease cannot do); the
      // driver's next start ends it.
      device.clockOffsetMs = DRIFT_MS + DAY + 5 * MINUTE;
      assert.equal(device.settings.priority, 1, 'the next day at 18:47: the slot again');
    },
  }));

test('growatt: a renewal writes one word, the stop; the lease run out, the driver switches slot 1 off', async () => {
  const { clock, device, server } = await start();
  await command(server, 'inverter_1', { mode: 'charge', powerW: 3000, targetSoc: 90 });
  assert.ok(device.writes.splice(0).length > 0);
  const renew = (why: string) => renewCharge(server, clock, device, why);
  assert.deepEqual(await renew('22:15'), [{ address: 1101, values: [hm(22, 45)] }], 'one request, one register');
  assert.deepEqual(await renew('22:30'), [{ address: 1101, values: [hm(23, 0)] }], 'the slot is an hour long');
  assert.deepEqual(
    await renew('22:45'),
    [{ address: 1100, values: [hm(22, 45), hm(23, 15)] }],
    'past an hour the slot starts again from now: two words, one request',
  );

  // Nobody renews; once the lease is over on the site's clock too, slot 1 goes off, so it does
  // not come round again tomorrow at 22:45.
  await assertLeaseEndedByDriver(server, clock, 30, () => slotOff(device, 1100), 'slot 1 switched off after the lease');
  assert.deepEqual(device.writes.splice(0), [{ address: 1102, values: [0] }], 'only the switch');
});

test('growatt: a forced slot found at the start is ended through the write path and audited; a stop writes Normal', async () => {
  const { device, server } = await start({
    prepare: (d) => {
      // Left by an earlier run: battery first with AC charge from 21:50 to 22:20, in force now.
      d.writeRegisters({ address: 1090, values: [100, 90, 1] });
      d.writeRegisters({ address: 1100, values: [hm(21, 50), hm(22, 20), 1] });
      assert.equal(d.settings.priority, 1);
    },
  });
  await assertEndedAtStart(server, 'growatt', () => slotOff(device, 1100), 'slot 1 switched off at the start');
  assert.equal(device.settings.priority, 0, 'load first');

  // A stop while Charge: Normal is written before the connection closes, and audited.
  await assertStopWritesNormal(server, 'growatt', 3000, () => word(device, 1102), [1, 0], 'slot 1 off after the stop');
});

test('growatt: a grid-first slot left for later in the day is ended at the start too, though it is not in force', async () => {
  const { device, server } = await start({
    prepare: (d) => d.writeRegisters({ address: 1080, values: [hm(6, 0), hm(6, 30), 1] }),
  });
  await assertEndedAtStart(
    server,
    'growatt',
    () => slotOff(device, 1080),
    'grid first slot 1 switched off at the start',
  );
  assert.deepEqual(device.writes, [{ address: 1082, values: [0] }], 'the switch only, the times left as found');
});

test('growatt SPA: the same registers; Discharge runs grid first and the AC-coupled battery follows', async () => {
  const { clock, device, server } = await start({ model: 'spa' });
  await valuesWhen(server, (v) => v.get('inverter_1/model') === 'SPA 1000-3000TL BL', 'the SPA identified');
  await command(server, 'inverter_1', { mode: 'discharge', powerW: 3000, targetSoc: 40 });
  assert.deepEqual(words(device, 1070, 2), [100, 40]);
  assert.deepEqual(words(device, 1080, 3), [hm(22, 0), hm(22, 30), 1]);
  assert.equal(device.flowsNow().discharge, 3000, 'grid first at full rate');
  const socs = await advance(battery(clock, device), 20);
  assert.equal(socs.at(-1), 40, `down to the stop SOC: ${socs.join(' ')}`);
});

test('growatt: no battery control without a battery device, even with config.battery', async () => {
  const { server } = await start({ devices: ['inverter_1'] });
  await assertNoBatteryControl(server, 'inverter_1');
});
