// The sunspec driver against the SunSpec emulator: in the real server over Modbus TCP and
// RTU over TCP (values scaled by their scale factors, signs, identity, a corrupt frame, a
// silent device that records no history and comes back), and in the SDK's test host for
// what the emulator's own layout does not show (the chain at base 0 or 50000, "not
// implemented" points, the float model 111).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startModbusEmulator, type ModbusDevice } from '@heliograph/plugins-sdk/emulator';
import { startTestHost } from '@heliograph/plugins-sdk/testing';
import sunspec from '@heliograph/plugin-sunspec';
import { SunSpecDevice } from '@heliograph/plugin-sunspec/emulator';
import type { TestServer } from '../helpers/server.js';
import { assertSilentUnit, connectionTo, instanceWhen, runningAgain, serveDriver, valuesWhen } from './driver-api.js';
import { floatInverter, modelsOf, RelocatedSunSpec } from './sunspec-layouts.js';

let clock = new Date(2026, 5, 21, 12, 0); // the emulator's clock: noon, the sun at its peak
const now = () => clock;
const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);
const acc32 = (words: number[], at: number) => words[at]! * 0x10000 + words[at + 1]!;

async function startServer(transport: 'tcp' | 'rtu-over-tcp', device: ModbusDevice) {
  const emulator = await startModbusEmulator({ transport, units: new Map([[2, device]]) });
  const server = await serveDriver(emulator, {
    plugin: 'sunspec',
    devices: [{ id: 'inverter_1', config: { unitId: 2 } }, 'battery_1'],
    connection: await connectionTo(emulator, transport),
    config: { pollIntervalMs: 500, timeoutMs: 400 },
  });
  return { emulator, server };
}

const live = (server: TestServer) =>
  valuesWhen(
    server,
    (v) => typeof v.get('inverter_1/pv_power') === 'number' && typeof v.get('battery_1/power') === 'number',
    'inverter_1 and battery_1 to be published',
  );

