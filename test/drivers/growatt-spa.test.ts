// The growatt driver reading an SPA (AC-coupled storage, no PV inputs) from the emulator over
// Modbus TCP, RTU over TCP and a serial port, as `heliograph emulate growatt --model spa`
// serves it. The emulator is built from the driver's own map, so every value is also checked
// against the raw registers read at the addresses and scales of the Growatt Modbus RTU
// protocol v1.24 for the SPA type (04: 1000..1124 and 2000..2124, no 0..124; 03: 0..124 and
// 1000..1124): input 2000 inverter status, 2035-2036 Pac, 1009-1010 Pdischarge, 1011-1012
// Pcharge, 1013 Vbat, 1014 SOC, 1021-1022 Pactouser total, 1029-1030 Pactogrid total,
// 1037-1038 PLocalLoad total (u32 in 0.1 W); holding 30000 DTC (the VPP protocol's Table
// 3-1), 1044 priority in force (read-only), 1071 grid-first stop SOC, 1080-1082 grid-first slot
// 1, 1091 battery-first stop SOC, 1092 AC charge, 1100-1102 battery-first slot 1 (hour in the
// high byte, minute in the low byte).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModbusException, startModbusEmulator, type RunningEmulator } from '@heliograph/plugins-sdk/emulator';
import { GrowattDevice, MAX_BATTERY_W, startEmulator } from '@heliograph/plugin-growatt/emulator';
import type { TestServer } from '../helpers/server.js';
import { SOCAT_SKIP } from '../helpers/pty-bridge.js';
import { connectionTo, instanceWhen, serveDriver, valuesWhen, write } from './driver-api.js';
import { assertStoragePowers, live, u32Tenths } from './growatt-storage.js';

const clock = new Date(2026, 5, 21, 12, 0);

/** The server polling `emulator` over `transport` with the growatt driver. */
async function serve(
  emulator: RunningEmulator,
  transport: string,
  config: Record<string, unknown> = {},
): Promise<TestServer> {
  return serveDriver(emulator, {
    plugin: 'growatt',
    devices: ['inverter_1', 'battery_1'],
    connection: await connectionTo(emulator, transport),
    config: { pollIntervalMs: 1000, timeoutMs: 400, ...config },
  });
}

async function start(transport: 'tcp' | 'rtu-over-tcp' | 'serial') {
  const device = new GrowattDevice({ now: () => clock, serial: 'SPA0000042', model: 'spa' });
  const emulator = await startModbusEmulator({
    transport: transport === 'serial' ? 'rtu-over-tcp' : transport,
    units: new Map([[1, device]]),
  });
  return { device, server: await serve(emulator, transport) };
}

const holding = (device: GrowattDevice, address: number) => device.readHoldingRegisters({ address, count: 1 })[0];

