/*
 * A small Modbus device for the connection tests, and servers on 127.0.0.1 that speak it as
 * Modbus TCP, RTU over TCP and a Solarman V5 logger. The framing comes from the SDK's own
 * codec; frames.test.ts pins that codec to bytes written out by hand. For the stream link's
 * tests, a server on 127.0.0.1 speaking whatever they give it, and a link to it.
 */
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { after } from 'node:test';
import { openStreamLink, type StreamLink } from '../../src/connections/index.js';
import * as frames from '../../src/connections/modbus-frames.js';
import { parseSolarman, rtuOfSolarmanRequest, solarmanLength, solarmanReply } from '../../src/connections/solarman.js';

/** A server on 127.0.0.1 whose connections `serve` answers, closed after the tests: resolves with its port. */
export async function loopbackServer(serve: (socket: Socket) => void): Promise<number> {
  const server = createServer(serve);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  after(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as AddressInfo).port;
}

/** Runs `use` with a stream link to 127.0.0.1:`port`, released after it. */
export async function withTcpLink<T>(port: number, use: (link: StreamLink) => Promise<T>): Promise<T> {
  const link = openStreamLink({ type: 'tcp', host: '127.0.0.1', port });
  try {
    return await use(link);
  } finally {
    link.release();
  }
}

/** Registers by address; an address not in the map answers exception 2. */
export class FakeModbusDevice {
  readonly holding = new Map<number, number>();
  readonly input = new Map<number, number>();
  /** Every request PDU served, with its unit id, in order. */
  readonly served: Array<{ unitId: number; functionCode: number; address: number; count: number }> = [];
  /** When true, requests get no reply at all. */
  silent = false;
  /** When set, every request gets this exception, as a gateway answers for a silent unit behind it. */
  gatewayException: number | undefined;
  /** Addresses whose writes are refused with exception 3 (illegal data value). */
  readonly readOnly = new Set<number>();
  /** Writes to these addresses are acknowledged but not stored (a device that ignores them). */
  readonly ignoresWrites = new Set<number>();

  constructor(readonly unitIds: readonly number[] = [1]) {}

  /** The reply PDU to `pdu`, or undefined for no reply. */
  answer(unitId: number, pdu: Buffer): Buffer | undefined {
    if (this.silent || !this.unitIds.includes(unitId)) return undefined;
    const functionCode = pdu.readUInt8(0);
    if (this.gatewayException !== undefined) return Buffer.from([functionCode | 0x80, this.gatewayException]);
    const address = pdu.readUInt16BE(1);
    const count = pdu.readUInt16BE(3);
    this.served.push({ unitId, functionCode, address, count });
    const exception = (code: number) => Buffer.from([functionCode | 0x80, code]);
    if (functionCode === frames.READ_HOLDING_REGISTERS || functionCode === frames.READ_INPUT_REGISTERS) {
      const bank = functionCode === frames.READ_HOLDING_REGISTERS ? this.holding : this.input;
      const reply = Buffer.alloc(2 + count * 2);
      reply.writeUInt8(functionCode, 0);
      reply.writeUInt8(count * 2, 1);
      for (let i = 0; i < count; i++) {
        const value = bank.get(address + i);
        if (value === undefined) return exception(2);
        reply.writeUInt16BE(value, 2 + i * 2);
      }
      return reply;
    }
    if (functionCode === frames.WRITE_MULTIPLE_REGISTERS) {
      for (let i = 0; i < count; i++) {
        if (!this.holding.has(address + i)) return exception(2);
        if (this.readOnly.has(address + i)) return exception(3);
      }
      for (let i = 0; i < count; i++) {
        if (!this.ignoresWrites.has(address + i)) this.holding.set(address + i, pdu.readUInt16BE(6 + i * 2));
      }
      return pdu.subarray(0, 5);
    }
    return exception(1);
  }
}

/** How one transport cuts requests out of the byte stream and wraps replies. */
export interface ServerFraming {
  requestLength(buf: Buffer): number;
  /** The reply frame to one request frame, or undefined for none. */
  reply(device: FakeModbusDevice, request: Buffer): Buffer | undefined;
}

export const mbapServer: ServerFraming = {
  requestLength: frames.mbapLength,
  reply(device, request) {
    const { transactionId, unitId, pdu } = frames.parseMbap(request);
    const answer = device.answer(unitId, pdu);
    return answer && frames.mbapFrame(transactionId, unitId, answer);
  },
};

export const rtuServer: ServerFraming = {
  requestLength: frames.rtuRequestLength,
  reply(device, request) {
    if (!frames.rtuCrcValid(request)) return undefined;
    const unitId = request.readUInt8(0);
    const answer = device.answer(unitId, request.subarray(1, request.length - 2));
    return answer && frames.rtuFrame(unitId, answer);
  },
};

export function solarmanServer(loggerSerial: number): ServerFraming {
  return {
    requestLength: solarmanLength,
    reply(device, request) {
      const frame = parseSolarman(request);
      if (!frame || frame.loggerSerial !== loggerSerial) return undefined;
      const rtu = rtuOfSolarmanRequest(frame.payload);
      const answer = device.answer(rtu.readUInt8(0), rtu.subarray(1, rtu.length - 2));
      // The logger answers even when the inverter does not: with an empty RTU part.
      const inner = answer ? frames.rtuFrame(rtu.readUInt8(0), answer) : Buffer.alloc(0);
      return solarmanReply(loggerSerial, (0x4200 | (frame.sequence & 0xff)) & 0xffff, inner);
    },
  };
}

/** A device behind a TCP server; replies can be delayed, corrupted or preceded by junk. */
export class FakeTcpDevice {
  readonly device: FakeModbusDevice;
  /** Bytes received while a reply was still pending: requests interleaved on the wire. */
  interleaved = 0;
  /** Frames the next replies are replaced by (each entry maps the good reply to what is sent). */
  readonly tamper: Array<(reply: Buffer) => Buffer> = [];
  /** Delay before each reply, so a second request could overlap if the client allowed it. */
  replyDelayMs = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly framing: ServerFraming,
    device = new FakeModbusDevice(),
  ) {
    this.device = device;
  }

  /** Listens on 127.0.0.1 (on `port` when given, for a restart on the same port). */
  async start(port = this.port): Promise<this> {
    const server = createServer((socket) => this.serve(socket));
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** Stops listening and drops every connection. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffer = Buffer.alloc(0);
    let pending = false;
    socket.on('data', (chunk: Buffer) => {
      if (pending) this.interleaved++;
      buffer = Buffer.concat([buffer, chunk]);
      for (let length = this.framing.requestLength(buffer); length > 0; length = this.framing.requestLength(buffer)) {
        const request = buffer.subarray(0, length);
        buffer = buffer.subarray(length);
        const reply = this.framing.reply(this.device, request);
        if (!reply) continue;
        const tamper = this.tamper.shift();
        const sent = tamper ? tamper(reply) : reply;
        pending = true;
        setTimeout(() => {
          pending = false;
          if (!socket.destroyed) socket.write(sent);
        }, this.replyDelayMs);
      }
    });
  }
}

/** The frame with its last byte flipped: a CRC (or checksum) mismatch. */
export function corruptLastByte(frame: Buffer): Buffer {
  const copy = Buffer.from(frame);
  copy[copy.length - 1] = copy[copy.length - 1]! ^ 0xff;
  return copy;
}
