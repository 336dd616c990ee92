// The Deye emulator on the wire: real request bytes in, replies checked byte by byte for
// framing and CRC, values that follow the emulator's clock, writes that change what the
// device does, and the test controls (silence, corrupt replies) on every transport.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  connectRawTo,
  hasValidModbusCrc,
  modbusTcpLength,
  readHoldingOverTcp,
  sendUnanswered,
  startModbusEmulator,
  withModbusCrc,
  type RawClient,
} from '@heliograph/plugins-sdk/emulator';
import { startEmulator, DeyeDevice } from '../src/emulator/main.js';

let clock = new Date(2026, 5, 21, 12, 0); // local noon: the sun is at its peak
const now = () => clock;
const toSigned = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);

/** RTU replies to reads (03: byte count + 5), writes (8) and exceptions (5). */
const rtuLength = (buf: Buffer) => {
  if (buf.length < 3) return -1;
  const length = buf[1]! & 0x80 ? 5 : buf[1] === 0x03 ? 5 + buf[2]! : 8;
  return buf.length >= length ? length : -1;
};

function rtuRead(unit: number, address: number, count: number): Buffer {
  const pdu = Buffer.from([unit, 3, 0, 0, 0, 0]);
  pdu.writeUInt16BE(address, 2);
  pdu.writeUInt16BE(count, 4);
  return withModbusCrc(pdu);
}

function readTcp(client: RawClient, transaction: number, address: number, count: number): Promise<number[]> {
  return readHoldingOverTcp(client, { transaction, address, count });
}

/** Registers 0..199, in two reads (a read takes at most 125). */
async function readAll(client: RawClient, tid: number): Promise<number[]> {
  return [...(await readTcp(client, tid, 0, 100)), ...(await readTcp(client, tid + 1000, 100, 100))];
}

const { emulator: tcp, client, close } = await connectRawTo(startEmulator({ now, port: 0 }));
after(close);

test('Modbus TCP: registers follow the sun and add up like a real site', async () => {
  const r = await readAll(client, 1);
  const at = (address: number) => r[address]!;
  assert.equal(at(0), 3, 'device type: single-phase hybrid');
  assert.equal(Buffer.from(r.slice(3, 8).flatMap((w) => [w >> 8, w & 0xff])).toString('ascii'), '2203140123');
  assert.equal(at(184), 60, 'SOC');
  const pv = at(186) + at(187);
  assert.ok(pv > 3000, `PV at noon: ${pv} W`);
  assert.ok(at(109) > 3000 && at(110) > 0, 'PV1 volts and amps');
  const grid = toSigned(at(169));
  const battery = toSigned(at(190));
  assert.ok(grid < 0, 'exporting at noon (+ import on the wire)');
  assert.ok(battery < 0, 'charging at noon (+ discharge on the wire)');
  assert.ok(Math.abs(at(178) - (pv + grid + battery)) <= 2, 'load = PV + grid + battery (device signs), to rounding');
  assert.ok(Math.abs(toSigned(at(191)) / 100 - battery / (at(183) / 100)) < 0.1, 'battery amps = W / V');
  assert.equal((at(182) - 1000) / 10 > 0, true, 'battery temperature (x-1000)/10');
  assert.ok(at(150) > 2200 && at(79) > 4990, 'grid volts x0.1, Hz x0.01');
});

test('Modbus TCP: the battery integrates power and the day counters grow', async () => {
  const before = await readAll(client, 2);
  clock = new Date(2026, 5, 21, 13, 0);
  const later = await readAll(client, 3);
  assert.ok(later[184]! > before[184]!, `SOC rose from ${before[184]} to ${later[184]}`);
  assert.ok(later[108]! > 20, `PV kWh today x0.1: ${later[108]}`);
  assert.ok(later[70]! > 0 && later[77]! > 0, 'battery charge and grid export today');
  clock = new Date(2026, 5, 22, 2, 0);
  const night = await readAll(client, 4);
  assert.equal(night[186]! + night[187]!, 0, 'no PV at night');
  assert.ok(toSigned(night[190]!) > 0, 'the battery feeds the house at night');
  assert.equal(night[108], 0, 'counters reset at midnight');
  clock = new Date(2026, 5, 21, 12, 0);
});