for (const transport of ['tcp', 'rtu-over-tcp', 'serial'] as const) {
  test(
    `growatt SPA over ${transport}: identified by its DTC, values at the public addresses, signs, writes`,
    { skip: transport === 'serial' && SOCAT_SKIP },
    async () => {
      const { device, server } = await start(transport);
      const values = await live(server);
      assert.equal(values.get('inverter_1/model'), 'SPA 1000-3000TL BL');
      assert.equal(values.get('inverter_1/serial_number'), 'SPA0000042');
      assert.throws(() => device.readInputRegisters({ address: 0, count: 1 }), ModbusException, 'no input 0..124');
      assert.equal(values.has('inverter_1/pv_power'), false, 'an SPA has no PV inputs');
      assertStoragePowers(values, device, 'the AC-coupled PV surplus charges the battery at noon');
      assert.ok((values.get('inverter_1/grid_power') as number) < 0, 'exporting the rest of the surplus');
      assert.equal(values.get('inverter_1/load_power'), u32Tenths(device, 1037));
      assert.equal(values.get('inverter_1/output_power'), u32Tenths(device, 2035));
      assert.equal(
        values.get('inverter_1/grid_frequency'),
        device.readInputRegisters({ address: 2037, count: 1 })[0]! / 100,
      );
      assert.equal(values.get('battery_1/state_of_charge'), device.readInputRegisters({ address: 1014, count: 1 })[0]);
      assert.equal(
        values.get('battery_1/temperature'),
        device.readInputRegisters({ address: 1040, count: 1 })[0]! / 10,
      );
      assert.equal(values.get('inverter_1/device_mode'), 'Normal');

      assert.ok((await write(server, 'inverter_1/energy_priority', 'Grid first')).status >= 400, '1044 is read-only');
      assert.equal((await write(server, 'inverter_1/grid_first_stop_soc', '30')).status, 200);
      assert.equal(holding(device, 1071), 30);
      assert.equal((await write(server, 'inverter_1/grid_first_stop_soc', '5')).status >= 400, true, 'below 10 %');
      assert.equal((await write(server, 'inverter_1/charge_stop_soc', '90')).status, 200);
      assert.equal(holding(device, 1091), 90);
      assert.equal((await write(server, 'inverter_1/grid_charge', 'On')).status, 200);
      assert.equal(holding(device, 1092), 1);
      assert.equal((await write(server, 'inverter_1/battery_first_slot_1_start_hour', '2')).status, 200);
      assert.equal((await write(server, 'inverter_1/battery_first_slot_1_start_minute', '30')).status, 200);
      assert.equal(holding(device, 1100), (2 << 8) | 30, '02:30 as hour-high, minute-low');
      assert.equal((await write(server, 'inverter_1/battery_first_slot_1_stop_hour', '24')).status >= 400, true);
      assert.equal((await write(server, 'inverter_1/battery_first_slot_1_enabled', 'On')).status, 200);
      assert.equal(holding(device, 1102), 1);
      assert.equal((await write(server, 'inverter_1/battery_first_slot_1_stop_hour', '3')).status, 200);
      assert.equal(holding(device, 1101), 0x0300, 'battery first 02:30..03:00');
      assert.equal((await write(server, 'inverter_1/min_soc', '20')).status >= 400, true, 'the SPH-only 608');
      // Grid first from 11:00 to 13:00 by the unit's clock (noon): the slot puts it in force.
      for (const [name, value] of [
        ['grid_first_slot_1_start_hour', '11'],
        ['grid_first_slot_1_stop_hour', '13'],
        ['grid_first_slot_1_enabled', 'On'],
      ] as const)
        assert.equal((await write(server, `inverter_1/${name}`, value)).status, 200, name);
      assert.deepEqual([holding(device, 1080), holding(device, 1081), holding(device, 1082)], [0x0b00, 0x0d00, 1]);
      const after = await valuesWhen(
        server,
        (v) => v.get('inverter_1/energy_priority') === 'Grid first' && v.get('battery_1/power') === -MAX_BATTERY_W,
        'grid first: the battery discharging at its full rate',
      );
      assert.equal(after.get('inverter_1/battery_first_slot_1_start_minute'), 30);
      assert.equal(holding(device, 1044), 2, 'the priority in force, read-only');
    },
  );
}

test('heliograph emulate growatt --model spa: the SPA family, which the driver identifies on its own', async () => {
  const emulator = await startEmulator({ transport: 'tcp', model: 'spa', now: () => clock });
  const server = await serve(emulator, 'tcp');
  assert.equal(emulator.device.model, 'spa');
  assert.equal(emulator.device.readHoldingRegisters({ address: 30000, count: 1 })[0], 3701);
  const values = await live(server);
  assert.equal(values.get('inverter_1/model'), 'SPA 1000-3000TL BL');
  await assert.rejects(startEmulator({ model: 'spx' }), /spx/);
});

test('an SPA with family "sph" configured is refused naming the code it reports, and nothing is written', async () => {
  const device = new GrowattDevice({ now: () => clock, model: 'spa' });
  const emulator = await startModbusEmulator({ transport: 'tcp', units: new Map([[1, device]]) });
  const server = await serve(emulator, 'tcp', { family: 'sph' });
  const failed = await instanceWhen(server, 'growatt', (i) => i.state === 'failed', 'the instance to fail');
  assert.match(failed.last_error ?? '', /family "sph" is configured, but the unit reports device type code 3701/);
  assert.equal((await write(server, 'inverter_1/charge_stop_soc', '50')).status >= 400, true);
  assert.equal(holding(device, 1091), 98, 'the power-on stop SOC');
});
