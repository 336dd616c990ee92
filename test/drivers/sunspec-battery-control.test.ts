// Battery control on the sunspec driver in the real server against the SunSpec emulator:
// each mode written through the API becomes model 124's StorCtl_Mod, InWRte, OutWRte and
// ChaGriSet in the emulator with a revert timeout of at most 30 minutes on every forced one,
// its battery follows and is held at the target, every write is audited, refused writes are
// reported, the limits (from model 802) are enforced, and a device without model 124 offers
// no battery control. The lease on the device: a Charge nobody renews ends on the emulator by
// its own clock, a renewal restarts the countdown and writes nothing else, and a forced
// command left on the device is ended (audited) when the driver starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SunSpecDevice } from '@heliograph/plugin-sunspec/emulator';
import { valuesWhen } from './driver-api.js';
import {
  assertEndedAtStartAndStop,
  assertLimitsAndRefusal,
  assertNoBatteryControl,
  assertRunsOutSilently,
  command,
  lastAudited,
  MINUTE,
  NIGHT,
  ownClockRig,
  runToTarget,
  socAfter,
  type WriteLog,
  writesFor,
} from './battery-control.js';
import { floatInverter, modelsOf } from './sunspec-layouts.js';

const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);

/** A SunSpec hybrid on a clock of its own, polled over Modbus TCP. */
const rig = ownClockRig({
  plugin: 'sunspec',
  transport: 'tcp',
  at: NIGHT,
  make: (now) => new SunSpecDevice({ now, soc: 50 }),
  touch: (device) => device.readHoldingRegisters({ address: 40000, count: 2 }),
  socShown: { topic: 'inverter_1/battery_state_of_charge', decimals: 1 },
});
/** The writes `device` took, by their data offset in model 124. */
const offsets = (device: SunSpecDevice & WriteLog) =>
  device.writes.map((w) => ({ offset: w.address - device.storageAddress - 2, values: w.values }));

/**
 * Model 124's control points as the emulator's registers hold them: StorCtl_Mod, OutWRte and
 * InWRte in %, InOutWRte_RvrtTms in s, ChaGriSet.
 */
function controls(device: SunSpecDevice) {
  const data = modelsOf(device).get(124)!.data;
  const pct = (word: number) => signed(word) / 100; // InOutWRte_SF -2
  return { mode: data[3], out: pct(data[10]!), in: pct(data[11]!), revertS: data[13]!, grid: data[15] };
}

/** The controls without the revert timeout, and the timeout checked: 1..1800 s when forced, 0 in normal. */
function commanded(device: SunSpecDevice) {
  const { revertS, ...rest } = controls(device);
  if (rest.mode === 0) assert.equal(revertS, 0, 'Normal clears the revert timeout');
  else assert.ok(revertS > 0 && revertS <= 1800, `a forced command's revert timeout: ${revertS} s`);
  return rest;
}

const NORMAL = { mode: 0, out: 100, in: 100, grid: 0 };

test('sunspec: battery control through model 124; the battery follows and is held at the target', async () => {
  const device = rig.unit();
  const { server } = await rig.start(device);
  const info = await valuesWhen(server, (v) => v.get('inverter_1/battery_capacity') === 10.24, 'limits from model 802');
  assert.equal(info.get('inverter_1/battery_max_charge_power'), 5000);
  assert.equal(info.get('inverter_1/battery_min_soc'), 10, "model 124's MinRsvPct");

  // Charge at 1500 W of WChaMax 3000 W: 50 %, forced through a negative OutWRte, from the grid.
  await command(server, 'inverter_1', { mode: 'charge', powerW: 1500, targetSoc: 53 });
  assert.deepEqual(commanded(device), { mode: 3, out: -50, in: 50, grid: 1 });
  assert.equal((await lastAudited(server, 'inverter_1/battery_control_mode')).result, 'ok');
  const holding = () => controls(device).mode === 2;
  await runToTarget(rig.battery(device, server), [50, 53], 2, {
    now: holding,
    what: 'the driver to hold at the target',
  });
  assert.deepEqual(commanded(device), { mode: 2, out: 0, in: 100, grid: 0 });
  const held = Math.round(device.soc);
  assert.equal(held, 53);
  // Within the hold's revert timeout, which the hold at the target restarted.
  assert.equal(Math.round(await socAfter(rig.battery(device, server), 25)), held, 'held: no discharge at night');

  // Discharge at 2400 W down to 51 %.
  await command(server, 'inverter_1', { mode: 'discharge', powerW: 2400, targetSoc: 51 });
  assert.deepEqual(commanded(device), { mode: 3, out: 80, in: -80, grid: 0 });
  await runToTarget(rig.battery(device, server), [53, 51], 1, { now: holding, what: 'the driver to hold at 51 %' });
  assert.equal(Math.round(device.soc), 51);

  // Hold, then normal: StorCtl_Mod 2 with OutWRte 0, then everything off.
  await command(server, 'inverter_1', { mode: 'hold', powerW: 2400, targetSoc: 51 });
  assert.deepEqual(commanded(device), { mode: 2, out: 0, in: 100, grid: 0 });
  await command(server, 'inverter_1', { mode: 'normal', powerW: 2400, targetSoc: 51 });
  assert.deepEqual(commanded(device), NORMAL);
  assert.ok((await socAfter(rig.battery(device, server), 60)) < 50, 'self-consumption discharges to the night load');

  await assertLimitsAndRefusal(server, 'inverter_1', { maxChargeW: 5000, minSoc: 10 }, () => (device.refuse = true));
});

