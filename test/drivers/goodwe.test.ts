// The goodwe driver in the real server against its emulator, over Modbus RTU in UDP with
// GoodWe's AA 55 reply prefix (and RTU over TCP). Checked against the goodwe library
// (`et.py`, `modbus.py`): the request is a plain RTU frame to unit 0xF7; the reply is AA 55
// then the RTU frame whose CRC covers what follows AA 55; 35140 active power (+ export),
// 35182-83 battery power (s32, + discharging), 37007 SOC; 47000 work mode written with 06.
// And the emulator read end to end as the library (and so Home Assistant's GoodWe
// integration) reads an ET: every request of `read_device_info`, `read_runtime_data` and the
// settings reads, decoded as the library decodes them.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { startModbusEmulator, startUdpModbusEmulator } from '@heliograph/plugins-sdk/emulator';
import { GoodweDevice } from '@heliograph/plugin-goodwe/emulator';
import type { TestServer } from '../helpers/server.js';
import { connectionTo, serveDriver, valuesWhen, write } from './driver-api.js';

const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);

/** CRC-16/MODBUS as goodwe's `_modbus_checksum` computes it. */
function checksum(data: Buffer): number {
  let crc = 0xffff;
  for (const byte of data) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >> 1) ^ 0xa001 : crc >> 1;
  }
  return crc;
}

async function start(transport: 'udp' | 'rtu-over-tcp') {
  const device = new GoodweDevice({ now: () => new Date(2026, 5, 21, 12, 0) });
  const units = new Map([[0xf7, device]]);
  const emulator =
    transport === 'udp'
      ? await startUdpModbusEmulator({ units, replyPrefix: 'aa55' })
      : await startModbusEmulator({ transport: 'rtu-over-tcp', units });
  const server = await serveDriver(emulator, {
    plugin: 'goodwe',
    devices: ['inverter_1', 'battery_1'],
    connection:
      transport === 'udp'
        ? await connectionTo(emulator, 'rtu-over-udp', { replyPrefix: 'aa55' })
        : await connectionTo(emulator, 'rtu-over-tcp'),
    config: { pollIntervalMs: 500, timeoutMs: 400 },
  });
  return { device, emulator, server };
}

/** One request as the goodwe library sends it over UDP, the reply checked and trimmed as it does. */
async function libraryRead(port: number, host: string, address: number, count: number): Promise<Buffer> {
  // modbus.py create_modbus_rtu_request(0xF7, 0x03, offset, count): the RTU frame and its CRC, low byte first.
  const request = Buffer.from([0xf7, 0x03, address >> 8, address & 0xff, count >> 8, count & 0xff]);
  const crc = checksum(request);
  const socket = createSocket('udp4');
  try {
    socket.send(Buffer.concat([request, Buffer.from([crc & 0xff, crc >> 8])]), port, host);
    const [data] = (await once(socket, 'message', { signal: AbortSignal.timeout(3000) })) as [Buffer];
    // modbus.py validate_modbus_rtu_response (lines 164-209): data[3] the command (an exception
    // has the high bit set: RequestRejectedException), data[4] == count * 2, the length data[4]
    // + 7, and the CRC over data[2 : length - 2].
    assert.equal(data[3], 0x03, `read of ${count} from ${address} refused with exception ${data[4]}`);
    assert.equal(data[4], count * 2, `reply length of the read from ${address}`);
    const length = data[4] + 7;
    assert.equal(data.length, length);
    assert.equal(checksum(data.subarray(2, length - 2)), data[length - 2]! + (data[length - 1]! << 8), 'CRC');
    // protocol.py ModbusRtuProtocolCommand.trim_response: raw_response[5:-2].
    return data.subarray(5, length - 2);
  } finally {
    socket.close();
  }
}

