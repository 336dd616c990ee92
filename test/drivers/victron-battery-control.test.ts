// Battery control on the victron driver in the real server against the GX emulator: each mode
// written through the API becomes Dynamic ESS schedule slot 0 on unit 100, as
// victronenergy/dbus_modbustcp attributes.csv places it (5423 Mode, 5420 BatteryCapacity x 10,
// 5424 AllowGridFeedIn, 5425 Duration s, 5426 Restrictions, 5427 Soc, 5428 Start int32 unix s,
// 5430 Strategy; the GX's clock at 830, four registers of UTC seconds), with a window that ends
// at most 30 minutes on by the GX's clock; the emulator's battery follows as
// victronenergy/dbus-systemcalc-py delegates/dynamicess.py runs the slot, every write is
// audited, refusals are reported, the limits are enforced. The lease on the device: a Charge
// nobody renews ends by the emulator's own clock, a renewal moves the window's end and writes
// nothing else of it, and a window left on the GX is ended (audited) when the driver starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import type { ModbusDevice, RunningEmulator } from '@heliograph/plugins-sdk/emulator';
import { victronUnits, VictronSite } from '@heliograph/plugin-victron/emulator';
import type { TestServer } from '../helpers/server.js';
import { valuesWhen, write } from './driver-api.js';
import {
  assertLimitsAndRefusal,
  assertNormalAudited,
  command,
  lastAudited,
  MINUTE,
  NIGHT,
  recordWrites,
  type RegisterWrite,
  socAfter,
  type SocProbe,
  startDriver,
  whileSilent,
} from './battery-control.js';

/** The emulator's clock, at night (no PV) at each test's start. */
let clock = new ManualClock(NIGHT);
const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);
const BATTERY = { capacityKwh: 10, maxChargeW: 5000, maxDischargeW: 5000, minSoc: 20 };

interface Gx {
  site: VictronSite;
  system: ModbusDevice;
  server: TestServer;
  emulator: RunningEmulator;
  /** Every write request unit 100 took: its address and words. */
  writes: RegisterWrite[];
}

async function start(prepare: (site: VictronSite) => void = () => undefined): Promise<Gx> {
  const site = new VictronSite({ now: () => new Date(clock.now()), soc: 50 });
  prepare(site);
  const units = victronUnits(site);
  const system = recordWrites(units.get(100)!);
  const { server, emulator } = await startDriver({
    plugin: 'victron',
    id: 'gx',
    devices: ['inverter_1', 'battery_1'],
    config: { pollIntervalMs: 500, timeoutMs: 300, batteryUnit: 225, battery: BATTERY },
    transport: 'tcp',
    units,
  });
  return { site, system, server, emulator, writes: system.writes };
}

/** Slot 0 and Dynamic ESS as the emulator's registers hold them, with the GX's time (s). */
function slot(system: ModbusDevice) {
  const dess = system.readHoldingRegisters({ address: 5420, count: 11 });
  const clockWords = system.readHoldingRegisters({ address: 830, count: 4 });
  const words = system.readHoldingRegisters({ address: 842, count: 1 });
  const grid = system.readHoldingRegisters({ address: 820, count: 3 }).map(signed);
  return {
    capacityKwh: dess[0]! / 10,
    mode: dess[3]!,
    feedIn: dess[4]!,
    durationS: dess[5]!,
    restrictions: dess[6]!,
    soc: dess[7]!,
    start: dess[8]! * 0x10000 + dess[9]!,
    strategy: dess[10]!,
    nowS: clockWords[2]! * 0x10000 + clockWords[3]!,
    batteryW: signed(words[0]!),
    gridW: grid.reduce((a, b) => a + b, 0),
  };
}

/** The slot's command without its window, and the window checked: from now, ending within the lease. */
function commanded(system: ModbusDevice) {
  const s = slot(system);
  if (s.start === 0) return { window: false };
  assert.ok(s.start <= s.nowS && s.start >= s.nowS - 1800, `the window started by now: ${JSON.stringify(s)}`);
  const left = s.start + s.durationS - s.nowS;
  assert.ok(left > 0 && left <= 1800, `the window ends within the lease: ${left} s left`);
  return { window: true, feedIn: s.feedIn, restrictions: s.restrictions, soc: s.soc, strategy: s.strategy };
}

