// The goodwe driver in the real server against its emulator, over Modbus RTU in UDP with
// GoodWe's AA 55 reply prefix (and RTU over TCP). Checked against the goodwe library
// (`et.py`, `modbus.py`): the request is a plain RTU frame to unit 0xF7; the reply is AA 55
// then the RTU frame whose CRC covers what follows AA 55; 35140 active power (+ export),
// 35182-83 battery power (s32, + discharging), 37007 SOC; 47000 work mode written with 06.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { startModbusEmulator, startUdpModbusEmulator } from '@heliograph/plugins-sdk/emulator';
import { GoodweDevice } from '@heliograph/plugin-goodwe/emulator';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { valuesWhen, write } from './driver-api.js';

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
  after(() => emulator.close());
  const connection =
    transport === 'udp'
      ? { type: 'rtu-over-udp', host: emulator.host, port: emulator.port, replyPrefix: 'aa55' }
      : { type: 'rtu-over-tcp', host: emulator.host, port: emulator.port };
  const server = await startTestServer({
    bundled: ['goodwe'],
    plugins: [
      {
        id: 'goodwe',
        plugin: 'goodwe',
        devices: ['inverter_1', 'battery_1'],
        config: { connection, pollIntervalMs: 500, timeoutMs: 400 },
      },
    ],
  });
  return { device, emulator, server };
}

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