/** sensor.py read_datetime: year - 2000, month, day, hour, minute, second; datetime() refuses an impossible one. */
function readDatetime(data: Buffer, at: number): Date {
  const [y, mo, d, h, mi, s] = [...data.subarray(at, at + 6)];
  const date = new Date(2000 + y!, mo! - 1, d, h, mi, s);
  assert.ok(
    mo! >= 1 && mo! <= 12 && date.getDate() === d && h! < 24 && mi! < 60 && s! < 60,
    `a datetime: ${[y, mo, d, h, mi, s].join(' ')}`,
  );
  return date;
}

/** sensor.py Schedule.read_value (EcoModeV2, PeakShavingMode): each field in its range, or ValueError. */
function readSchedule(data: Buffer) {
  const hour = (b: number) => b <= 23 || b === 48 || b === 0xff;
  const minute = (b: number) => b <= 59 || b === 0xff;
  assert.ok(
    hour(data[0]!) && minute(data[1]!) && hour(data[2]!) && minute(data[3]!),
    `schedule times ${[...data.subarray(0, 4)].join(' ')}`,
  );
  const onOff = data.readInt8(4);
  assert.ok((onOff >= -7 && onOff <= 6) || onOff === 85, `on_off ${onOff} (detect_schedule_type)`);
  const power = data.readInt16BE(6);
  if (onOff === 0 || onOff === -1) assert.ok(Math.abs(power) <= 100, `eco power ${power} %`);
  const soc = data.readInt16BE(8);
  assert.ok(soc >= 0 && soc <= 100, `SoC ${soc}`);
  return { onOff, days: data[5], power, soc, months: data.readInt16BE(10) };
}

