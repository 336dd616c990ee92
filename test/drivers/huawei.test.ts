// The huawei driver in the real server against its emulator (a SUN2000 with a LUNA2000 and a
// power meter on Modbus TCP), checked against wlcrs/huawei-solar-lib: every register is a
// holding register read with function 03 (huawei_solar.py `_read_registers`), one register is
// written with 06 and more with 16 (`_write_registers`); registers.py places the model name at
// 30000 (string, 15 registers), the PV strings at 32016.. (I16, gain 10 and 100), the input
// power at 32064 (I32), the meter's active power at 37113 (I32, + feeding the grid, which
// evcc-io/evcc's huawei-sun2000-hybrid.yaml reads with scale -1), the storage's SOC at 37760
// (U16, gain 10) and its charge/discharge power at 37765 (I32, + charging), the working mode
// at 47086 (StorageWorkingModesC). The library talks to unit 0 on the inverter's own port and
// to the inverter's address (1) behind an SDongle; the emulator answers both. A unit ignores
// requests for a moment after a connection opens (modbus.py WAIT_ON_CONNECT).
import { after, test } from 'node:test';
import { connect, createServer, type AddressInfo } from 'node:net';
import assert from 'node:assert/strict';
import { connectRaw, modbusTcpLength, readHoldingOverTcp } from '@heliograph/plugins-sdk/emulator';
import { startEmulator, type HuaweiDevice } from '@heliograph/plugin-huawei/emulator';
import { assertShown, serveDriver, valuesWhen, write } from './driver-api.js';

const NOON = () => new Date(2026, 5, 21, 12, 0);
const s32 = ([high, low]: number[]) => ((high! << 16) | low!) >> 0;
const s16 = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);

async function start(unitId?: number, connectDelayMs = 50, port?: number) {
  const emulator = await startEmulator({ now: NOON });
  const server = await serveDriver(emulator, {
    plugin: 'huawei',
    devices:
      unitId === undefined ? ['inverter_1', 'battery_1'] : [{ id: 'inverter_1', config: { unitId } }, 'battery_1'],
    connection: { type: 'tcp', host: emulator.host, port: port ?? emulator.port },
    config: { pollIntervalMs: 500, timeoutMs: 400, connectDelayMs },
  });
  return { device: emulator.device, emulator, server };
}

const read = (device: HuaweiDevice, address: number, count = 1) => device.readHoldingRegisters({ address, count });

test('huawei: values at the library addresses with the signs turned to the vocabulary', async () => {
  const { device, server } = await start();
  const values = await valuesWhen(
    server,
    (v) => typeof v.get('battery_1/state_of_charge') === 'number' && typeof v.get('inverter_1/grid_power') === 'number',
    'inverter_1 and battery_1 published',
  );
  const meter = s32(read(device, 37113, 2));
  assert.ok(meter > 0, `at noon the site exports: the meter reads ${meter} W, + feeding the grid`);
  assert.equal(values.get('inverter_1/grid_power'), -meter, 'grid_power + import');
  const battery = s32(read(device, 37765, 2));
  assert.ok(battery > 0, `at noon the LUNA2000 charges: ${battery} W, + charging`);
  assert.equal(values.get('battery_1/power'), battery, 'battery power + charging, as Huawei counts it');
  assert.equal(values.get('inverter_1/battery_power'), battery);
  assert.equal(values.get('battery_1/state_of_charge'), read(device, 37760)[0]! / 10);
  assert.equal(values.get('inverter_1/pv_power'), s32(read(device, 32064, 2)));
  assert.equal(values.get('inverter_1/pv_voltage_1'), s16(read(device, 32016)[0]!) / 10);
  assert.equal(values.get('inverter_1/pv_current_2'), s16(read(device, 32019)[0]!) / 100);
  assert.equal(values.get('inverter_1/output_power'), s32(read(device, 32080, 2)));
  assert.equal(
    values.get('inverter_1/load_power'),
    (values.get('inverter_1/output_power') as number) + (values.get('inverter_1/grid_power') as number),
  );
  assertShown(values, {
    'inverter_1/device_mode': 'On-grid',
    'inverter_1/working_mode': 'Maximise self consumption',
    'battery_1/rated_capacity': 10,
    // The LUNA2000's limits become battery control's: 47075, 47077, 47082 and 37758.
    'inverter_1/battery_max_charge_power': 4800,
    'inverter_1/battery_max_discharge_power': 4500,
    'inverter_1/battery_min_soc': 10,
    'inverter_1/battery_capacity': 10,
  });
});

test('huawei: settings written as the library writes them and read back', async () => {
  const { device, server } = await start();
  await valuesWhen(server, (v) => typeof v.get('inverter_1/working_mode') === 'string', 'a first poll');
  assert.equal((await write(server, 'inverter_1/working_mode', 'Time of use (LUNA2000)')).status, 200);
  assert.equal(read(device, 47086)[0], 5);
  assert.equal((await write(server, 'inverter_1/max_discharging_power', '3000')).status, 200);
  assert.deepEqual(read(device, 47077, 2), [0, 3000]);
  assert.equal((await write(server, 'inverter_1/discharging_cutoff_soc', '15')).status, 200);
  assert.equal(read(device, 47082)[0], 150, 'gain 10');
  assert.equal((await write(server, 'inverter_1/charge_from_grid', 'Disabled')).status, 200);
  assert.equal(read(device, 47087)[0], 0);
  const refused = await write(server, 'inverter_1/charging_cutoff_soc', '80');
  assert.equal(refused.status, 422, 'below the end-of-charge range 90..100 %');
  await valuesWhen(
    server,
    (v) =>
      v.get('inverter_1/working_mode') === 'Time of use (LUNA2000)' &&
      v.get('inverter_1/discharging_cutoff_soc') === 15,
    'the settings read back on the next poll',
  );
});

