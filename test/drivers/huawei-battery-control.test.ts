// Battery control on the huawei driver in the real server against the SUN2000 emulator: each
// mode written through the API becomes the forcible charge/discharge registers as
// wlcrs/huawei-solar-lib's registers.py places them (47247 / 47249 power U32 W, 47083 period
// in minutes, 47246 setting mode 0 "by duration", 47100 command 0 stop / 1 charge / 2
// discharge) with a period of at most 30 minutes on every forced one; the battery follows and
// is held at the target, every write is audited, refused writes are reported, the limits
// (from the LUNA2000's 37758, 47075, 47077, 47082) are enforced, and a unit without a LUNA2000
// offers no battery control. The lease on the device: a Charge nobody renews ends on the
// emulator by its own clock, a renewal writes the period and the command again and nothing
// else, and a forced command left on the device is ended (audited) when the driver starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HuaweiDevice } from '@heliograph/plugin-huawei/emulator';
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
  NIGHT,
  ownClockRig,
  runToTarget,
  socAfter,
  writesFor,
} from './battery-control.js';

const [PERIOD, COMMAND, SETTING_MODE, CHARGE_W, DISCHARGE_W] = [47083, 47100, 47246, 47247, 47249];

/** A unit that takes a forcible charge power but keeps at most `chargePowerCap` (the read-back then differs). */
class TestHuawei extends HuaweiDevice {
  chargePowerCap = Infinity;
  override writeRegisters(request: { address: number; values: number[] }): void {
    super.writeRegisters(request);
    this.forcible.chargePower = Math.min(this.forcible.chargePower, this.chargePowerCap);
  }
}

/** A SUN2000 on a clock of its own, polled over Modbus TCP. */
const rig = ownClockRig({
  plugin: 'huawei',
  transport: 'tcp',
  config: { connectDelayMs: 20 },
  at: NIGHT,
  make: (now) => new TestHuawei({ now, soc: 50 }),
  touch: (device) => device.readHoldingRegisters({ address: 37760, count: 1 }),
  socShown: { topic: 'inverter_1/battery_state_of_charge', decimals: 1 },
});

/** The forcible registers as the emulator's registers hold them. */
function forcible(device: HuaweiDevice) {
  const words = (address: number, count: number) => device.readHoldingRegisters({ address, count });
  const [period] = words(PERIOD, 1);
  const [command] = words(COMMAND, 1);
  const [settingMode] = words(SETTING_MODE, 1);
  const [ch, cl] = words(CHARGE_W, 2);
  const [dh, dl] = words(DISCHARGE_W, 2);
  return {
    period: period!,
    command: command!,
    settingMode: settingMode!,
    chargeW: ch! * 0x10000 + cl!,
    dischargeW: dh! * 0x10000 + dl!,
  };
}

/** The command with its power, and the period checked: 1..30 min by duration when forced. */
function commanded(device: HuaweiDevice) {
  const f = forcible(device);
  if (f.command !== 0) {
    assert.equal(f.settingMode, 0, 'by duration: the period ends it on the device');
    assert.ok(f.period >= 1 && f.period <= 30, `a forced command's period: ${f.period} min`);
  }
  if (f.command === 1) return { command: 1, chargeW: f.chargeW };
  if (f.command === 2) return { command: 2, dischargeW: f.dischargeW };
  return { command: f.command };
}

const NORMAL = { command: 0 };

test('huawei: battery control through the forcible charge/discharge; the battery follows and is held at the target', async () => {
  const device = rig.unit();
  const { server } = await rig.start(device);
  const info = await valuesWhen(
    server,
    (v) => v.get('inverter_1/battery_capacity') === 10,
    "limits from the LUNA2000's registers",
  );
  assert.equal(info.get('inverter_1/battery_max_charge_power'), 4800, '47075');
  assert.equal(info.get('inverter_1/battery_max_discharge_power'), 4500, '47077');
  assert.equal(info.get('inverter_1/battery_min_soc'), 10, '47082, the end-of-discharge SOC');

  await command(server, 'inverter_1', { mode: 'charge', powerW: 2000, targetSoc: 53 });
  assert.deepEqual(commanded(device), { command: 1, chargeW: 2000 });
  assert.equal((await lastAudited(server, 'inverter_1/battery_control_mode')).result, 'ok');
  const holding = () => forcible(device).command === 2 && forcible(device).dischargeW === 0;
  await runToTarget(rig.battery(device, server), [50, 53], 2, {
    now: holding,
    what: 'the driver to hold at the target (a forcible discharge at 0 W)',
  });
  const held = Math.round(device.soc);
  assert.equal(held, 53);
  assert.equal(Math.round(await socAfter(rig.battery(device, server), 25)), held, 'held: no discharge at night');

  await command(server, 'inverter_1', { mode: 'discharge', powerW: 2400, targetSoc: 51 });
  assert.deepEqual(commanded(device), { command: 2, dischargeW: 2400 });
  await runToTarget(rig.battery(device, server), [53, 51], 1, { now: holding, what: 'the driver to hold at 51 %' });
  assert.equal(Math.round(device.soc), 51);

  await command(server, 'inverter_1', { mode: 'charge', powerW: 2400, targetSoc: 90 });
  assert.deepEqual(commanded(device), { command: 1, chargeW: 2400 });
  await command(server, 'inverter_1', { mode: 'hold', powerW: 2400, targetSoc: 90 });
  assert.deepEqual(commanded(device), { command: 2, dischargeW: 0 });
  await command(server, 'inverter_1', { mode: 'normal', powerW: 2400, targetSoc: 90 });
  assert.deepEqual(commanded(device), NORMAL);
  assert.equal(device.workingMode, 2, "the owner's working mode is left as it was");
  assert.ok((await socAfter(rig.battery(device, server), 60)) < 50, 'self-consumption discharges to the night load');

  await assertLimitsAndRefusal(server, 'inverter_1', { maxChargeW: 4800, minSoc: 10 }, () => (device.refuse = true));
});