for (const transport of ['tcp', 'rtu-over-tcp'] as const) {
  test(`sunspec over ${transport}: scaled values, signs, identity, a corrupt frame`, async () => {
    clock = new Date(2026, 5, 21, 12, 0);
    const device = new SunSpecDevice({ now });
    const { emulator, server } = await startServer(transport, device);
    const values = await live(server);
    const models = modelsOf(device);
    const inverter = models.get(101)!.data;
    const mppt = models.get(160)!.data;
    const meter = models.get(203)!.data;
    const battery = models.get(802)!.data;

    // Model 101 with its scale factors (V_SF -1, Hz_SF -2, W_SF 0, Tmp_SF -1, WH_SF 0).
    assert.equal(values.get('inverter_1/grid_voltage'), inverter[8]! / 10);
    assert.equal(values.get('inverter_1/grid_frequency'), inverter[14]! / 100);
    assert.equal(values.get('inverter_1/output_power'), signed(inverter[12]!));
    assert.equal(values.get('inverter_1/temperature'), signed(inverter[31]!) / 10);
    assert.equal(values.get('inverter_1/device_mode'), 'MPPT');
    assert.equal(values.get('inverter_1/ac_energy_total'), acc32(inverter, 22) / 1000);
    // Model 160: two MPPTs (DCA_SF -2, DCV_SF -1, DCW_SF 0), pv_power their sum.
    const string = (n: number, offset: number) => mppt[8 + 20 * (n - 1) + offset]!;
    assert.equal(values.get('inverter_1/pv_power_1'), string(1, 11));
    assert.equal(values.get('inverter_1/pv_voltage_2'), string(2, 10) / 10);
    assert.equal(values.get('inverter_1/pv_current_1'), string(1, 9) / 100);
    assert.equal(values.get('inverter_1/pv_power'), string(1, 11) + string(2, 11));
    // Model 203 (+ import, as grid_power): exporting at noon.
    assert.equal(values.get('inverter_1/grid_power'), signed(meter[16]!));
    assert.ok((values.get('inverter_1/grid_power') as number) < 0, 'grid power − export at noon');
    assert.equal(values.get('inverter_1/grid_import_energy_total'), acc32(meter, 44) / 1000);
    assert.equal(values.get('inverter_1/grid_export_energy_total'), acc32(meter, 36) / 1000);
    assert.equal(
      values.get('inverter_1/load_power'),
      signed(inverter[12]!) + signed(meter[16]!),
      'load = AC output + grid import',
    );
    // Model 802 counts + discharging; Heliograph + charging.
    assert.ok(signed(battery[45]!) < 0, 'the emulator charges its battery at noon');
    assert.equal(values.get('battery_1/power'), -signed(battery[45]!));
    assert.equal(values.get('inverter_1/battery_power'), -signed(battery[45]!));
    assert.equal(values.get('battery_1/current'), -signed(battery[42]!) / 10);
    assert.equal(values.get('battery_1/state_of_charge'), battery[9]! / 10);
    assert.equal(values.get('battery_1/voltage'), battery[32]! / 10);
    assert.equal(values.get('battery_1/cell_voltage_max'), battery[35]! / 1000);
    assert.equal(values.get('battery_1/cycles'), acc32(battery, 12));
    assert.equal(values.get('battery_1/state_of_health'), 98);
    assert.equal(values.get('battery_1/full_capacity'), 200);
    // Model 1 as the identity.
    assert.equal(values.get('inverter_1/manufacturer'), 'Heliograph');
    assert.equal(values.get('inverter_1/model'), 'Emulated Hybrid 5K');
    assert.equal(values.get('inverter_1/serial_number'), 'HG5K-000123');
    assert.equal(values.get('inverter_1/firmware_version'), '1.4.2');

    // Night with the battery held at its reserve: the load comes from the grid (+ import).
    device.storage.minReservePct = 100;
    clock = new Date(2026, 5, 21, 23, 0);
    const night = await valuesWhen(
      server,
      (v) => v.get('inverter_1/device_mode') === 'Sleeping' && (v.get('inverter_1/grid_power') as number) > 0,
      'grid power + import at night',
    );
    assert.equal(night.get('inverter_1/pv_power'), 0);

    // A corrupt frame (a bad CRC, a broken Modbus TCP header) is skipped; reading goes on.
    clock = new Date(2026, 5, 21, 12, 0);
    emulator.corruptNext(1);
    await emulator.nextRequest();
    await live(server);
    await instanceWhen(server, 'sunspec', (i) => i.device_status.every((d) => d.available), 'available again');
  });
}

test('a silent SunSpec device reads null at once, records no history and comes back', async () => {
  clock = new Date(2026, 5, 21, 12, 0);
  const { emulator, server } = await startServer('tcp', new SunSpecDevice({ now }));
  await live(server);
  emulator.silence(true);
  const silentFrom = Date.now();
  const quiet = await assertSilentUnit(server, 'sunspec', 2);
  assert.equal(quiet.get('inverter_1/serial_number'), 'HG5K-000123', 'identity stays');
  // Stay silent past the end of a whole 10-s history slot that began after the silence did.
  const slotAfter = Math.ceil(silentFrom / 10_000) * 10_000;
  while (Date.now() < slotAfter + 10_000) await emulator.nextRequest();
  emulator.silence(false);
  await live(server);
  await runningAgain(server, 'sunspec');
  const range = `from=${new Date(slotAfter).toISOString()}&to=${new Date(slotAfter + 10_000).toISOString()}`;
  const history = (await (await server.api(`/api/v1/history?topic=inverter_1/pv_power&${range}`)).json()) as {
    points: unknown[];
  };
  assert.deepEqual(history.points, [], 'nothing recorded while the device was silent');
});

