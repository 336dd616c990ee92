/*
 * A Modbus client over a shared link: Modbus TCP (MBAP), RTU over a serial port, RTU over a
 * TCP gateway, and RTU inside Solarman V5 frames. Written on our own link rather than on
 * `modbus-serial`, whose client fails a request on the first bad CRC instead of skipping
 * the frame, has no AbortSignal, no queue shared by several clients of one port, and no
 * Solarman framing.
 */
import { ConfigError, DeviceRefusedError, NoAnswerError } from '../errors.js';
import { formatZodError } from '../zod-errors.js';
import type { LinkOptions, UnsolicitedFrames } from './link.js';
import * as frames from './modbus-frames.js';
import { acquireLink, type StreamLink } from './registry.js';
import {
  parseSolarman,
  rtuOfSolarmanReply,
  solarmanLength,
  solarmanRequest,
  solarmanTimeAnswer,
  solarmanUnsolicitedLength,
  SOLARMAN_REPLY,
  withoutDoubleCrc,
} from './solarman.js';
import { connectionSchema, transportOf, type ConnectionInput, type ConnectionSpec } from './spec.js';

/**
 * The device answered with a Modbus exception (function code | 0x80). A refusal, not a
 * missing answer: `code` 2 is an address the device does not have, 3 a value it rejects.
 * A gateway's 0x0A/0x0B (the unit behind it did not answer) throw NoAnswerError instead.
 *
 * @example
 * try { await modbus.writeRegisters({ unitId: 1, address: 142, values: [9] }); }
 * catch (e) { if (e instanceof ModbusExceptionError && e.code === 3) ctx.log.warn('value out of range'); }
 */
export class ModbusExceptionError extends DeviceRefusedError {
  // The name stays `DeviceRefusedError`: the core tells a refusal by the error's name (it may
  // have crossed a worker boundary), so a write failing with it reads "the device refused: ...".
  /** The exception code (1 illegal function, 2 illegal data address, 3 illegal data value, ...). */
  readonly code: number;

  constructor({ code, functionCode }: { code: number; functionCode: number }) {
    const answer = frames.describeException(code);
    super({
      answer,
      message: `the device refused function 0x${functionCode.toString(16).padStart(2, '0')}: ${answer}`,
    });
    this.code = code;
  }
}

/**
 * Exceptions a gateway sends for a unit behind it that did not answer: 0x0A (gateway path
 * unavailable) and 0x0B (gateway target device failed to respond). They are the device's
 * silence, not its refusal, so they throw NoAnswerError.
 */
const GATEWAY_NO_ANSWER = new Set([0x0a, 0x0b]);

/**
 * Options of {@link openModbus}. The link options (`reconnect`, `binding`) take effect for
 * whoever opens the physical link first.
 *
 * @example
 * openModbus(config.connection, { timeoutMs: 1500 });
 */
export interface ModbusOptions extends LinkOptions {
  /** Default timeout of a request; default 1000 ms. */
  timeoutMs?: number;
}

/**
 * One read: `count` (1..125) registers from `address` of device `unitId`.
 *
 * @example
 * { unitId: 1, address: 586, count: 3, timeoutMs: 1500, signal }
 */
