// What real Solarman V5 loggers do beyond the plain request/reply, with the logger side
// written from pysolarmanv5 (its protocol document and its test logger), not from our codec:
// - Deye loggers append two zero bytes after the Modbus CRC ("double CRC": the CRC computed
//   over a frame that already ends in its CRC is 0x0000); pysolarmanv5 strips them when the
//   CRC fails and the frame ends in 00 00.
// - Loggers send heartbeat frames (control code 0x4710) on their own; pysolarmanv5 answers
//   each with a time frame (control 0x1710: the code − 0x3000, payload 00 01, the u32 Unix
//   time and a u32 zero, little-endian) and does not take it for a reply.
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { after, test } from 'node:test';
import { openModbus } from '../../src/connections/index.js';
import { modbusCrc } from '../../src/connections/modbus-frames.js';

/** pysolarmanv5's test heartbeat: length 1, control 0x4710, sequence 8d 69, logger 0xa20ab5b5, payload 00. */
const HEARTBEAT = Buffer.from('a5010010478d69b5b50aa2006415', 'hex');
const LOGGER = 0xa20ab5b5;

function checksum(frame: Buffer): number {
  let sum = 0;
  for (let i = 1; i < frame.length - 2; i++) sum += frame[i]!;
  return sum & 0xff;
}

/** An RTU frame with its CRC appended (low byte first), as umodbus's add_crc does. */
function addCrc(frame: Buffer): Buffer {
  const crc = Buffer.alloc(2);
  crc.writeUInt16LE(modbusCrc(frame));
  return Buffer.concat([frame, crc]);
}

/** A logger's V5 response (control 0x1510) carrying `rtu`, echoing the request's sequence byte. */
function v5Response(request: Buffer, rtu: Buffer): Buffer {
  const payload = Buffer.concat([Buffer.from([0x02, 0x01]), Buffer.alloc(12), rtu]);
  const frame = Buffer.alloc(11 + payload.length + 2);
  frame[0] = 0xa5;
  frame.writeUInt16LE(payload.length, 1);
  frame.writeUInt16LE(0x1510, 3);
  frame[5] = request[5]!;
  frame[6] = 0x33;
  frame.writeUInt32LE(LOGGER, 7);
  payload.copy(frame, 11);
  frame[frame.length - 2] = checksum(frame);
  frame[frame.length - 1] = 0x15;
  return frame;
}

/** The V5 frames in a byte stream, by their length fields. */
function v5Frames(bytes: Buffer): Buffer[] {
  const found: Buffer[] = [];
  for (let at = 0; at + 13 <= bytes.length;) {
    const length = 13 + bytes.readUInt16LE(at + 1);
    found.push(bytes.subarray(at, at + length));
    at += length;
  }
  return found;
}

/** The client's answer to a heartbeat, once the logger has received it (deadline 3 s). */
async function answerTo(logger: { received: Buffer[]; chunks: EventEmitter }): Promise<Buffer> {
  const signal = AbortSignal.timeout(3000);
  for (;;) {
    const found = v5Frames(Buffer.concat(logger.received)).find((f) => f.readUInt16LE(3) === 0x1710);
    if (found) return found;
    await once(logger.chunks, 'chunk', { signal }).catch(() => assert.fail('no answer to the heartbeat within 3 s'));
  }
}

/** A logger answering reads of holding registers with address + i, its RTU frame CRC'd twice. */
async function startLogger(options: { heartbeatFirst: boolean }) {
  const received: Buffer[] = [];
  const chunks = new EventEmitter();
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      chunks.emit('chunk', chunk);
      if (chunk[4] !== 0x45) return; // the client's heartbeat answer: nothing to reply
      const rtu = chunk.subarray(11 + 15, chunk.length - 2);
      const address = rtu.readUInt16BE(2);
      const count = rtu.readUInt16BE(4);
      const pdu = Buffer.alloc(3 + 2 * count);
      pdu[0] = rtu[0]!;
      pdu[1] = 0x03;
      pdu[2] = 2 * count;
      for (let i = 0; i < count; i++) pdu.writeUInt16BE(address + i, 3 + 2 * i);
      const reply = v5Response(chunk, addCrc(addCrc(pdu)));
      socket.write(options.heartbeatFirst ? Buffer.concat([HEARTBEAT, reply]) : reply);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  after(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return { port, received, sockets, chunks };
}

test('a reply with two zero bytes after the Modbus CRC is accepted', async () => {
  const logger = await startLogger({ heartbeatFirst: false });
  const modbus = openModbus({ type: 'solarman', host: '127.0.0.1', port: logger.port, loggerSerial: LOGGER });
  after(() => modbus.release());
  const words = await modbus.readHoldingRegisters({ unitId: 1, address: 586, count: 3, timeoutMs: 2000 });
  assert.deepEqual(words, [586, 587, 588]);
  assert.equal(modbus.link.stats.badFrames, 0);
});

test('a heartbeat before the reply is answered as pysolarmanv5 does, and not counted as a bad frame', async () => {
  const logger = await startLogger({ heartbeatFirst: true });
  const modbus = openModbus({ type: 'solarman', host: '127.0.0.1', port: logger.port, loggerSerial: LOGGER });
  after(() => modbus.release());
  const words = await modbus.readHoldingRegisters({ unitId: 1, address: 100, count: 2, timeoutMs: 2000 });
  assert.deepEqual(words, [100, 101]);
  assert.equal(modbus.link.stats.badFrames, 0, 'the heartbeat is not a bad frame');
  // The answer: control 0x1710, the heartbeat's sequence with its first byte + 1, our serial,
  // payload 00 01 + u32 time + u32 0, a good checksum.
  const frame = await answerTo(logger);
  assert.equal(frame[0], 0xa5);
  assert.equal(frame.readUInt16LE(1), 10);
  assert.equal(frame.readUInt16LE(3), 0x1710);
  assert.equal(frame[5], (HEARTBEAT[5]! + 1) & 0xff);
  assert.equal(frame[6], HEARTBEAT[6]);
  assert.equal(frame.readUInt32LE(7), LOGGER);
  assert.equal(frame.readUInt16LE(11), 0x0100);
  assert.ok(Math.abs(frame.readUInt32LE(13) - Date.now() / 1000) < 60, 'the time field is now');
  assert.equal(frame.readUInt32LE(17), 0);
  assert.equal(frame[frame.length - 2], checksum(frame));
  assert.equal(frame[frame.length - 1], 0x15);

  // A heartbeat while no request is waiting is answered too.
  logger.received.length = 0;
  for (const socket of logger.sockets) socket.write(HEARTBEAT);
  assert.equal((await answerTo(logger)).readUInt16LE(3), 0x1710);
});
