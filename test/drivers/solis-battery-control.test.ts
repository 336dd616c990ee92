// Battery control on the solis driver in the real server against the Solis emulator: each
// mode written through the API becomes the inverter's remote control registers (holding 43135
// force 0 none / 1 charge / 2 discharge, 43136 and 43129 the charge and discharge power in
// W / 10, 43282 the RC timeout in minutes: Pho3niX90/solis_modbus `__init__.py` RC_*_REG,
// wills106/homeassistant-solax-modbus `plugin_solis.py` "Battery control override"), with a
// timeout of at most 30 minutes on every forced one; the battery follows and is held at the
// target (a force charge at 0 W), every write is audited, refused writes are reported and the
// limits (from the config) are enforced. The lease on the inverter: a Charge nobody renews is
// dropped by the emulator by its own clock, a renewal writes 43135 alone, and a force left on
// the inverter is ended (audited) when the driver starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import { SolisDevice } from '@heliograph/plugin-solis/emulator';
import { eventually } from '../helpers/child-server.js';
import { within } from '../helpers/deadline.js';
import { valuesWhen, write } from './driver-api.js';
import {
  assertEndedAtStartAndStop,
  assertLimitsAndRefusal,
  assertNoBatteryControl,
  assertRunsOutSilently,
  command,
  lastAudited,
  leaseOffered,
  MINUTE,
  ownClockRig,
  runToTarget,
  recordWrites,
  socAfter,
  writesFor,
} from './battery-control.js';

/** A Solis on a clock of its own from a winter night (no PV), behind an RS485 gateway. */
const rig = ownClockRig({
  plugin: 'solis',
  transport: 'rtu-over-tcp',
  devices: ['inverter_1', 'battery_1'],
  battery: { capacityKwh: 5, maxChargeW: 3000, maxDischargeW: 3000, minSoc: 20 },
  at: new Date(2026, 11, 21, 22, 0).getTime(),
  make: (now) => new SolisDevice({ now, soc: 50 }),
  touch: (device) => device.readInputRegisters({ address: 33139, count: 1 }),
  socShown: { topic: 'battery_1/state_of_charge', decimals: 0 },
});

/** The remote control registers as the emulator holds them: the force, both powers in W, the timeout in minutes. */
function rc(device: SolisDevice) {
  const [discharge, , , , , , mode, charge] = device.readHoldingRegisters({ address: 43129, count: 8 });
  const [timeout] = device.readHoldingRegisters({ address: 43282, count: 1 });
  return { mode: mode!, chargeW: charge! * 10, dischargeW: discharge! * 10, timeoutMin: timeout! };
}

/** The force with its power, the timeout checked: 1..30 minutes when forced. */
function forced(device: SolisDevice) {
  const { mode, chargeW, dischargeW, timeoutMin } = rc(device);
  if (mode !== 0) assert.ok(timeoutMin >= 1 && timeoutMin <= 30, `a force's RC timeout: ${timeoutMin} min`);
  return mode === 1 ? { mode, chargeW } : mode === 2 ? { mode, dischargeW } : { mode };
}

test('solis: battery control through the RC registers; the battery follows and is held at the target', async () => {
  const device = rig.unit();
  const { server } = await rig.start(device);
  const info = await valuesWhen(server, (v) => v.get('inverter_1/battery_capacity') === 5, 'limits from the config');
  assert.equal(info.get('inverter_1/battery_control_lease'), 1800, 'bounded on the inverter');

  // Charge at 1500 W: force charge at 150 × 10 W, from the grid at night.
  await command(server, 'inverter_1', { mode: 'charge', powerW: 1500, targetSoc: 53 });
  assert.deepEqual(forced(device), { mode: 1, chargeW: 1500 });
  assert.equal(rc(device).timeoutMin, 30, "the RC timeout: the lease's 30 minutes");
  assert.equal((await lastAudited(server, 'inverter_1/battery_control_mode')).result, 'ok');
  await runToTarget(rig.battery(device, server), [50, 53], 1, {
    now: () => rc(device).chargeW === 0,
    what: 'the driver to hold at the target',
  });
  assert.deepEqual(forced(device), { mode: 1, chargeW: 0 }, 'a force charge at 0 W');
  const held = Math.round(device.soc);
  assert.equal(held, 53);
  assert.equal(await socAfter(rig.battery(device, server), 25), held, 'held: no discharge at night');

  // Discharge at 2400 W down to 51 %.
  await command(server, 'inverter_1', { mode: 'discharge', powerW: 2400, targetSoc: 51 });
  assert.deepEqual(forced(device), { mode: 2, dischargeW: 2400 });
  const [meterHigh, meterLow] = device.readInputRegisters({ address: 33263, count: 2 });
  assert.ok(((meterHigh! << 16) | meterLow!) >> 0 > 0, 'the surplus over the night load goes to the grid (+ export)');
  await runToTarget(rig.battery(device, server), [53, 51], 1, {
    now: () => rc(device).mode === 1,
    what: 'the driver to hold at 51 %',
  });
  assert.deepEqual(forced(device), { mode: 1, chargeW: 0 });
  assert.equal(Math.round(device.soc), 51);

  // Hold, then normal: the force off, the battery its own self-use again.
  await command(server, 'inverter_1', { mode: 'hold', powerW: 2400, targetSoc: 51 });
  assert.deepEqual(forced(device), { mode: 1, chargeW: 0 });
  await command(server, 'inverter_1', { mode: 'normal', powerW: 2400, targetSoc: 51 });
  assert.deepEqual(forced(device), { mode: 0 });
  assert.ok((await socAfter(rig.battery(device, server), 60)) < 50, 'self-use discharges to the night load');

  await assertLimitsAndRefusal(server, 'inverter_1', { maxChargeW: 3000, minSoc: 20 }, () => (device.refuse = true));
});