test("huawei: unit 0, the inverter's own port, as the library's default", async () => {
  const { server } = await start(0);
  const values = await valuesWhen(
    server,
    (v) => typeof v.get('battery_1/state_of_charge') === 'number',
    'battery_1 published',
  );
  assert.equal(values.get('inverter_1/meter_status'), 'Normal');
});

test("the emulator answers huawei-solar-lib's requests: 03 reads on units 0 and 1, 06 and 16 writes, no other unit", async () => {
  const emulator = await startEmulator({ now: NOON });
  after(() => emulator.close());
  const client = await connectRaw({ port: emulator.port });
  after(() => client.close());
  // get(rn.MODEL_NAME): 15 registers from 30000, UTF-8 with trailing NULs.
  for (const unitId of [0, 1]) {
    const words = await readHoldingOverTcp(client, { transaction: 1 + unitId, unitId, address: 30000, count: 15 });
    const text = Buffer.from(words.flatMap((w) => [w >> 8, w & 0xff]))
      .toString('utf8')
      .replace(/\0+$/, '');
    assert.equal(text, 'SUN2000-6KTL-M1');
  }
  // The bridge reads NB_PV_STRINGS, then PV_01..PV_NN in one request.
  const [strings] = await readHoldingOverTcp(client, { transaction: 3, address: 30071, count: 1 });
  assert.equal(strings, 2);
  const pv = await readHoldingOverTcp(client, { transaction: 4, address: 32016, count: 2 * strings });
  assert.ok(pv[0]! > 0 && pv[1]! > 0, `PV_01 voltage and current at noon: ${pv.join(' ')}`);
  // A batch of the storage registers (gap at most 16): capacity .. today's discharge.
  const storage = await readHoldingOverTcp(client, { transaction: 5, address: 37758, count: 30 });
  assert.equal(storage[0]! * 0x10000 + storage[1]!, 10_000, 'STORAGE_RATED_CAPACITY, Wh');
  assert.equal(storage[2], Math.round(emulator.device.soc * 10));
  // set(rn.STORAGE_WORKING_MODE_SETTINGS, TIME_OF_USE_LUNA2000): one register, function 06, echoed.
  const single = Buffer.from([0, 6, 0, 0, 0, 6, 1, 0x06, 0xb7, 0xee, 0, 5]);
  client.send(single);
  assert.deepEqual(await client.read(modbusTcpLength), single);
  assert.equal(emulator.device.workingMode, 5);
  // set(rn.STORAGE_FORCIBLE_CHARGE_POWER, 2500): two registers, function 16.
  client.send(Buffer.from([0, 7, 0, 0, 0, 11, 1, 0x10, 0xb8, 0x8f, 0, 2, 4, 0, 0, 0x09, 0xc4]));
  const reply = await client.read(modbusTcpLength);
  assert.deepEqual([...reply.subarray(7)], [0x10, 0xb8, 0x8f, 0, 2]);
  assert.equal(emulator.device.forcible.chargePower, 2500);
  // A unit nobody answers behind the gateway: exception 0x0B.
  await assert.rejects(
    readHoldingOverTcp(client, { transaction: 8, unitId: 5, address: 30000, count: 1 }),
    /exception 11/,
  );
  // Outside the blocks the unit serves: illegal data address.
  await assert.rejects(readHoldingOverTcp(client, { transaction: 9, address: 36000, count: 1 }), /exception 2/);
});

/**
 * A Huawei unit's port in front of `port`: requests that arrive within `deafMs` of the
 * connection are dropped unanswered, as huawei-solar-lib's `WAIT_ON_CONNECT` works around.
 */
async function deafAtFirst(port: number, deafMs: number) {
  const seen = { dropped: 0, passed: 0 };
  const server = createServer((socket) => {
    const accepted = Date.now();
    const upstream = connect(port, '127.0.0.1');
    upstream.pipe(socket);
    socket.on('data', (chunk) => {
      if (Date.now() - accepted < deafMs) seen.dropped++;
      else {
        seen.passed++;
        upstream.write(chunk);
      }
    });
    socket.on('close', () => upstream.destroy());
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, seen };
}

test('huawei: the first request waits connectDelayMs after the connection opens', async () => {
  const emulator = await startEmulator({ now: NOON });
  after(() => emulator.close());
  const unit = await deafAtFirst(emulator.port, 300);
  const { server } = await start(undefined, 600, unit.port);
  await valuesWhen(server, (v) => typeof v.get('battery_1/state_of_charge') === 'number', 'battery_1 published');
  assert.ok(unit.seen.passed > 0);
  assert.equal(unit.seen.dropped, 0, 'no request sent while the unit still ignores them');
});
