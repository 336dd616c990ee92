/**
 * Modbus framings for emulators: Modbus TCP (MBAP header), Modbus RTU (unit id and CRC, used
 * over TCP as a serial gateway carries it) and Solarman V5 (a logger wrapping RTU frames).
 */
import { crc16modbus } from 'crc';
import { answerModbusPdu, ModbusExceptionCode, type ModbusDevice } from './modbus.js';
import { startEmulatorServer, type FrameProtocol, type RunningEmulator } from './server.js';
import { startUdpEmulatorServer } from './udp-server.js';

/** The Modbus transports an emulator can speak on TCP. */
export const MODBUS_TRANSPORTS = ['tcp', 'rtu-over-tcp', 'solarman'] as const;
export type ModbusTransport = (typeof MODBUS_TRANSPORTS)[number];

/** The devices behind one listener, by unit id (a gateway holds several). */
export type ModbusUnits = ReadonlyMap<number, ModbusDevice>;

/**
 * Modbus TCP: `[transaction u16][protocol 0 u16][length u16][unit][PDU]`. An unknown unit
 * gets exception 0x0B (gateway target failed to respond). Corruption sets the protocol id
 * to 0xFFFF, since Modbus TCP carries no CRC.
 *
 * @example
 * startEmulatorServer({ protocol: modbusTcpProtocol(new Map([[1, device]])) });
 */
export function modbusTcpProtocol(units: ModbusUnits): FrameProtocol {
  return {
    frameLength(buf) {
      if (buf.length < 7) return -1;
      const length = buf.readUInt16BE(4);
      if (length < 2 || length > 254) return buf.length;
      return buf.length >= 6 + length ? 6 + length : -1;
    },
    answer(request) {
      if (request.length < 8 || request.readUInt16BE(2) !== 0) return undefined;
      const unit = request[6]!;
      const device = units.get(unit);
      const fc = request[7]!;
      const pdu = device
        ? answerModbusPdu(device, request.subarray(7))
        : Buffer.from([fc | 0x80, ModbusExceptionCode.gatewayTargetFailed]);
      const header = Buffer.alloc(7);
      header.writeUInt16BE(request.readUInt16BE(0), 0);
      header.writeUInt16BE(pdu.length + 1, 4);
      header[6] = unit;
      return Buffer.concat([header, pdu]);
    },
    corrupt(reply) {
      const copy = Buffer.from(reply);
      copy.writeUInt16BE(0xffff, 2);
      return copy;
    },
  };
}

/**
 * Appends the Modbus CRC (little-endian) to an RTU frame.
 *
 * @example
 * withModbusCrc(Buffer.from([0x01, 0x03, 0x00, 0xb8, 0x00, 0x01])); // <01 03 00 b8 00 01 04 2f>
 */
export function withModbusCrc(frame: Buffer): Buffer {
  const crc = Buffer.alloc(2);
  crc.writeUInt16LE(crc16modbus(frame));
  return Buffer.concat([frame, crc]);
}

/** Whether an RTU frame's last two bytes are the CRC of the rest. */
export function hasValidModbusCrc(frame: Buffer): boolean {
  return frame.length >= 4 && crc16modbus(frame.subarray(0, -2)) === frame.readUInt16LE(frame.length - 2);
}

/** The length of the RTU request at the start of `buf`, -1 if incomplete; unknown codes take the rest. */
function rtuRequestLength(buf: Buffer): number {
  if (buf.length < 2) return -1;
  switch (buf[1]) {
    case 0x03:
    case 0x04:
    case 0x06:
      return buf.length >= 8 ? 8 : -1;
    case 0x10:
      return buf.length < 7 ? -1 : buf.length >= 9 + buf[6]! ? 9 + buf[6]! : -1;
    default:
      return buf.length;
  }
}

/**
 * Answers one RTU frame as the devices on a bus would: a wrong CRC or an absent unit gets no
 * answer at all, unit 0 (broadcast) is executed without an answer.
 */
function answerRtuFrame(units: ModbusUnits, frame: Buffer): Buffer | undefined {
  if (!hasValidModbusCrc(frame)) return undefined;
  const unit = frame[0]!;
  const pdu = frame.subarray(1, -2);
  if (unit === 0) {
    for (const device of units.values()) answerModbusPdu(device, pdu);
    return undefined;
  }
  const device = units.get(unit);
  if (!device) return undefined;
  return withModbusCrc(Buffer.concat([Buffer.from([unit]), answerModbusPdu(device, pdu)]));
}

function flipLastBytes(reply: Buffer, count: number, from = reply.length): Buffer {
  const copy = Buffer.from(reply);
  for (let i = from - count; i < from; i++) copy[i] = copy[i]! ^ 0xff;
  return copy;
}

/**
 * Modbus RTU frames on a byte stream (a serial line, or TCP through an RS485 gateway): one
 * listener can host several devices on their unit ids, like a shared bus.
 *
 * @example
 * startEmulatorServer({ protocol: modbusRtuProtocol(new Map([[1, deye1], [2, deye2]])) });
 */
export function modbusRtuProtocol(units: ModbusUnits): FrameProtocol {
  return {
    frameLength: rtuRequestLength,
    answer: (request) => answerRtuFrame(units, request),
    corrupt: (reply) => flipLastBytes(reply, 2),
  };
}

const SOLARMAN_START = 0xa5;
const SOLARMAN_END = 0x15;
const SOLARMAN_REQUEST = 0x4510;
const SOLARMAN_REPLY = 0x1510;
/** Bytes of the request payload before its RTU frame, and of the reply payload before its own. */
const REQUEST_PREFIX = 15;
const REPLY_PREFIX = 14;

