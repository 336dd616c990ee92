// The growatt driver in the real server against its emulator over Modbus TCP, RTU over TCP
// and a serial port. The emulator is built from the driver's own map, so every value is
// also checked against the raw registers read at the addresses and scales of the public
// Growatt Modbus RTU protocol v1.24 (as OpenInverterGateway's SPH notes and the
// sdm_modbus-based Growatt SPH map transcribe it): input 1-2 Ppv, 5-6 Ppv1, 1009-1010
// Pdischarge1, 1011-1012 Pcharge1, 1013 Vbat, 1014 SOC, 1021-1022 Pactouser total,
// 1029-1030 Pactogrid total, 1037-1038 PLocalLoad total (u32 in 0.1 W), 1040 battery
// temperature (s16, 0.1 °C); holding 1044 priority (read-only), 1091 charge stop SOC, 1092 AC
// charge, 608 discharge stop SOC; the VPP protocol's DTC in holding 30000 (Table 3-1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startModbusEmulator } from '@heliograph/plugins-sdk/emulator';
import { GrowattDevice } from '@heliograph/plugin-growatt/emulator';
import { SOCAT_SKIP } from '../helpers/pty-bridge.js';
import { connectionTo, instanceWhen, serveDriver, valuesWhen, write } from './driver-api.js';
import { assertStoragePowers, live, u32Tenths } from './growatt-storage.js';

const clock = new Date(2026, 5, 21, 12, 0);

async function start(transport: 'tcp' | 'rtu-over-tcp' | 'serial') {
  const device = new GrowattDevice({ now: () => clock, serial: 'AB12345678' });
  const emulator = await startModbusEmulator({
    transport: transport === 'serial' ? 'rtu-over-tcp' : transport,
    units: new Map([[1, device]]),
  });
  const server = await serveDriver(emulator, {
    plugin: 'growatt',
    devices: ['inverter_1', 'battery_1'],
    connection: await connectionTo(emulator, transport),
    config: { pollIntervalMs: 500, timeoutMs: 400 },
  });
  return { device, emulator, server };
}

for (const transport of ['tcp', 'rtu-over-tcp', 'serial'] as const) {
  test(
    `growatt over ${transport}: values at the public addresses, signs, identity, writes`,
    {
      skip: transport === 'serial' && SOCAT_SKIP,
    },
    async () => {
      const { device, server } = await start(transport);
      const values = await live(server);
      assertStoragePowers(values, device, 'the emulator charges its battery at noon');
      assert.equal(values.get('inverter_1/pv_power'), u32Tenths(device, 1));
      assert.equal(values.get('inverter_1/pv_power_1'), u32Tenths(device, 5));
      assert.equal(values.get('inverter_1/load_power'), u32Tenths(device, 1037));
      assert.equal(values.get('battery_1/state_of_charge'), device.readInputRegisters({ address: 1014, count: 1 })[0]);
      assert.equal(values.get('battery_1/voltage'), device.readInputRegisters({ address: 1013, count: 1 })[0]! / 10);
      assert.equal(values.get('inverter_1/device_mode'), 'Normal');
      assert.equal(values.get('inverter_1/serial_number'), 'AB12345678');
      assert.equal(values.get('inverter_1/manufacturer'), 'Growatt');
      assert.equal(values.get('inverter_1/model'), 'SPH 3000-6000TL', 'identified by its DTC (holding 30000)');
      assert.equal(
        values.get('battery_1/temperature'),
        device.readInputRegisters({ address: 1040, count: 1 })[0]! / 10,
      );
      assert.equal(values.get('inverter_1/energy_priority'), 'Load first', 'no slot in force');

      assert.ok(
        (await write(server, 'inverter_1/energy_priority', 'Battery first')).status >= 400,
        '1044 is read-only',
      );
      assert.equal(device.readHoldingRegisters({ address: 1044, count: 1 })[0], 0);
      assert.equal((await write(server, 'inverter_1/charge_stop_soc', '80')).status, 200);
      assert.equal(device.readHoldingRegisters({ address: 1091, count: 1 })[0], 80);
      assert.equal((await write(server, 'inverter_1/grid_charge', 'Off')).status, 200);
      assert.equal(device.settings.gridCharge, 0);
      assert.equal((await write(server, 'inverter_1/min_soc', '5')).status >= 400, true, 'below the allowed range');
      await valuesWhen(server, (v) => v.get('inverter_1/charge_stop_soc') === 80, 'the new stop SOC read back');
    },
  );
}

test('growatt: a silent unit is unavailable, then comes back', async () => {
  const { emulator, server } = await start('rtu-over-tcp');
  await live(server);
  emulator.silence(true);
  const silent = await instanceWhen(server, 'growatt', (i) => i.device_status.some((d) => !d.available), 'unavailable');
  assert.match(silent.device_status[0]?.reason ?? '', /no answer from unit 1/);
  emulator.silence(false);
  await instanceWhen(server, 'growatt', (i) => i.device_status.every((d) => d.available), 'back');
});