test("sunspec: a Charge nobody renews ends on the device when its revert timeout runs out by the device's clock", async () => {
  const { device, emulator } = await rig.charging(1500);
  const { revertS } = controls(device);
  assert.ok(revertS > 0 && revertS <= 1800, `the revert timeout written with Charge: ${revertS} s`);
  assert.deepEqual(commanded(device), { mode: 3, out: -50, in: 50, grid: 1 });

  // The link goes silent: nobody renews. The emulator's clock runs on to the timeout's end.
  await assertRunsOutSilently(emulator, rig.battery(device), revertS * 1000, {
    forced: () => assert.equal(controls(device).mode, 3, 'forced until the timeout runs out'),
    back: () =>
      assert.deepEqual(
        controls(device),
        { mode: 0, out: 100, in: 100, revertS, grid: 1 },
        'StorCtl_Mod and both rates back to their defaults on the device, read from its registers',
      ),
    again: 'self-consumption again',
  });
});

test('sunspec: a renewal restarts the countdown on the device and writes nothing but the revert timeout', async () => {
  const { device, server } = await rig.charging(1500);
  const first = controls(device).revertS;
  assert.deepEqual(offsets(device).at(-1), { offset: 3, values: [3] }, 'StorCtl_Mod last');

  rig.clock.advance(20 * MINUTE);
  await writesFor(server, device, 'battery_control_mode', 'Charge');
  assert.equal(device.writes.length, 1, `one request: ${JSON.stringify(device.writes)}`);
  const [renewal] = offsets(device);
  assert.equal(renewal!.offset, 13, 'InOutWRte_RvrtTms');
  assert.ok(renewal!.values[0]! > 1700 && renewal!.values[0]! <= 1800, `the lease's seconds: ${renewal!.values[0]}`);

  // Past the first countdown's end, within the renewed one: still forced.
  rig.clock.advance((first - 20 * 60 + 60) * 1000);
  assert.deepEqual(commanded(device), { mode: 3, out: -50, in: 50, grid: 1 });
  rig.clock.advance(30 * MINUTE);
  assert.equal(controls(device).mode, 0, 'the renewed countdown ran out too');

  // A new power while charging: the rates and the timeout, nothing else.
  await writesFor(server, device, 'battery_control_power', '2400');
  assert.deepEqual(
    offsets(device).map((w) => w.offset),
    [10, 13, 3],
    'the device had reverted: the rates, the timeout and StorCtl_Mod again (ChaGriSet had stayed)',
  );
  await writesFor(server, device, 'battery_control_power', '3000');
  assert.deepEqual(
    offsets(device).map((w) => [w.offset, w.values.length]),
    [
      [10, 2],
      [13, 1],
    ],
  );
  assert.deepEqual(commanded(device), { mode: 3, out: -100, in: 100, grid: 1 });
});

test('sunspec: a forced command left on the device is ended at the start, audited; the stop ends the one in force', async () => {
  const device = rig.unit();
  // Grid charging without a timeout, as the driver used to leave it: StorCtl_Mod 3, OutWRte -100 %.
  Object.assign(device.storage, { mode: 3, outRate: -10000 & 0xffff, inRate: 10000, gridCharge: 1, rvrtTms: 0 });
  const { server } = await rig.start(device);
  await assertEndedAtStartAndStop(server, 'inverter_1', {
    via: 'sunspec',
    read: () => commanded(device),
    normal: NORMAL,
    discharging: { mode: 3, out: 80, in: -80, grid: 0 },
  });
});

test('sunspec: a device without model 124 offers no battery control', async () => {
  const { server } = await rig.start(floatInverter());
  await assertNoBatteryControl(server, 'inverter_1');
});
