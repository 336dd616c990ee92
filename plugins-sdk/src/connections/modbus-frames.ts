/*
 * Modbus framing, both directions: the PDU (function code and data), the RTU ADU (unit id,
 * PDU, CRC16/MODBUS little-endian) and the TCP ADU (MBAP header: transaction id, protocol 0,
 * length, unit id). Pure functions on Buffers, so a test device can speak the same format.
 */
import crc16modbus from 'crc/crc16modbus';

/** Function codes this client uses. */
export const READ_HOLDING_REGISTERS = 0x03;
export const READ_INPUT_REGISTERS = 0x04;
export const WRITE_MULTIPLE_REGISTERS = 0x10;

/** The standard exception codes, for messages. */
const EXCEPTION_NAMES: Record<number, string> = {
  1: 'illegal function',
  2: 'illegal data address',
  3: 'illegal data value',
  4: 'server device failure',
  5: 'acknowledge',
  6: 'server device busy',
  8: 'memory parity error',
  10: 'gateway path unavailable',
  11: 'gateway target device failed to respond',
};

/** `Modbus exception 2 (illegal data address)`. */
export function describeException(code: number): string {
  const name = EXCEPTION_NAMES[code];
  return `Modbus exception ${code}${name ? ` (${name})` : ''}`;
}

/** A read request PDU: function code, start address, register count. */
export function readRequestPdu(functionCode: number, address: number, count: number): Buffer {
  const pdu = Buffer.alloc(5);
  pdu.writeUInt8(functionCode, 0);
  pdu.writeUInt16BE(address, 1);
  pdu.writeUInt16BE(count, 3);
  return pdu;
}

/** Function code 0x06: write one register. */
export const WRITE_SINGLE_REGISTER = 0x06;

/** A write-single-register (0x06) request PDU; the device echoes it. */
export function writeSingleRequestPdu(address: number, value: number): Buffer {
  const pdu = Buffer.alloc(5);
  pdu.writeUInt8(WRITE_SINGLE_REGISTER, 0);
  pdu.writeUInt16BE(address, 1);
  pdu.writeUInt16BE(value & 0xffff, 3);
  return pdu;
}

/** A write-multiple-registers (0x10) request PDU. */
export function writeRequestPdu(address: number, values: readonly number[]): Buffer {
  const pdu = Buffer.alloc(6 + values.length * 2);
  pdu.writeUInt8(WRITE_MULTIPLE_REGISTERS, 0);
  pdu.writeUInt16BE(address, 1);
  pdu.writeUInt16BE(values.length, 3);
  pdu.writeUInt8(values.length * 2, 5);
  values.forEach((value, i) => pdu.writeUInt16BE(value & 0xffff, 6 + i * 2));
  return pdu;
}

/** A reply PDU: what the device answered, or the exception code it answered with. */
export type ReplyPdu = { functionCode: number; data: Buffer } | { functionCode: number; exception: number };

/** Splits a reply PDU into its function code and data, or its exception (function | 0x80). */
export function parseReplyPdu(pdu: Buffer): ReplyPdu {
  const functionCode = pdu.readUInt8(0);
  if (functionCode & 0x80) return { functionCode: functionCode & 0x7f, exception: pdu.readUInt8(1) };
  return { functionCode, data: pdu.subarray(1) };
}

/** Registers of a read reply's data (byte count, then big-endian words). */
export function registersOf(data: Buffer): number[] {
  const count = data.readUInt8(0) / 2;
  return Array.from({ length: count }, (_, i) => data.readUInt16BE(1 + i * 2));
}

/** CRC16/MODBUS of `bytes`. */
export function modbusCrc(bytes: Buffer): number {
  return crc16modbus(bytes);
}

/** An RTU ADU: unit id, PDU, CRC16/MODBUS (low byte first). */
export function rtuFrame(unitId: number, pdu: Buffer): Buffer {
  const frame = Buffer.alloc(pdu.length + 3);
  frame.writeUInt8(unitId, 0);
  pdu.copy(frame, 1);
  frame.writeUInt16LE(modbusCrc(frame.subarray(0, frame.length - 2)), frame.length - 2);
  return frame;
}

/** Whether an RTU ADU's CRC matches its content. */
export function rtuCrcValid(frame: Buffer): boolean {
  return frame.length >= 4 && frame.readUInt16LE(frame.length - 2) === modbusCrc(frame.subarray(0, frame.length - 2));
}

/**
 * Length of the RTU reply at the start of `buf`, judged from its function code and byte
 * count, or -1 while more bytes are needed. An unknown function code counts as one frame
 * of everything received, so the link skips it as a bad frame.
 */
export function rtuReplyLength(buf: Buffer): number {
  if (buf.length < 3) return -1;
  const functionCode = buf.readUInt8(1);
  let length: number;
  if (functionCode & 0x80) length = 5;
  else if (functionCode === READ_HOLDING_REGISTERS || functionCode === READ_INPUT_REGISTERS)
    length = 5 + buf.readUInt8(2);
  else if (functionCode === WRITE_MULTIPLE_REGISTERS || functionCode === 0x06) length = 8;
  else return buf.length;
  return buf.length >= length ? length : -1;
}

/**
 * Length of the RTU request at the start of `buf` (for a device answering requests), or -1
 * while more bytes are needed.
 */
export function rtuRequestLength(buf: Buffer): number {
  if (buf.length < 7) return -1;
  const functionCode = buf.readUInt8(1);
  const length = functionCode === WRITE_MULTIPLE_REGISTERS ? 9 + buf.readUInt8(6) : 8;
  return buf.length >= length ? length : -1;
}

/** A Modbus TCP ADU: MBAP header (transaction id, protocol 0, length, unit id) and the PDU. */
export function mbapFrame(transactionId: number, unitId: number, pdu: Buffer): Buffer {
  const frame = Buffer.alloc(7 + pdu.length);
  frame.writeUInt16BE(transactionId & 0xffff, 0);
  frame.writeUInt16BE(0, 2);
  frame.writeUInt16BE(pdu.length + 1, 4);
  frame.writeUInt8(unitId, 6);
  pdu.copy(frame, 7);
  return frame;
}

/**
 * Length of the MBAP frame at the start of `buf`, or -1 while more bytes are needed. Bytes
 * that cannot start a frame (protocol id not 0, absurd length) count as one frame of
 * everything received, so the link skips them as a bad frame.
 */
export function mbapLength(buf: Buffer): number {
  if (buf.length < 7) return -1;
  const length = buf.readUInt16BE(4);
  if (buf.readUInt16BE(2) !== 0 || length < 2 || length > 254) return buf.length;
  return buf.length >= 6 + length ? 6 + length : -1;
}

/** The parts of an MBAP frame. */
export function parseMbap(frame: Buffer): { transactionId: number; unitId: number; pdu: Buffer } {
  return { transactionId: frame.readUInt16BE(0), unitId: frame.readUInt8(6), pdu: frame.subarray(7) };
}