/** The V5 checksum: the low byte of the sum of every byte between the start and the checksum. */
function solarmanChecksum(frame: Buffer): number {
  let sum = 0;
  for (let i = 1; i < frame.length - 2; i++) sum += frame[i]!;
  return sum & 0xff;
}

/**
 * Solarman V5 as an LSW-3 logger speaks it on TCP 8899: each request wraps a Modbus RTU
 * frame; frames for another logger serial, with a wrong checksum or a wrong control code
 * are dropped unanswered. Corruption breaks the V5 checksum.
 *
 * @example
 * startEmulatorServer({ protocol: solarmanProtocol({ loggerSerial: 2712345678, units }), port: 8899 });
 */
export function solarmanProtocol(options: {
  loggerSerial: number;
  units: ModbusUnits;
  /** Append two zero bytes after the Modbus CRC, as some Deye loggers do (the CRC taken twice). */
  doubleCrc?: boolean;
}): FrameProtocol {
  let counter = 0;
  return {
    frameLength(buf) {
      if (buf[0] !== SOLARMAN_START) {
        const next = buf.indexOf(SOLARMAN_START);
        return next < 0 ? buf.length : next;
      }
      if (buf.length < 3) return -1;
      const total = 13 + buf.readUInt16LE(1);
      return buf.length >= total ? total : -1;
    },
    answer(request) {
      if (request.length < 13 + REQUEST_PREFIX + 4 || request[0] !== SOLARMAN_START) return undefined;
      if (request[request.length - 1] !== SOLARMAN_END) return undefined;
      if (request[request.length - 2] !== solarmanChecksum(request)) return undefined;
      if (request.readUInt16LE(3) !== SOLARMAN_REQUEST) return undefined;
      if (request.readUInt32LE(7) !== options.loggerSerial) return undefined;
      const answered = answerRtuFrame(options.units, request.subarray(11 + REQUEST_PREFIX, -2));
      if (!answered) return undefined;
      const rtuReply = options.doubleCrc ? withModbusCrc(answered) : answered;
      counter = (counter + 1) & 0xff;
      const reply = Buffer.alloc(11 + REPLY_PREFIX + rtuReply.length + 2);
      reply[0] = SOLARMAN_START;
      reply.writeUInt16LE(REPLY_PREFIX + rtuReply.length, 1);
      reply.writeUInt16LE(SOLARMAN_REPLY, 3);
      reply[5] = request[5]!; // the request's sequence low byte, echoed
      reply[6] = counter; // the logger's own counter
      reply.writeUInt32LE(options.loggerSerial, 7);
      reply[11] = 0x02; // frame type
      reply[12] = 0x01; // status
      // Three u32 times (working, power-on, offset) stay zero.
      rtuReply.copy(reply, 11 + REPLY_PREFIX);
      reply[reply.length - 2] = solarmanChecksum(reply);
      reply[reply.length - 1] = SOLARMAN_END;
      return reply;
    },
    corrupt: (reply) => flipLastBytes(reply, 1, reply.length - 1),
  };
}

/**
 * Modbus RTU in UDP datagrams, as GoodWe ET/EH inverters answer on port 8899: with
 * `replyPrefix: 'aa55'` each reply starts with AA 55 (the CRC covers what follows).
 *
 * @example
 * await startUdpModbusEmulator({ units: new Map([[0xf7, goodwe]]), replyPrefix: 'aa55' });
 */
export async function startUdpModbusEmulator(options: {
  units: ModbusUnits;
  replyPrefix?: 'none' | 'aa55';
  host?: string;
  port?: number;
}): Promise<RunningEmulator> {
  const rtu = modbusRtuProtocol(options.units);
  const prefix = options.replyPrefix === 'aa55' ? Buffer.from([0xaa, 0x55]) : Buffer.alloc(0);
  const protocol: FrameProtocol = {
    frameLength: (buf) => buf.length,
    answer(request) {
      const reply = rtu.answer(request);
      return reply && Buffer.concat([prefix, reply]);
    },
    corrupt: (reply) => rtu.corrupt(reply),
  };
  return startUdpEmulatorServer({ protocol, host: options.host, port: options.port });
}

/**
 * Starts a Modbus emulator on TCP: the given devices by unit id, framed as `transport`.
 * With `rtu-over-tcp` and several units this is a serial gateway hosting a shared RS485 bus.
 *
 * @example
 * const gateway = await startModbusEmulator({ transport: 'rtu-over-tcp', units: new Map([[1, deye], [2, sunspec]]) });
 */
export async function startModbusEmulator(options: {
  transport: ModbusTransport;
  units: ModbusUnits;
  /** Required for `solarman`: the serial number the logger answers to. */
  loggerSerial?: number;
  /** `solarman`: append two zero bytes after each reply's Modbus CRC, as some Deye loggers do. */
  doubleCrc?: boolean;
  host?: string;
  port?: number;
}): Promise<RunningEmulator> {
  const { transport, units } = options;
  let protocol: FrameProtocol;
  if (transport === 'tcp') protocol = modbusTcpProtocol(units);
  else if (transport === 'rtu-over-tcp') protocol = modbusRtuProtocol(units);
  else {
    if (options.loggerSerial === undefined) throw new Error('solarman: loggerSerial is required');
    protocol = solarmanProtocol({ loggerSerial: options.loggerSerial, units, doubleCrc: options.doubleCrc ?? false });
  }
  return startEmulatorServer({ protocol, host: options.host, port: options.port });
}
