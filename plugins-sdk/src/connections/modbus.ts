/*
 * A Modbus client over a shared link: Modbus TCP (MBAP), RTU over a serial port, RTU over a
 * TCP gateway, and RTU inside Solarman V5 frames. Written on our own link rather than on
 * `modbus-serial`, whose client fails a request on the first bad CRC instead of skipping
 * the frame, has no AbortSignal, no queue shared by several clients of one port, and no
 * Solarman framing.
 */
import { ConfigError, DeviceRefusedError, NoAnswerError } from '../errors.js';
import { formatZodError } from '../zod-errors.js';
import type { LinkOptions } from './link.js';
import * as frames from './modbus-frames.js';
import { acquireLink, type StreamLink } from './registry.js';
import { parseSolarman, rtuOfSolarmanReply, solarmanLength, solarmanRequest, SOLARMAN_REPLY } from './solarman.js';
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
  /** The link under this client: its stats, connection state and events. */
  readonly link: StreamLink;
  /** Gives the client back; the link closes when its last user is released. Idempotent. */
  release(): void;
}

/** How requests are wrapped for one connection type, and how their replies are recognised. */
interface Framing {
  wrap(
    unitId: number,
    pdu: Buffer,
  ): { bytes: Buffer; complete: (buf: Buffer) => number; unwrap: (frame: Buffer) => Buffer | undefined };
}

let transactionCounter = 0;

const mbapFraming: Framing = {
  wrap(unitId, pdu) {
    const transactionId = (transactionCounter = (transactionCounter + 1) & 0xffff);
    return {
      bytes: frames.mbapFrame(transactionId, unitId, pdu),
      complete: frames.mbapLength,
      unwrap(frame) {
        const reply = frames.parseMbap(frame);
        return reply.transactionId === transactionId && reply.pdu.length > 0 ? reply.pdu : undefined;
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

function unwrapRtu(frame: Buffer, unitId: number): Buffer | undefined {
  if (!frames.rtuCrcValid(frame) || frame.readUInt8(0) !== unitId) return undefined;
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
        unwrap(frame) {
          const reply = parseSolarman(frame);
          // The logger echoes the low byte of our sequence number; the high byte is its own.
          if (!reply || reply.control !== SOLARMAN_REPLY || reply.loggerSerial !== loggerSerial) return undefined;
          if ((reply.sequence & 0xff) !== (sequence & 0xff)) return undefined;
          const rtu = rtuOfSolarmanReply(reply.payload);
          return rtu.length === 0 ? NO_INVERTER_ANSWER : unwrapRtu(rtu, unitId);
        },
      };
    },
  };
}

function framingOf(spec: ConnectionSpec): Framing {
  if (spec.type === 'tcp') return mbapFraming;
  if (spec.type === 'solarman') return solarmanFraming(spec.loggerSerial);
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
  const link = acquireLink(transportOf(connection), options);
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
        const inner = request.unwrap(frame);
        if (inner === undefined || !replyFits(inner, functionCode, replyLength)) return false;
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
    link,
    release: () => link.release(),
  };
}

/**
 * Whether a reply PDU answers a request of `functionCode`: the same function with a reply of
 * the expected length, or its exception. Anything else (a late answer to an abandoned
 * request, a truncated frame) is not our reply. Empty: the logger's "no answer" marker.
 */
function replyFits(pdu: Buffer, functionCode: number, replyLength: number): boolean {
  if (pdu.length === 0) return true;
  if (pdu.readUInt8(0) === (functionCode | 0x80)) return pdu.length === 2;
  return pdu.readUInt8(0) === functionCode && pdu.length === replyLength;
}

function checkRange(what: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`Modbus ${what} must be an integer from ${min} to ${max}, not ${value}`);
  }
}