test("the emulator answers every request of the goodwe library's ET read_device_info, read_runtime_data and settings reads", async () => {
  const device = new GoodweDevice({ now: () => new Date(2026, 5, 21, 12, 0) });
  const emulator = await startUdpModbusEmulator({ units: new Map([[0xf7, device]]), replyPrefix: 'aa55' });
  after(() => emulator.close());
  const read = (address: number, count: number) => libraryRead(emulator.port, emulator.host, address, count);
  const u16 = (data: Buffer, address: number, from: number) => data.readUInt16BE((address - from) * 2);
  const s16 = (data: Buffer, address: number, from: number) => data.readInt16BE((address - from) * 2);
  const u32 = (data: Buffer, address: number, from: number) => data.readUInt32BE((address - from) * 2);
  const s32 = (data: Buffer, address: number, from: number) => data.readInt32BE((address - from) * 2);

  // et.py read_device_info (lines 746-763): _READ_DEVICE_VERSION_INFO = 0x88B8 (35000), 0x21 registers.
  const info = await read(0x88b8, 0x21);
  const ascii = (from: number, to: number) => info.subarray(from, to).toString('ascii').trimEnd();
  const ratedW = info.readUInt16BE(2);
  const serial = ascii(6, 22); // 35003 - 35010
  const model = ascii(22, 32); // 35011 - 35015
  const arm = info.readUInt16BE(38); // 35019
  assert.ok(ratedW >= 3000 && ratedW <= 30_000, `rated power ${ratedW} W`);
  assert.match(serial, /^[0-9A-Z]{16}$/, 'a 16-character serial');
  assert.ok(
    ['ETU', 'ETL', 'ETR', 'BHN', 'EHU', 'BHU', 'EHR', 'BTU'].some((tag) => serial.includes(tag)),
    `model.py ET_MODEL_TAGS in ${serial}`,
  );
  assert.match(model, /^GW\d+K?-E[TH]/, `model name ${model}`);
  assert.ok(info.readUInt16BE(4) <= 2, 'AC output type 0..2');
  assert.match(ascii(42, 54), /^[\x20-\x7e]+$/, 'firmware (35021..)');
  assert.match(ascii(54, 66), /^[\x20-\x7e]+$/, 'ARM firmware (35027..)');
  // Then, to choose the settings (lines 790-806): EcoModeV2 at 47547 (6) and peak shaving at 47589 (6);
  // ARM firmware 19 and 22 answer both.
  assert.ok(arm >= 22, `ARM version ${arm}`);
  readSchedule(await read(47547, 6));
  assert.equal(readSchedule(await read(47589, 6)).onOff, 3, 'peak shaving schedule type (off)');

  // et.py read_runtime_data (lines 815-923): _READ_RUNNING_DATA = 0x891C (35100), 0x7D registers.
  const F = 35100;
  const run = await read(0x891c, 0x7d);
  readDatetime(run, 0); // Timestamp("timestamp", 35100)
  const batteryMode = u16(run, 35184, F);
  // Line 819: self._has_battery = data.get("battery_mode", 0) != 0 (const.py BATTERY_MODES 0 "No battery").
  assert.ok(batteryMode >= 1 && batteryMode <= 5, `battery mode ${batteryMode} in 35184 (0 is "No battery")`);
  const ppv = u32(run, 35105, F) + u32(run, 35109, F);
  const pbattery = s32(run, 35182, F);
  const activePower = s16(run, 35140, F);
  assert.ok(ppv > 0, 'PV at noon');
  assert.equal(batteryMode, pbattery < 0 ? 3 : pbattery > 0 ? 2 : 1, 'battery mode as pbattery1 (+ discharging)');
  // house_consumption = ppv1 + ppv2 + ppv3 + ppv4 + pbattery1 - active_power, as load_ptotal (35172).
  assert.equal(ppv + pbattery - activePower, s16(run, 35172, F), 'house consumption = load');
  assert.equal(u16(run, 35136, F), 1, 'grid mode: connected');
  assert.ok(u16(run, 35121, F) / 10 > 200 && u16(run, 35123, F) / 100 > 49, 'grid voltage and frequency');
  assert.ok(s16(run, 35176, F) / 10 > 0 && s16(run, 35176, F) !== 0x7fff, 'temperature (read_temp: not -1 or 32767)');
  assert.ok(u32(run, 35191, F) >= u32(run, 35193, F), 'total PV >= today');

  // Then the battery: _READ_BATTERY_INFO = 0x9088 (37000), 0x18 registers.
  const bms = await read(0x9088, 0x18);
  const soc = u16(bms, 37007, 37000);
  assert.ok(soc > 0 && soc <= 100, `SOC ${soc}`);
  assert.equal(u16(bms, 37008, 37000), 100, 'SOH');
  assert.ok(bms.readInt16BE(6) / 10 > 0, 'battery temperature (37003)');
  // A GW10K-ET (platform 205, below 15 kW) has no extended meter and no MPPT block (lines
  // 780-787): _READ_METER_DATA = 0x8CA0 (36000), 0x2D registers. Below 25 kW and not a
  // 25KET / 29K9ET: no battery 2 (lines 777-778).
  assert.ok(ratedW < 15_000);
  const meter = await read(0x8ca0, 0x2d);
  assert.equal(u16(meter, 36004, 36000), 1, 'meter communication OK');
  assert.equal(s16(meter, 36008, 36000), activePower, 'the meter total as the inverter active power (+ export)');
  assert.equal(s32(meter, 36025, 36000), activePower, 'Power4S meter_active_power_total');
  assert.ok(u16(meter, 36014, 36000) / 100 > 49, 'meter frequency');
  assert.ok(meter.readFloatBE((36015 - 36000) * 2) / 1000 > 0, 'Float meter_e_total_exp (kWh)');

  // The settings reads (read_settings_data: each setting, (size + size % 2) // 2 registers).
  readDatetime(await read(45200, 3), 0); // Timestamp("time", 45200)
  assert.ok((await read(45132, 2)).readUInt32BE(0) > 0, 'modbus_baud_rate');
  assert.ok((await read(45356, 1)).readUInt16BE(0) <= 100, 'battery_discharge_depth');
  assert.ok((await read(47000, 1)).readUInt16BE(0) <= 5, 'work_mode');
  assert.ok([0, 1].includes((await read(47509, 1)).readUInt16BE(0)), 'grid_export');
  assert.ok((await read(47511, 1)).readUInt16BE(0) >= 1, 'ems_mode (EMSMode from 1)');
  for (const at of [47547, 47553, 47559, 47565]) readSchedule(await read(at, 6)); // EcoModeV2 groups
  for (const at of [47515, 47519, 47523, 47527]) {
    // EcoModeV1.read_value: times, power -100..100, on_off 0 or -1.
    const v1 = await read(at, 4);
    assert.ok([0, -1].includes(v1.readInt8(6)) && Math.abs(v1.readInt16BE(4)) <= 100, `V1 group at ${at}`);
  }
  assert.ok((await read(47542, 2)).length === 4 && (await read(47760, 1)).readUInt16BE(0) <= 100);
  assert.equal((await read(47908, 1)).readUInt16BE(0), soc, 'bms_bat_soc');
});

