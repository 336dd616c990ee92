// The victron driver in the real server against its GX emulator over Modbus TCP. The
// emulator is built from the driver's maps, so values are also checked against raw registers
// read at the addresses and scale factors of victronenergy/dbus_modbustcp `attributes.csv`:
// unit 100 820-822 /Ac/Grid/Lx/Power (int16), 817-819 consumption, 808-813 and 850 PV,
// 842 /Dc/Battery/Power (int16), 843 Soc; settings 2700 AcPowerSetPoint (int16 W) and 2901
// MinimumSocLimit (factor 10); unit 225 (battery) 259 voltage (factor 100), 266 Soc
// (factor 10); unit 227 (vebus) 31 /State, 33 /Mode (1 Charger Only .. 4 Off).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startModbusEmulator, type ModbusDevice } from '@heliograph/plugins-sdk/emulator';
import { victronUnits, VictronSite } from '@heliograph/plugin-victron/emulator';
import { connectionTo, instanceWhen, serveDriver, valuesWhen, write } from './driver-api.js';

const clock = new Date(2026, 5, 21, 12, 0);
const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);
const read = (unit: ModbusDevice, address: number, count = 1) => unit.readHoldingRegisters({ address, count });

async function start(config: Record<string, unknown>) {
  const site = new VictronSite({ now: () => clock });
  const units = victronUnits(site);
  const emulator = await startModbusEmulator({ transport: 'tcp', units });
  const server = await serveDriver(emulator, {
    plugin: 'victron',
    id: 'gx',
    devices: ['inverter_1', 'battery_1'],
    connection: await connectionTo(emulator, 'tcp'),
    config: { pollIntervalMs: 500, timeoutMs: 400, ...config },
  });
  return { site, units, server, emulator };
}

test('victron GX: system totals at the public addresses, the battery monitor and VE.Bus units, ESS writes', async () => {
  const { site, units, server } = await start({ batteryUnit: 225, vebusUnit: 227 });
  const system = units.get(100)!;
  const values = await valuesWhen(
    server,
    (v) =>
      typeof v.get('battery_1/state_of_charge') === 'number' && typeof v.get('inverter_1/device_mode') === 'string',
    'all three units read',
  );
  const grid = read(system, 820, 3)
    .map(signed)
    .reduce((a, b) => a + b, 0);
  assert.equal(values.get('inverter_1/grid_power'), grid, '+ import');
  assert.equal(
    values.get('inverter_1/load_power'),
    read(system, 817, 3).reduce((a, b) => a + b, 0),
  );
  const pv = read(system, 808, 6).reduce((a, b) => a + b, 0) + read(system, 850)[0]!;
  assert.ok(pv > 0);
  assert.equal(values.get('inverter_1/pv_power'), pv);
  assert.equal(values.get('inverter_1/battery_power'), signed(read(system, 842)[0]!), '+ charging');
  assert.equal(values.get('battery_1/state_of_charge'), read(units.get(225)!, 266)[0]! / 10);
  assert.equal(values.get('battery_1/voltage'), read(units.get(225)!, 259)[0]! / 100);
  assert.equal(values.get('inverter_1/switch_mode'), 'On');
  // Enumerations with attributes.csv's labels: 826 /Ac/ActiveIn/Source, 844 /Dc/Battery/State,
  // 2902 /Settings/CGwacs/Hub4Mode; unit 227's 31 /State.
  assert.equal(values.get('inverter_1/active_input_source'), 'Grid');
  assert.equal(values.get('inverter_1/battery_state'), ['idle', 'charging', 'discharging'][read(system, 844)[0]!]);
  assert.equal(values.get('inverter_1/ess_mode'), 'ESS with Phase Compensation');
  assert.equal(values.get('inverter_1/device_mode'), read(units.get(227)!, 31)[0] === 3 ? 'Bulk' : 'Inverting');
  assert.equal(values.get('inverter_1/serial_number'), 'HQ2207ABCDE');

  assert.equal((await write(server, 'inverter_1/grid_setpoint', '-500')).status, 200);
  assert.equal(signed(read(system, 2700)[0]!), -500);
  assert.equal((await write(server, 'inverter_1/min_soc', '35')).status, 200);
  assert.equal(read(system, 2901)[0], 350);
  assert.equal((await write(server, 'inverter_1/switch_mode', 'Charger Only')).status, 200);
  assert.equal(read(units.get(227)!, 33)[0], 1);
  assert.equal(site.switchMode, 1);
});

test('victron GX without a battery unit takes the battery from the system; a wrong unit id is reported', async () => {
  const { units, server } = await start({});
  const values = await valuesWhen(server, (v) => typeof v.get('battery_1/state_of_charge') === 'number', 'battery');
  assert.equal(values.get('battery_1/state_of_charge'), read(units.get(100)!, 843)[0]);
  assert.equal(values.get('battery_1/voltage'), read(units.get(100)!, 840)[0]! / 10);

  const wrong = await start({ vebusUnit: 99 });
  const failed = await instanceWhen(
    wrong.server,
    'gx',
    (i) => i.device_status.some((d) => !d.available),
    'unit 99 to be reported',
  );
  assert.match(failed.device_status[0]?.reason ?? '', /unit 99|exception 11|did not answer/);
});
