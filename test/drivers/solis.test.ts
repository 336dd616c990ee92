// The solis driver in the real server against its emulator over RTU over TCP, a Solarman V5
// logger and Modbus TCP, values checked against raw registers at the addresses of
// ha-solarman's `solis_hybrid.yaml` and Pho3niX90/solis_modbus `hybrid_sensors.py`: input
// 33079-80 inverter active power (s32), 33133 battery voltage (0.1 V), 33135 battery
// direction (0 charging, 1 discharging), 33139 SOC, 33147 house load, 33148 backup load,
// 33149-50 battery power, 33263-64 the meter's total active power (s32, + export: Pho3niX90's
// "Grid Power Net" is its negation); holding 43110 storage control switch (written with 0x06,
// labelled as ha-solarman's lookup). Grid power is the meter's, not house load − AC power:
// the emulator's backup port (33148) is in the house load but not in the grid port's power,
// as the defect "Solis grid power is computed as load - output instead of read from the meter"
// showed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startModbusEmulator } from '@heliograph/plugins-sdk/emulator';
import { DEFAULT_LOGGER_SERIAL, SolisDevice } from '@heliograph/plugin-solis/emulator';
import type { TestServer } from '../helpers/server.js';
import { connectionTo, serveDriver, valuesWhen, write } from './driver-api.js';

const s32 = (high: number, low: number) => ((high << 16) | low) >> 0;

async function start(transport: 'tcp' | 'rtu-over-tcp' | 'solarman', hour: number) {
  const device = new SolisDevice({ now: () => new Date(2026, 5, 21, hour, 0) });
  const emulator = await startModbusEmulator({
    transport,
    units: new Map([[1, device]]),
    loggerSerial: DEFAULT_LOGGER_SERIAL,
  });
  const server = await serveDriver(emulator, {
    plugin: 'solis',
    devices: ['inverter_1', 'battery_1'],
    connection: await connectionTo(
      emulator,
      transport,
      transport === 'solarman' ? { loggerSerial: DEFAULT_LOGGER_SERIAL } : {},
    ),
    config: { pollIntervalMs: 500, timeoutMs: 400 },
  });
  return { device, server };
}

const live = (server: TestServer) =>
  valuesWhen(server, (v) => typeof v.get('battery_1/power') === 'number', 'battery_1/power published');

for (const [transport, hour] of [
  ['rtu-over-tcp', 12],
  ['solarman', 22],
  ['tcp', 12],
] as const) {
  test(`solis over ${transport} at ${hour}:00: signs from the direction register, grid from the meter (+ import), a 0x06 write`, async () => {
    const { device, server } = await start(transport, hour);
    const values = await live(server);
    const input = (address: number, count = 1) => device.readInputRegisters({ address, count });
    const [high, low] = input(33149, 2);
    const direction = input(33135)[0];
    const battery = s32(high!, low!) * (direction === 1 ? -1 : 1);
    assert.equal(values.get('battery_1/power'), battery);
    assert.equal(values.get('inverter_1/battery_power'), battery);
    if (hour === 12) assert.ok(battery > 0, 'charging at noon');
    else assert.ok(battery < 0, 'discharging at night');
    const [meterHigh, meterLow] = input(33263, 2);
    const meter = s32(meterHigh!, meterLow!); // + export
    assert.equal(values.get('inverter_1/grid_power'), -meter || 0, "the meter's total active power, + import");
    if (hour === 12) assert.ok(meter > 0, 'exporting the surplus at noon');
    const [acHigh, acLow] = input(33079, 2);
    assert.equal(values.get('inverter_1/output_power'), s32(acHigh!, acLow!));
    assert.notEqual(input(33147)[0]! - s32(acHigh!, acLow!), -meter, 'house load − AC power is not the grid here');
    assert.equal(values.get('battery_1/state_of_charge'), input(33139)[0]);
    assert.equal(values.get('battery_1/voltage'), input(33133)[0]! / 10);
    assert.equal(values.get('inverter_1/storage_mode'), 'Self Use');
    assert.equal((await write(server, 'inverter_1/storage_mode', 'Time of use')).status, 200);
    assert.equal(device.readHoldingRegisters({ address: 43110, count: 1 })[0], 0x23);
  });
}

test('solis: every value of the storage control switch the sources give reads as its label', async () => {
  const { device, server } = await start('tcp', 12);
  // ha-solarman's lookup, then SolisCloud's combinations (wills106 plugin_solis.py): 35 (0x23) is the usual one.
  for (const [value, label] of [
    [0x00, 'Disabled'],
    [0x23, 'Time of Use'],
    [0x33, 'Optimized Revenue & Backup'],
    [0x60, 'Feed-In Priority'],
    [0x01, 'Self-Use - No Grid Charging'],
    [0x2b, 'Battery Awaken + Timed Charge/Discharge'],
  ] as const) {
    device.writeRegisters({ address: 43110, values: [value] });
    await valuesWhen(
      server,
      (v) => v.get('inverter_1/storage_mode') === label,
      `storage mode ${value} read as ${label}`,
    );
  }
});