test('Modbus TCP: a write changes behaviour; bad values and addresses get exceptions', async () => {
  // FC16 write of max sell power (245) = 1000 W.
  client.send(Buffer.from([0, 9, 0, 0, 0, 9, 1, 0x10, 0x00, 0xf5, 0x00, 0x01, 0x02, 0x03, 0xe8]));
  assert.deepEqual([...(await client.read(modbusTcpLength))], [0, 9, 0, 0, 0, 6, 1, 0x10, 0x00, 0xf5, 0x00, 0x01]);
  tcp.device.settings.maxChargeA = 0; // a full battery would do the same: everything spare is exported
  const [grid] = await readTcp(client, 10, 169, 1);
  assert.equal(toSigned(grid!), -1000, 'export capped at max sell power');
  // Zero export to CT (244 = 2) stops exporting at all.
  client.send(Buffer.from([0, 11, 0, 0, 0, 6, 1, 0x06, 0x00, 0xf4, 0x00, 0x02]));
  await client.read(modbusTcpLength);
  assert.equal(toSigned((await readTcp(client, 12, 169, 1))[0]!), 0);
  // Energy priority 7 is not a value the device knows: illegal data value.
  client.send(Buffer.from([0, 13, 0, 0, 0, 6, 1, 0x06, 0x00, 0xf3, 0x00, 0x07]));
  assert.deepEqual([...(await client.read(modbusTcpLength))], [0, 13, 0, 0, 0, 3, 1, 0x86, 0x03]);
  // Register 184 (SOC) is read-only: illegal data address. So is reading past the map.
  client.send(Buffer.from([0, 14, 0, 0, 0, 6, 1, 0x06, 0x00, 0xb8, 0x00, 0x32]));
  assert.deepEqual([...(await client.read(modbusTcpLength))], [0, 14, 0, 0, 0, 3, 1, 0x86, 0x02]);
  // Real units answer up to 611 (BMS registers 603, 611); past the emulated range is illegal.
  assert.equal((await readTcp(client, 15, 603, 9)).length, 9);
  await assert.rejects(readTcp(client, 16, 999, 2), /exception 2/);
  Object.assign(tcp.device.settings, { maxChargeA: 50, workMode: 0, maxSellW: 5000 });
});

test('Modbus TCP: silence drops requests, corruption breaks the next reply only', async () => {
  await sendUnanswered(tcp, client, Buffer.from([0, 20, 0, 0, 0, 6, 1, 3, 0, 0xb8, 0, 1]));
  // Had request 20 been answered, this read would get its reply and reject.
  assert.equal((await readTcp(client, 21, 184, 1)).length, 1, 'the silenced request got no answer');
  tcp.corruptNext(1);
  await assert.rejects(readTcp(client, 22, 184, 1), /does not match/, 'corrupt: protocol id not 0');
  assert.equal((await readTcp(client, 23, 184, 1)).length, 1, 'the next reply is sound');
});

test('RTU over TCP: the real request bytes, CRC checked both ways, silence and corruption', async (t) => {
  const {
    emulator: rtu,
    client: c,
    close: closeRtu,
  } = await connectRawTo(startEmulator({ now, transport: 'rtu-over-tcp' }));
  t.after(closeRtu);
  const request = Buffer.from('010300b8000104' + '2f', 'hex'); // read SOC from unit 1
  assert.deepEqual(rtuRead(1, 184, 1), request);
  c.send(request);
  const reply = await c.read(rtuLength);
  assert.ok(hasValidModbusCrc(reply));
  assert.deepEqual([...reply.subarray(0, 5)], [1, 3, 2, 0, 60]);
  // A request with a bad CRC is ignored, as on a serial bus; so is another unit's.
  c.send(Buffer.from('010300b8000104ff', 'hex'));
  c.send(rtuRead(7, 184, 1));
  c.send(rtuRead(1, 183, 2));
  assert.equal((await c.read(rtuLength))[2], 4, 'only the last request was answered');
  rtu.corruptNext(1);
  c.send(request);
  assert.equal(hasValidModbusCrc(await c.read(rtuLength)), false);
  await sendUnanswered(rtu, c, request);
  c.send(rtuRead(1, 183, 2));
  const next = await c.read(rtuLength);
  assert.ok(hasValidModbusCrc(next));
  assert.equal(next[2], 4, 'the silenced request got no answer');
});