/** The emulator's battery on `clock`, as the server shows it. */
const battery = (gx: Gx): SocProbe => ({
  clock,
  soc: () => {
    gx.system.readHoldingRegisters({ address: 842, count: 1 }); // brings the battery up to the clock's time
    return Math.round(gx.site.soc * 10) / 10;
  },
  shown: { server: gx.server, topic: 'battery_1/state_of_charge' },
});

test('victron: battery control through Dynamic ESS slot 0; the battery follows each mode', async () => {
  clock = new ManualClock(NIGHT);
  const gx = await start();
  const info = await valuesWhen(
    gx.server,
    (v) => v.get('inverter_1/battery_control_lease') === 1800,
    'battery control',
  );
  assert.equal(info.get('inverter_1/battery_capacity'), 10);
  await valuesWhen(gx.server, (v) => v.get('battery_1/state_of_charge') === 50, 'a first SOC');

  // Charge at 3000 W to 80 %: a Target SOC window aiming where 3000 W gets in 30 min (50 + 15 %).
  await command(gx.server, 'inverter_1', { mode: 'charge', powerW: 3000, targetSoc: 80 });
  assert.deepEqual(commanded(gx.system), { window: true, feedIn: 0, restrictions: 0, soc: 65, strategy: 0 });
  const set = slot(gx.system);
  assert.deepEqual([set.mode, set.capacityKwh], [4, 10], 'Dynamic ESS in Node-RED mode with the capacity');
  assert.equal((await lastAudited(gx.server, 'inverter_1/battery_control_mode')).result, 'ok');
  const charging = slot(gx.system);
  assert.ok(charging.batteryW > 2900 && charging.gridW > 2900, `from the grid: ${JSON.stringify(charging)}`);
  const charged = await socAfter(battery(gx), 10);
  assert.ok(charged > 54 && charged < 56, `about 3000 W for 10 min: ${charged} %`);

  // Hold: PV only (grid to battery restricted), nothing discharges at night.
  await command(gx.server, 'inverter_1', { mode: 'hold', powerW: 3000, targetSoc: 80 });
  assert.deepEqual(commanded(gx.system), { window: true, feedIn: 0, restrictions: 2, soc: 100, strategy: 0 });
  assert.equal(await socAfter(battery(gx), 10), charged, 'held: no discharge at night');

  // Discharge at 2000 W to 30 %: to the grid (feed-in allowed), aiming 10 % lower by the end
  // than the SOC Dynamic ESS works with (/Dc/Battery/Soc, 843, whole %).
  const [socNow] = gx.system.readHoldingRegisters({ address: 843, count: 1 });
  await command(gx.server, 'inverter_1', { mode: 'discharge', powerW: 2000, targetSoc: 30 });
  assert.deepEqual(commanded(gx.system), {
    window: true,
    feedIn: 1,
    restrictions: 0,
    soc: socNow! - 10,
    strategy: 0,
  });
  const selling = slot(gx.system);
  assert.ok(selling.batteryW < -1500 && selling.gridW < 0, `to the grid: ${JSON.stringify(selling)}`);
  assert.ok((await socAfter(battery(gx), 10)) < charged - 3, 'discharged');

  // Normal: the window ends (Start 0), the regular ESS covers the night load.
  await command(gx.server, 'inverter_1', { mode: 'normal', powerW: 2000, targetSoc: 30 });
  assert.deepEqual(commanded(gx.system), { window: false });
  const normal = slot(gx.system);
  assert.ok(normal.batteryW < 0 && normal.gridW >= 0, `self-consumption: ${JSON.stringify(normal)}`);

  // A GX whose ESS is under external control cannot run the slot: refused, audited.
  await assertLimitsAndRefusal(
    gx.server,
    'inverter_1',
    { maxChargeW: 5000, minSoc: 20 },
    () => (gx.site.hub4Mode = 3),
    /the device refused.*External control/,
  );
  assert.deepEqual(commanded(gx.system), { window: false }, 'nothing written');

  // Dynamic ESS in Auto: slot 0 is VRM's. A forced command is refused; Normal leaves the slot alone.
  gx.site.hub4Mode = 1;
  const vrm = { mode: 1, start: slot(gx.system).nowS - 60, durationS: 3600, soc: 80, strategy: 0 };
  Object.assign(gx.site.dess, vrm);
  const auto = await write(gx.server, 'inverter_1/battery_control_mode', 'Charge');
  assert.equal(auto.status, 422);
  assert.match(auto.body, /Dynamic ESS runs in Auto/);
  assert.equal((await write(gx.server, 'inverter_1/battery_control_mode', 'Normal')).status, 200);
  const kept = slot(gx.system);
  assert.deepEqual([kept.mode, kept.start, kept.durationS], [1, vrm.start, 3600], "VRM's window untouched");
});

