/*
 * Solarman V5 framing (Deye/Sunsynk data loggers, TCP 8899): each Modbus RTU frame travels
 * inside a V5 frame addressed to the logger's serial number. Both directions, so a test
 * logger can speak it too. Layout: 0xA5, u16 payload length, u16 control code, u16 sequence,
 * u32 logger serial (all little-endian), payload, checksum (sum of bytes 1..n-2, low byte),
 * 0x15.
 */

const START = 0xa5;
const END = 0x15;
const HEADER = 11;
/** Control code of a request to the logger, and of the logger's reply. */
export const SOLARMAN_REQUEST = 0x4510;
export const SOLARMAN_REPLY = 0x1510;
/** Payload bytes before the RTU frame: frame type, sensor type, three u32 times (request). */
const REQUEST_PREFIX = 15;
/** Payload bytes before the RTU frame: frame type, status, three u32 times (reply). */
const REPLY_PREFIX = 14;

/** The parts of a V5 frame. */
export interface SolarmanFrame {
  control: number;
  sequence: number;
  loggerSerial: number;
  payload: Buffer;
}

/** Wraps a payload into a V5 frame. */
export function solarmanFrame({ control, sequence, loggerSerial, payload }: SolarmanFrame): Buffer {
  const frame = Buffer.alloc(HEADER + payload.length + 2);
  frame.writeUInt8(START, 0);
  frame.writeUInt16LE(payload.length, 1);
  frame.writeUInt16LE(control, 3);
  frame.writeUInt16LE(sequence & 0xffff, 5);
  frame.writeUInt32LE(loggerSerial >>> 0, 7);
  payload.copy(frame, HEADER);
  frame.writeUInt8(solarmanChecksum(frame), frame.length - 2);
  frame.writeUInt8(END, frame.length - 1);
  return frame;
}

/** Sum of every byte between the start byte and the checksum, low byte. */
export function solarmanChecksum(frame: Buffer): number {
  let sum = 0;
  for (let i = 1; i < frame.length - 2; i++) sum += frame[i]!;
  return sum & 0xff;
}

/** A request to the logger carrying one Modbus RTU frame. */
export function solarmanRequest(loggerSerial: number, sequence: number, rtu: Buffer): Buffer {
  const payload = Buffer.alloc(REQUEST_PREFIX + rtu.length);
  payload.writeUInt8(0x02, 0); // frame type: solar inverter; sensor type and times stay zero
  rtu.copy(payload, REQUEST_PREFIX);
  return solarmanFrame({ control: SOLARMAN_REQUEST, sequence, loggerSerial, payload });
}

/** A logger's reply carrying the inverter's RTU frame (empty when the inverter did not answer). */
export function solarmanReply(loggerSerial: number, sequence: number, rtu: Buffer): Buffer {
  const payload = Buffer.alloc(REPLY_PREFIX + rtu.length);
  payload.writeUInt8(0x02, 0);
  payload.writeUInt8(0x01, 1);
  rtu.copy(payload, REPLY_PREFIX);
  return solarmanFrame({ control: SOLARMAN_REPLY, sequence, loggerSerial, payload });
}

/**
 * Length of the V5 frame at the start of `buf`, or -1 while more bytes are needed. Bytes
 * before a start byte count as one frame, so the link skips them as a bad frame.
 */
export function solarmanLength(buf: Buffer): number {
  if (buf[0] !== START) {
    const next = buf.indexOf(START);
    return next < 0 ? buf.length : next;
  }
  if (buf.length < HEADER) return -1;
  const length = HEADER + buf.readUInt16LE(1) + 2;
  return buf.length >= length ? length : -1;
}

/** The parts of a complete V5 frame, or undefined when its checksum or end byte is wrong. */
export function parseSolarman(frame: Buffer): SolarmanFrame | undefined {
  if (frame.length < HEADER + 2 || frame[0] !== START || frame[frame.length - 1] !== END) return undefined;
  if (frame[frame.length - 2] !== solarmanChecksum(frame)) return undefined;
  return {
    control: frame.readUInt16LE(3),
    sequence: frame.readUInt16LE(5),
    loggerSerial: frame.readUInt32LE(7),
    payload: frame.subarray(HEADER, frame.length - 2),
  };
}

/** The RTU frame inside a request payload (for a test logger). */
export function rtuOfSolarmanRequest(payload: Buffer): Buffer {
  return payload.subarray(REQUEST_PREFIX);
}

/** The RTU frame inside a reply payload; empty when the logger got no answer from the inverter. */
export function rtuOfSolarmanReply(payload: Buffer): Buffer {
  return payload.subarray(REPLY_PREFIX);
}

/**
 * Control codes of frames a logger sends on its own (handshake, data, info, heartbeat,
 * report): each is answered with a time frame, as pysolarmanv5 does, and none is a reply.
 */
const LOGGER_INITIATED = new Set([0x4110, 0x4210, 0x4310, 0x4710, 0x4810]);

/**
 * Length of a frame the logger sent on its own at the start of `buf` (a heartbeat, ...), 0
 * when `buf` does not start with one, -1 while more bytes are needed to tell.
 */
export function solarmanUnsolicitedLength(buf: Buffer): number {
  if (buf[0] !== START) return 0;
  if (buf.length < 5) return -1;
  if (!LOGGER_INITIATED.has(buf.readUInt16LE(3))) return 0;
  const length = solarmanLength(buf);
  return length < 0 ? -1 : length;
}

/**
 * The answer to a frame the logger sent on its own: control code − 0x3000, its sequence
 * with the first byte + 1, our logger serial, payload `00 01`, the u32 Unix time and a u32 0.
 */
export function solarmanTimeAnswer(frame: Buffer, loggerSerial: number, now = Date.now()): Buffer {
  const payload = Buffer.alloc(10);
  payload.writeUInt16LE(0x0100, 0);
  payload.writeUInt32LE(Math.floor(now / 1000) >>> 0, 2);
  const sequence = ((frame[5]! + 1) & 0xff) | (frame[6]! << 8);
  return solarmanFrame({ control: frame.readUInt16LE(3) - 0x3000, sequence, loggerSerial, payload });
}

/**
 * The RTU frame without the two zero bytes some loggers append after the CRC (the CRC taken
 * twice; pysolarmanv5 calls it "double CRC"), when there are such bytes; otherwise undefined.
 */
export function withoutDoubleCrc(rtu: Buffer): Buffer | undefined {
  const n = rtu.length;
  return n >= 7 && rtu[n - 1] === 0 && rtu[n - 2] === 0 ? rtu.subarray(0, n - 2) : undefined;
}