test("solis: a Charge nobody renews is dropped by the inverter when its RC timeout runs out by the inverter's clock", async () => {
  const { device, emulator } = await rig.charging(1500);
  const { timeoutMin } = rc(device);
  assert.deepEqual(forced(device), { mode: 1, chargeW: 1500 });

  // The link goes silent: nobody renews. The emulator's clock runs on to the timeout's end.
  await assertRunsOutSilently(emulator, rig.battery(device), timeoutMin * MINUTE, {
    forced: () => assert.equal(rc(device).mode, 1, 'forced until the timeout runs out'),
    back: () =>
      assert.deepEqual(forced(device), { mode: 0 }, '43135 back to 0 on the inverter, read from its registers'),
    again: 'self-use again',
  });
});

test('solis: a renewal writes 43135 alone, which restarts the countdown on the inverter', async () => {
  const { device, server } = await rig.charging(1500);
  assert.deepEqual(
    device.writes.map((w) => w.address),
    [43135, 43136, 43282],
    'the force first, then its power and timeout (Pho3niX90/solis_modbus issue #352)',
  );

  rig.clock.advance(20 * MINUTE);
  await writesFor(server, device, 'battery_control_mode', 'Charge');
  assert.deepEqual(
    device.writes,
    [{ address: 43135, values: [1] }],
    `one register: the force again ${JSON.stringify(device.writes)}`,
  );

  // Past the first countdown's end, within the renewed one: still forced.
  rig.clock.advance(11 * MINUTE);
  assert.deepEqual(forced(device), { mode: 1, chargeW: 1500 });
  rig.clock.advance(20 * MINUTE);
  assert.equal(rc(device).mode, 0, 'the renewed countdown ran out too');

  // A new power while charging: the force and the power, the timeout is still 30.
  await writesFor(server, device, 'battery_control_power', '2400');
  assert.deepEqual(
    device.writes.map((w) => [w.address, w.values[0]]),
    [
      [43135, 1],
      [43136, 240],
    ],
  );
  // A target the battery is above: the charge holds there (a force charge at 0 W).
  assert.equal((await write(server, 'inverter_1/battery_control_target_soc', '30')).status, 200);
  assert.deepEqual(forced(device), { mode: 1, chargeW: 0 });
  await writesFor(server, device, 'battery_control_mode', 'Discharge');
  assert.deepEqual(
    device.writes.map((w) => [w.address, w.values[0]]),
    [
      [43135, 2],
      [43129, 240],
    ],
  );
});

test('solis: a force the firmware drops before its timeout is forced again while the lease runs, never past its end', async () => {
  // One clock for the server and the inverter, so the lease and the RC timeout run together.
  const manual = new ManualClock(Date.parse('2026-12-21T21:00:00Z'));
  const device = recordWrites(new SolisDevice({ now: () => new Date(manual.now()), soc: 50 }));
  const { server, emulator } = await rig.start(device, { clock: manual });
  await leaseOffered(server);
  await command(server, 'inverter_1', { mode: 'charge', powerW: 1500, targetSoc: 90 });
  assert.deepEqual(rc(device), { mode: 1, chargeW: 1500, dischargeW: 0, timeoutMin: 30 });

  // Firmware that ignores 43282 drops the force after about 5 minutes (Pho3niX90/solis_modbus #352).
  manual.advance(5 * MINUTE);
  device.writes = [];
  device.rc.drop();
  // The force goes first and the timeout last: read the registers once the timeout is written.
  await eventually(
    () => Promise.resolve(device.writes.some((w) => w.address === 43282) ? true : undefined),
    'the driver to force the charge again, down to its timeout (43282)',
  );
  assert.deepEqual(rc(device), { mode: 1, chargeW: 1500, dischargeW: 0, timeoutMin: 25 }, "to the lease's end");

  // Past the lease: the inverter drops the force by itself and nobody forces it again.
  manual.advance(25 * MINUTE + 1000);
  assert.equal(rc(device).mode, 0, "dropped by the inverter at the lease's end");
  await valuesWhen(server, (v) => v.get('inverter_1/battery_control_mode') === 'Normal', 'the lapsed lease as Normal');
  device.writes = [];
  manual.advance(2 * MINUTE);
  for (let polls = 0; polls < 3; polls++) await within(emulator.nextRequest(), 'a poll of the driver');
  assert.equal(rc(device).mode, 0);
  assert.deepEqual(device.writes, [], 'nothing written once the lease ended');
});

test('solis: a force left on the inverter is ended at the start, audited; the stop ends the one in force', async () => {
  const device = rig.unit();
  // A force charge at 3 kW someone left with the longest timeout.
  device.writeRegisters({ address: 43282, values: [30] });
  device.writeRegisters({ address: 43136, values: [300] });
  device.writeRegisters({ address: 43135, values: [1] });
  const { server } = await rig.start(device);
  await assertEndedAtStartAndStop(server, 'inverter_1', {
    via: 'solis',
    read: () => forced(device),
    normal: { mode: 0 },
    discharging: { mode: 2, dischargeW: 2400 },
  });
});

test('solis: without the battery in the config no battery control is offered', async () => {
  const { server } = await rig.start(rig.unit(), { battery: null });
  await assertNoBatteryControl(server, 'inverter_1');
});