test('huawei: a forcible power the unit does not keep is refused, named by its register', async () => {
  const device = rig.unit();
  device.chargePowerCap = 3000;
  const { server } = await rig.start(device);
  await leaseOffered(server);
  assert.equal((await write(server, 'inverter_1/battery_control_power', '4000')).status, 200);
  const refused = await write(server, 'inverter_1/battery_control_mode', 'Charge');
  assert.equal(refused.status, 422);
  assert.match(refused.body, /register 47247\) reads 3000 after writing 4000/);
  const audited = await lastAudited(server, 'inverter_1/battery_control_mode');
  assert.deepEqual([audited.result, audited.new_value], ['error', 'Charge']);
});

test("huawei: a Charge nobody renews ends on the device when its period runs out by the device's clock", async () => {
  const { device, emulator } = await rig.charging(2000);
  const { period } = forcible(device);
  assert.equal(period, 30, 'the whole lease, in minutes');
  assert.deepEqual(commanded(device), { command: 1, chargeW: 2000 });

  // The link goes silent: nobody renews. The emulator's clock runs on to the period's end.
  await assertRunsOutSilently(emulator, rig.battery(device), period * MINUTE, {
    forced: () => assert.equal(forcible(device).command, 1, 'forced until the period runs out'),
    back: () =>
      assert.equal(forcible(device).command, 0, 'the command back to stop on the device, read from its registers'),
    again: 'the working mode again',
  });
});

test('huawei: a renewal restarts the countdown on the device and writes the period and the command only', async () => {
  const { device, server } = await rig.charging(2000);
  assert.deepEqual(
    device.writes.map((w) => w.address),
    [CHARGE_W, PERIOD, COMMAND],
    'the power, the period (the setting mode was already "by duration"), the command last',
  );
  assert.deepEqual(device.writes.at(-1), { address: COMMAND, values: [1] });

  rig.clock.advance(20 * MINUTE);
  await writesFor(server, device, 'battery_control_mode', 'Charge');
  assert.deepEqual(device.writes, [
    { address: PERIOD, values: [30] },
    { address: COMMAND, values: [1] },
  ]);

  // Past the first period's end, within the renewed one: still forced.
  rig.clock.advance(11 * MINUTE);
  assert.deepEqual(commanded(device), { command: 1, chargeW: 2000 });
  rig.clock.advance(20 * MINUTE);
  assert.equal(forcible(device).command, 0, 'the renewed period ran out too');

  // A new power while charging: the power, the period and the command again.
  await writesFor(server, device, 'battery_control_power', '3000');
  assert.deepEqual(
    device.writes.map((w) => w.address),
    [CHARGE_W, PERIOD, COMMAND],
  );
  assert.deepEqual(commanded(device), { command: 1, chargeW: 3000 });
});

test('huawei: a forced command left on the device is ended at the start, audited; the stop ends the one in force', async () => {
  const device = rig.unit();
  // A forcible charge to a SOC, which has no end on the device, left by another tool.
  Object.assign(device.forcible, { command: 1, settingMode: 1, chargePower: 3000, targetSoc: 100 });
  const { server } = await rig.start(device);
  await assertEndedAtStartAndStop(server, 'inverter_1', {
    via: 'huawei',
    read: () => commanded(device),
    normal: NORMAL,
    discharging: { command: 2, dischargeW: 2400 },
  });
});

test('huawei: a unit without a LUNA2000 offers no battery control unless the config describes the battery', async () => {
  const device = rig.unit();
  device.lunaPresent = false;
  const { server } = await rig.start(device);
  await assertNoBatteryControl(server, 'inverter_1');

  const configured = rig.unit();
  configured.lunaPresent = false;
  const { server: other } = await rig.start(configured, {
    battery: { capacityKwh: 5, maxChargeW: 2500, maxDischargeW: 2500, minSoc: 15 },
  });
  const info = await valuesWhen(other, (v) => v.get('inverter_1/battery_capacity') === 5, 'limits from config.battery');
  assert.equal(info.get('inverter_1/battery_min_soc'), 15);
});