/** A Solarman V5 request around an RTU frame, as a driver sends it to an LSW-3 logger. */
function solarmanRequest(serial: number, sequence: number, rtuFrame: Buffer): Buffer {
  const frame = Buffer.alloc(11 + 15 + rtuFrame.length + 2);
  frame[0] = 0xa5;
  frame.writeUInt16LE(15 + rtuFrame.length, 1);
  frame.writeUInt16LE(0x4510, 3);
  frame.writeUInt16LE(sequence, 5);
  frame.writeUInt32LE(serial, 7);
  frame[11] = 0x02;
  rtuFrame.copy(frame, 26);
  let sum = 0;
  for (let i = 1; i < frame.length - 2; i++) sum += frame[i]!;
  frame[frame.length - 2] = sum & 0xff;
  frame[frame.length - 1] = 0x15;
  return frame;
}
const v5Length = (buf: Buffer) =>
  buf.length >= 3 && buf.length >= 13 + buf.readUInt16LE(1) ? 13 + buf.readUInt16LE(1) : -1;
const v5ChecksumOk = (frame: Buffer) => {
  let sum = 0;
  for (let i = 1; i < frame.length - 2; i++) sum += frame[i]!;
  return frame[frame.length - 2] === (sum & 0xff) && frame[frame.length - 1] === 0x15;
};

test('Solarman V5: logger serial and checksum checked, the RTU reply wrapped', async (t) => {
  const serial = 1234567890;
  const {
    emulator: logger,
    client: c,
    close,
  } = await connectRawTo(startEmulator({ now, transport: 'solarman', loggerSerial: serial }));
  t.after(close);
  c.send(solarmanRequest(serial, 0x0142, rtuRead(1, 184, 1)));
  const reply = await c.read(v5Length);
  assert.equal(reply[0], 0xa5);
  assert.equal(reply.readUInt16LE(3), 0x1510, 'reply control code');
  assert.equal(reply[5], 0x42, 'sequence low byte echoed');
  assert.equal(reply.readUInt32LE(7), serial);
  assert.deepEqual([...reply.subarray(11, 13)], [0x02, 0x01], 'frame type, status');
  assert.ok(v5ChecksumOk(reply));
  const rtuReply = reply.subarray(25, -2);
  assert.ok(hasValidModbusCrc(rtuReply));
  assert.deepEqual([...rtuReply.subarray(0, 5)], [1, 3, 2, 0, 60]);
  // Another logger's serial, or a broken checksum: no answer.
  c.send(solarmanRequest(serial + 1, 1, rtuRead(1, 184, 1)));
  const broken = solarmanRequest(serial, 2, rtuRead(1, 184, 1));
  broken[broken.length - 2]! ^= 0xff;
  c.send(broken);
  c.send(solarmanRequest(serial, 3, rtuRead(1, 183, 2)));
  assert.equal((await c.read(v5Length))[5], 3, 'only the sound request was answered');
  logger.corruptNext(1);
  c.send(solarmanRequest(serial, 4, rtuRead(1, 184, 1)));
  assert.equal(v5ChecksumOk(await c.read(v5Length)), false);
  c.send(solarmanRequest(serial, 5, rtuRead(1, 184, 1)));
  assert.ok(v5ChecksumOk(await c.read(v5Length)));
});

test('a gateway hosts two inverters on one RTU-over-TCP bus by unit id', async (t) => {
  const units = new Map([
    [1, new DeyeDevice({ now, soc: 30, serial: '2203140001' })],
    [2, new DeyeDevice({ now, soc: 80, serial: '2203140002' })],
  ]);
  const { client: c, close } = await connectRawTo(startModbusEmulator({ transport: 'rtu-over-tcp', units }));
  t.after(close);
  c.send(rtuRead(1, 184, 1));
  assert.deepEqual([...(await c.read(rtuLength)).subarray(0, 5)], [1, 3, 2, 0, 30]);
  c.send(rtuRead(2, 184, 1));
  assert.deepEqual([...(await c.read(rtuLength)).subarray(0, 5)], [2, 3, 2, 0, 80]);
});