/** The driver in the SDK's test host against `device` on unit 1 of a Modbus TCP emulator. */
async function hostFor(device: ModbusDevice, devices = ['inverter_1', 'battery_1']) {
  const emulator = await startModbusEmulator({ transport: 'tcp', units: new Map([[1, device]]) });
  after(() => emulator.close());
  const host = await startTestHost({
    plugin: sunspec,
    devices,
    config: { connection: { type: 'tcp', host: emulator.host, port: emulator.port }, timeoutMs: 400 },
  });
  after(() => host.stop());
  return { emulator, host };
}

test('the chain is found at base 0 and at base 50000; not implemented points read null', async () => {
  const device = new SunSpecDevice({ now });
  const blank = [
    { model: 101, offset: 31, words: [0x8000, 0x8000] }, // TmpCab, TmpSnk (int16)
    { model: 101, offset: 15, words: [0x8000] }, // Hz_SF (sunssf)
    { model: 203, offset: 44, words: [0, 0] }, // TotWhImp (acc32)
    { model: 802, offset: 11, words: [0xffff] }, // SoH (uint16)
  ];
  for (const base of [0, 50000]) {
    const relocated = new RelocatedSunSpec(device, base, blank);
    const { host } = await hostFor(relocated);
    await host.runJob('poll');
    relocated.reads = 0;
    await host.runJob('poll');
    assert.equal(relocated.reads, 3, 'a poll reads 101 + 160, 203, and 124 + 802: three requests');
    assert.ok(host.logs.some((line) => line.includes(`SunSpec models 1, 101, 160, 203, 124, 802 from ${base}`)));
    assert.equal(host.identities.get('inverter_1')?.serial, 'HG5K-000123');
    assert.equal(typeof host.value('inverter_1/pv_power'), 'number');
    assert.equal(host.value('inverter_1/grid_voltage'), 230.1);
    assert.equal(host.value('inverter_1/temperature'), null);
    assert.equal(host.value('inverter_1/grid_frequency'), null);
    assert.equal(host.value('inverter_1/grid_import_energy_total'), null);
    assert.equal(typeof host.value('inverter_1/grid_export_energy_total'), 'number');
    assert.equal(host.value('battery_1/state_of_health'), null);
    assert.equal(typeof host.value('battery_1/state_of_charge'), 'number');
  }
});

test('a float-model (111) inverter without meter or battery', async () => {
  const { host } = await hostFor(floatInverter());
  await host.runJob('poll');
  assert.deepEqual(host.identities.get('inverter_1'), {
    manufacturer: 'Fronius',
    model: 'Symo 5.0',
    firmware: '3.14.1',
    serial: 'FR-42',
  });
  assert.equal(host.value('inverter_1/grid_voltage'), 231.5);
  assert.equal(host.value('inverter_1/output_power'), 2500.5);
  assert.equal(host.value('inverter_1/grid_frequency'), 49.98);
  assert.equal(host.value('inverter_1/ac_energy_total'), 1234.567);
  assert.equal(host.value('inverter_1/pv_power'), 2600, 'DCW without a model 160');
  assert.equal(host.value('inverter_1/temperature'), 41.5, 'the heat sink when the cabinet is not implemented');
  assert.equal(host.value('inverter_1/device_mode'), 'Throttled');
  assert.equal(host.value('inverter_1/grid_power') ?? null, null, 'no meter');
  assert.equal(host.value('inverter_1/load_power'), null);
  assert.equal(host.availability.get('battery_1')?.available, false);
  assert.match(host.availability.get('battery_1')?.reason ?? '', /no battery \(SunSpec model 124 or 802\)/);
});

test('no SunSpec marker anywhere: the poll fails saying what to check', async () => {
  const { host } = await hostFor(new RelocatedSunSpec(new SunSpecDevice({ now }), 60000), ['inverter_1']);
  await assert.rejects(host.runJob('poll'), /no SunSpec marker \("SunS"\) at 40000, 0 or 50000.*unitId/);
});