const live = (server: TestServer) =>
  valuesWhen(server, (v) => typeof v.get('battery_1/state_of_charge') === 'number', 'battery_1 published');

test('the UDP emulator answers a goodwe-library request with AA 55 and a CRC over the rest', async () => {
  const device = new GoodweDevice({ now: () => new Date(2026, 5, 21, 12, 0) });
  const emulator = await startUdpModbusEmulator({ units: new Map([[0xf7, device]]), replyPrefix: 'aa55' });
  after(() => emulator.close());
  // create_modbus_rtu_request(0xF7, 0x03, 0x9088, 0x0018): read 24 registers from 37000.
  const request = Buffer.from([0xf7, 0x03, 0x90, 0x88, 0x00, 0x18]);
  const crc = checksum(request);
  const socket = createSocket('udp4');
  after(() => socket.close());
  socket.send(Buffer.concat([request, Buffer.from([crc & 0xff, crc >> 8])]), emulator.port, emulator.host);
  const [reply] = (await once(socket, 'message', { signal: AbortSignal.timeout(3000) })) as [Buffer];
  assert.deepEqual([...reply.subarray(0, 5)], [0xaa, 0x55, 0xf7, 0x03, 48]);
  assert.equal(reply.length, 48 + 7);
  const end = reply.length - 2;
  assert.equal(checksum(reply.subarray(2, end)), reply[end]! + (reply[end + 1]! << 8));
  assert.equal(reply.readUInt16BE(5 + 2 * 7), device.soc === 0 ? 0 : Math.round(device.soc), 'SOC at 37007');
});

for (const transport of ['udp', 'rtu-over-tcp'] as const) {
  test(`goodwe over ${transport}: signs turned round, values at the library's addresses, 06 writes`, async () => {
    const { device, server } = await start(transport);
    const values = await live(server);
    const read = (address: number, count = 1) => device.readHoldingRegisters({ address, count });
    assert.equal(values.get('inverter_1/grid_power'), -signed(read(35140)[0]!), '+ import');
    const [high, low] = read(35182, 2);
    const deviceBattery = ((high! << 16) | low!) >> 0;
    assert.ok(deviceBattery < 0, 'GoodWe counts charging negative; the emulator charges at noon');
    assert.equal(values.get('battery_1/power'), -deviceBattery, '+ charging');
    assert.equal(values.get('battery_1/state_of_charge'), read(37007)[0]);
    assert.equal(values.get('inverter_1/pv_power'), read(35105, 2)[1]! + read(35109, 2)[1]!);
    assert.equal((await write(server, 'inverter_1/work_mode', 'Eco')).status, 200);
    assert.equal(read(47000)[0], 3);
    assert.equal((await write(server, 'inverter_1/grid_export_limit', '3000')).status, 200);
    assert.equal(read(47510)[0], 3000);
  });
}