test("victron: a Charge nobody renews ends on the GX when its window ends by the GX's clock", async () => {
  clock = new ManualClock(NIGHT);
  const gx = await start();
  await valuesWhen(gx.server, (v) => v.get('inverter_1/battery_control_lease') === 1800, 'battery control');
  await command(gx.server, 'inverter_1', { mode: 'charge', powerW: 3000, targetSoc: 90 });
  const { start: begun, durationS } = slot(gx.system);
  assert.ok(durationS > 0 && durationS <= 1800, `the window written with Charge: ${durationS} s`);

  // The link goes silent: nobody renews. The emulator's clock runs on to the window's end.
  await whileSilent(gx.emulator, () => {
    gx.site.clockOffsetMs = (begun + durationS / 2) * 1000 - clock.now();
    const half = slot(gx.system);
    assert.ok(half.batteryW > 0 && half.gridW > 0, `halfway, still grid charging: ${JSON.stringify(half)}`);
    gx.site.clockOffsetMs = (begun + durationS + 1) * 1000 - clock.now();
    const after = slot(gx.system);
    assert.equal(after.start, begun, 'the slot stays as written');
    assert.ok(
      after.batteryW < 0,
      `the regular ESS again: the night load discharges the battery ${JSON.stringify(after)}`,
    );
    assert.equal(
      gx.system.readHoldingRegisters({ address: 5404, count: 1 })[0],
      3,
      'Dynamic ESS: No matching schedule',
    );
  });
});

test('victron: a renewal moves the window end and writes nothing else of the slot', async () => {
  clock = new ManualClock(NIGHT);
  const gx = await start();
  await valuesWhen(gx.server, (v) => v.get('inverter_1/battery_control_lease') === 1800, 'battery control');
  await valuesWhen(gx.server, (v) => v.get('battery_1/state_of_charge') === 50, 'a first SOC');
  await command(gx.server, 'inverter_1', { mode: 'hold', powerW: 3000, targetSoc: 90 });
  const first = slot(gx.system);

  clock.advance(20 * MINUTE);
  gx.writes.length = 0;
  assert.equal((await write(gx.server, 'inverter_1/battery_control_mode', 'Hold')).status, 200);
  assert.deepEqual(
    gx.writes.map((w) => w.address),
    [5425],
    `one request, the Duration only: ${JSON.stringify(gx.writes)}`,
  );
  const renewed = slot(gx.system);
  assert.equal(renewed.start, first.start, 'the window keeps its start');
  const left = renewed.start + renewed.durationS - renewed.nowS;
  assert.ok(left > 1790 && left <= 1800, `the window ends a lease from now: ${left} s`);

  // Past the first window's end, within the renewed one: still held.
  gx.site.clockOffsetMs = (first.start + first.durationS + 60) * 1000 - clock.now();
  assert.equal(slot(gx.system).strategy, 0);
  assert.equal(gx.system.readHoldingRegisters({ address: 5400, count: 1 })[0], 1, 'Dynamic ESS active');
});

test('victron: a window left on the GX is ended at the start, audited; the stop ends the one in force', async () => {
  clock = new ManualClock(NIGHT);
  const gx = await start((site) => {
    // Grid charging in slot 0 for two more hours, as another controller (or a crash) left it.
    Object.assign(site.dess, {
      mode: 4,
      capacityTenths: 100,
      start: Math.floor(clock.now() / 1000) - 60,
      durationS: 7200,
      soc: 95,
      strategy: 0,
    });
  });
  await assertNormalAudited(gx.server, 'inverter_1', 'victron');
  assert.deepEqual(commanded(gx.system), { window: false });

  await command(gx.server, 'inverter_1', { mode: 'discharge', powerW: 2000, targetSoc: 30 });
  assert.equal(commanded(gx.system).window, true);
  await gx.server.close();
  assert.deepEqual(commanded(gx.system), { window: false }, 'Normal written at the stop, before the connection closed');
});