export interface ModbusReadRequest {
  unitId: number;
  address: number;
  count: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * One write of `values` (1..123 registers, 0..65535 each) from `address` (function 0x10).
 *
 * @example
 * { unitId: 1, address: 142, values: [2] }
 */
export interface ModbusWriteRequest {
  unitId: number;
  address: number;
  values: readonly number[];
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * A Modbus client on a shared link. Every client of the same host:port, serial path or
 * logger queues its requests on one link, whatever its unit id.
 *
 * @example
 * const modbus = openModbus({ type: 'rtu-over-tcp', host: '192.168.1.70', port: 8899 });
 * const [soc] = await modbus.readHoldingRegisters({ unitId: 1, address: 588, count: 1 });
 * modbus.release();
 */
export interface ModbusClient {
  /** Function 0x03. Throws ModbusExceptionError on an exception, NoAnswerError without a reply. */
  readHoldingRegisters(request: ModbusReadRequest): Promise<number[]>;
  /** Function 0x04; as {@link ModbusClient.readHoldingRegisters}. */
  readInputRegisters(request: ModbusReadRequest): Promise<number[]>;
  /** Function 0x10; resolves when the device confirmed the write. */
  writeRegisters(request: ModbusWriteRequest): Promise<void>;
  /** Function 0x06 (one register; for devices that refuse 0x10 for it); resolves when the device echoed it. */
  writeRegister(request: Omit<ModbusWriteRequest, 'values'> & { value: number }): Promise<void>;
  /** The link under this client: its stats, connection state and events. */
  readonly link: StreamLink;
  /** Gives the client back; the link closes when its last user is released. Idempotent. */
  release(): void;
}

/**
 * How requests are wrapped for one connection type, and how their replies are recognised.
 * `unwrap` gives the reply PDU, or why the frame is not the awaited reply; `fits` tells a
 * PDU of the right function and length (the Solarman framing tries the frame without a
 * logger's trailing zero bytes when the frame as sent does not fit).
 */
interface Framing {
  wrap(
    unitId: number,
    pdu: Buffer,
  ): {
    bytes: Buffer;
    complete: (buf: Buffer) => number;
    unwrap: (frame: Buffer, fits: (pdu: Buffer) => boolean) => Buffer | string;
  };
  unsolicited?: UnsolicitedFrames;
}

let transactionCounter = 0;

const mbapFraming: Framing = {
  wrap(unitId, pdu) {
    const transactionId = (transactionCounter = (transactionCounter + 1) & 0xffff);
    return {
      bytes: frames.mbapFrame(transactionId, unitId, pdu),
      complete: frames.mbapLength,
      unwrap(frame) {
        if (frame.length < 8 || frame.readUInt16BE(2) !== 0) return 'not a Modbus TCP frame';
        const reply = frames.parseMbap(frame);
        if (reply.transactionId !== transactionId)
          return `wrong transaction id ${reply.transactionId}, expected ${transactionId}`;
        return reply.pdu;
      },
    };
  },
};

const rtuFraming: Framing = {
  wrap(unitId, pdu) {
    return {
      bytes: frames.rtuFrame(unitId, pdu),
      complete: frames.rtuReplyLength,
      unwrap: (frame) => unwrapRtu(frame, unitId),
    };
  },
};

function unwrapRtu(frame: Buffer, unitId: number): Buffer | string {
  if (!frames.rtuCrcValid(frame)) return 'bad CRC';
  if (frame.readUInt8(0) !== unitId) return `reply from unit ${frame.readUInt8(0)}, expected ${unitId}`;
  return frame.subarray(1, frame.length - 2);
}

/** An empty PDU: the logger answered, but says the inverter behind it did not. */
const NO_INVERTER_ANSWER = Buffer.alloc(0);

function solarmanFraming(loggerSerial: number): Framing {
  return {
    wrap(unitId, pdu) {
      const sequence = (transactionCounter = (transactionCounter + 1) & 0xffff);
      return {
        bytes: solarmanRequest(loggerSerial, sequence, frames.rtuFrame(unitId, pdu)),
        complete: solarmanLength,
        unwrap(frame, fits) {
          const reply = parseSolarman(frame);
          if (!reply) return 'bad Solarman checksum or end byte';
          // The logger echoes the low byte of our sequence number; the high byte is its own.
          if (reply.control !== SOLARMAN_REPLY) return `Solarman control code 0x${reply.control.toString(16)}`;
          if (reply.loggerSerial !== loggerSerial) return `reply from logger ${reply.loggerSerial}`;
          if ((reply.sequence & 0xff) !== (sequence & 0xff)) return 'wrong Solarman sequence number';
          const rtu = rtuOfSolarmanReply(reply.payload);
          if (rtu.length === 0) return NO_INVERTER_ANSWER;
          const inner = unwrapRtu(rtu, unitId);
          if (typeof inner !== 'string' && fits(inner)) return inner;
          // Some loggers append two zero bytes after the CRC: try the frame without them.
          const stripped = withoutDoubleCrc(rtu);
          const retry = stripped && unwrapRtu(stripped, unitId);
          return retry && typeof retry !== 'string' && fits(retry) ? retry : inner;
        },
      };
    },
    unsolicited: {
      length: solarmanUnsolicitedLength,
      answer: (frame) => solarmanTimeAnswer(frame, loggerSerial),
    },
  };
}

/** RTU in UDP datagrams; GoodWe inverters put AA 55 before each reply. */
function udpFraming(prefix: 'none' | 'aa55'): Framing {
  if (prefix === 'none') return rtuFraming;
  const complete = (buf: Buffer) => {
    if (buf.length < 2) return -1;
    if (buf[0] !== 0xaa || buf[1] !== 0x55) return buf.length; // not a reply: skipped as a bad frame
    const length = frames.rtuReplyLength(buf.subarray(2));
    return length < 0 ? -1 : length + 2;
  };
  return {
    wrap(unitId, pdu) {
      return {
        bytes: frames.rtuFrame(unitId, pdu),
        complete,
        unwrap: (frame) => (frame[0] === 0xaa ? unwrapRtu(frame.subarray(2), unitId) : 'no AA 55 reply header'),
      };
    },
  };
}

function framingOf(spec: ConnectionSpec): Framing {
  if (spec.type === 'tcp') return mbapFraming;
  if (spec.type === 'solarman') return solarmanFraming(spec.loggerSerial);
  if (spec.type === 'rtu-over-udp') return udpFraming(spec.replyPrefix);
  return rtuFraming;
}

/**
 * Opens (or joins) a Modbus link. `tcp` speaks Modbus TCP, `serial` and `rtu-over-tcp`
 * speak RTU, `solarman` wraps RTU in Solarman V5 frames to the logger.
 *
 * @throws ConfigError when the spec is invalid.
 * @example
 * const modbus = openModbus(config.connection, { timeoutMs: 1500 });
 * ctx.scheduler.every({ name: 'poll', intervalMs: 5000, run: async ({ signal }) => {
 *   const [pv1, pv2] = await modbus.readHoldingRegisters({ unitId: 1, address: 672, count: 2, signal });
 *   ctx.topics.publish({ device: 'inverter_1', values: { pv_power: pv1! + pv2! } });
 * } });
 * return () => modbus.release();
 */
export function openModbus(spec: ConnectionInput, options: ModbusOptions = {}): ModbusClient {
  const parsed = connectionSchema.safeParse(spec);
  if (!parsed.success) throw new ConfigError(formatZodError(parsed.error, { source: 'connection', separator: '; ' }));
  const connection = parsed.data;
  const framing = framingOf(connection);
  const link = acquireLink(
    transportOf(connection),
    framing.unsolicited ? { ...options, unsolicited: framing.unsolicited } : options,
  );
  const defaultTimeoutMs = options.timeoutMs ?? 1000;

  /** Sends `pdu`, resolves with the reply's data; `replyLength` is the length of a good reply PDU. */
  async function exchange(
    unitId: number,
    pdu: Buffer,
    replyLength: number,
    timeoutMs = defaultTimeoutMs,
    signal?: AbortSignal,
  ): Promise<Buffer> {
    const functionCode = pdu.readUInt8(0);
    const request = framing.wrap(unitId, pdu);
    let replyPdu: Buffer | undefined;
    await link.request(request.bytes, {
      complete: request.complete,
      check(frame) {
        const fits = (pdu: Buffer) => replyMismatch(pdu, functionCode, replyLength) === undefined;
        const inner = request.unwrap(frame, fits);
        if (typeof inner === 'string') return inner;
        const mismatch = replyMismatch(inner, functionCode, replyLength);
        if (mismatch !== undefined) return mismatch;
        replyPdu = inner;
        return true;
      },
      timeoutMs,
      ...(signal ? { signal } : {}),
    });
    if (!replyPdu || replyPdu.length === 0) {
      throw new NoAnswerError({ message: `${link.description}: the logger got no answer from unit ${unitId}` });
    }
    const reply = frames.parseReplyPdu(replyPdu);
    if ('exception' in reply && GATEWAY_NO_ANSWER.has(reply.exception)) {
      // The gateway answered for the unit behind it: no path to it, or it stayed silent.
      throw new NoAnswerError({
        message: `${link.description}: unit ${unitId} did not answer (${frames.describeException(reply.exception)})`,
      });
    }
    if ('exception' in reply) throw new ModbusExceptionError({ code: reply.exception, functionCode });
    return reply.data;
  }

  async function read(functionCode: number, { unitId, address, count, timeoutMs, signal }: ModbusReadRequest) {
    checkRange('count', count, 1, 125);
    checkRange('address', address, 0, 0xffff - count + 1);
    const pdu = frames.readRequestPdu(functionCode, address, count);
    return frames.registersOf(await exchange(unitId, pdu, 2 + 2 * count, timeoutMs, signal));
  }

  return {
    readHoldingRegisters: (request) => read(frames.READ_HOLDING_REGISTERS, request),
    readInputRegisters: (request) => read(frames.READ_INPUT_REGISTERS, request),
    async writeRegisters({ unitId, address, values, timeoutMs, signal }) {
      checkRange('number of values', values.length, 1, 123);
      checkRange('address', address, 0, 0xffff - values.length + 1);
      await exchange(unitId, frames.writeRequestPdu(address, values), 5, timeoutMs, signal);
    },
    async writeRegister({ unitId, address, value, timeoutMs, signal }) {
      checkRange('address', address, 0, 0xffff);
      checkRange('value', value, 0, 0xffff);
      await exchange(unitId, frames.writeSingleRequestPdu(address, value), 5, timeoutMs, signal);
    },
    link,
    release: () => link.release(),
  };
}

/**
 * Why a reply PDU does not answer a request of `functionCode`, or undefined when it does: the
 * same function with a reply of the expected length, or its exception. Anything else (a late
 * answer to an abandoned request, a truncated frame) is not our reply. Empty: the logger's
 * "no answer" marker.
 */
function replyMismatch(pdu: Buffer, functionCode: number, replyLength: number): string | undefined {
  if (pdu.length === 0) return undefined;
  const code = pdu.readUInt8(0);
  if (code === (functionCode | 0x80)) return pdu.length === 2 ? undefined : `exception reply of ${pdu.length} bytes`;
  if (code !== functionCode) return `reply to function 0x${code.toString(16)}, expected 0x${functionCode.toString(16)}`;
  return pdu.length === replyLength ? undefined : `wrong length: ${pdu.length} bytes of PDU, expected ${replyLength}`;
}

function checkRange(what: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`Modbus ${what} must be an integer from ${min} to ${max}, not ${value}`);
  }
}
