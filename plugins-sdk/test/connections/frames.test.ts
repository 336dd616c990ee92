import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as frames from '../../src/connections/modbus-frames.js';
import { parseSolarman, solarmanLength, solarmanRequest } from '../../src/connections/solarman.js';

/** Bytes from a hex string with spaces, as protocol documents print them. */
const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

describe('Modbus and Solarman framing against bytes written out by hand', () => {
  test('RTU: read 10 holding registers from 0 of unit 1 (the Modbus spec example CRC)', () => {
    const frame = frames.rtuFrame(1, frames.readRequestPdu(frames.READ_HOLDING_REGISTERS, 0, 10));
    assert.deepEqual(frame, hex('01 03 00 00 00 0A C5 CD'));
    assert.ok(frames.rtuCrcValid(frame));
    assert.ok(!frames.rtuCrcValid(hex('01 03 00 00 00 0A C5 CE')));
  });

  test('RTU reply lengths come from the function code and byte count', () => {
    assert.equal(frames.rtuReplyLength(hex('01 03 04 00 01 00 02 2A 32')), 9);
    assert.equal(frames.rtuReplyLength(hex('01 03 04 00 01')), -1);
    assert.equal(frames.rtuReplyLength(hex('01 83 02 C0 F1')), 5);
    assert.equal(frames.rtuReplyLength(hex('01 10 00 8E 00 01 00')), -1);
  });

  test('MBAP: transaction id, protocol 0, length, unit, PDU', () => {
    const frame = frames.mbapFrame(0x0102, 1, frames.readRequestPdu(frames.READ_INPUT_REGISTERS, 0x0010, 2));
    assert.deepEqual(frame, hex('01 02 00 00 00 06 01 04 00 10 00 02'));
    assert.equal(frames.mbapLength(frame), 12);
    assert.equal(frames.mbapLength(frame.subarray(0, 9)), -1);
    assert.equal(frames.mbapLength(hex('01 02 00 07 00 06 01 04 00')), 9, 'protocol id not 0: junk, skipped whole');
  });

  test('write multiple registers (0x10) request PDU', () => {
    assert.deepEqual(frames.writeRequestPdu(0x008e, [0x0102, 0xffff]), hex('10 00 8E 00 02 04 01 02 FF FF'));
  });

  test('Solarman V5 request wraps the RTU frame after 15 payload bytes, with checksum and end byte', () => {
    const rtu = hex('01 03 00 00 00 0A C5 CD');
    const frame = solarmanRequest(0xa1b2c3d4, 0x0005, rtu);
    const header = hex('A5 17 00 10 45 05 00 D4 C3 B2 A1');
    const payload = Buffer.concat([hex('02 0000 00000000 00000000 00000000'), rtu]);
    let sum = 0;
    for (const byte of Buffer.concat([header.subarray(1), payload])) sum += byte;
    assert.deepEqual(frame, Buffer.concat([header, payload, Buffer.from([sum & 0xff, 0x15])]));
    assert.equal(solarmanLength(frame), frame.length);
    assert.equal(
      solarmanLength(Buffer.concat([hex('00 11'), frame])),
      2,
      'junk before the start byte is one bad frame',
    );
    assert.equal(parseSolarman(frame)?.loggerSerial, 0xa1b2c3d4);
    frame.writeUInt8(frame.readUInt8(frame.length - 2) ^ 1, frame.length - 2);
    assert.equal(parseSolarman(frame), undefined);
  });
});
