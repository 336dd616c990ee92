import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * How an emulator cuts requests out of a byte stream and answers them: one per wire format
 * (Modbus TCP, Modbus RTU, Solarman V5, PI30, Pylontech ASCII).
 *
 * @example
 * const echoLines: FrameProtocol = {
 *   frameLength: (buf) => buf.indexOf(0x0d) + 1 || -1,
 *   answer: (request) => request,
 *   corrupt: (reply) => Buffer.from(reply.toString().replace('A', 'B')),
 * };
 */
export interface FrameProtocol {
  /**
   * How many bytes at the start of `buffer` make the next request (or a run of garbage to
   * drop, which `answer` then ignores), or -1 when more bytes are needed.
   */
  frameLength(buffer: Buffer): number;
  /** The reply to one request, or `undefined` for none (bad CRC, another unit's request). */
  answer(request: Buffer): Buffer | undefined;
  /** The same reply with its CRC or checksum made wrong, for `corruptNext`. */
  corrupt(reply: Buffer): Buffer;
}

/**
 * What a test can do to a running emulator, on top of its wire protocol.
 *
 * @example
 * emulator.silence(true); // the device stops answering (requests are read and dropped)
 * emulator.corruptNext(2); // the next two replies carry a wrong CRC/checksum
 * await emulator.close();
 */
export interface EmulatorControls {
  /** While on, requests are read and dropped: the device looks dead but the port stays open. */
  silence(on: boolean): void;
  /** Makes the CRC or checksum of the next `count` replies wrong. */
  corruptNext(count: number): void;
  /**
   * Resolves with the next request the emulator reads, answered or not: a test awaits it
   * to know a request sent while silenced has arrived before turning silence off.
   */
  nextRequest(): Promise<Buffer>;
  /** Stops listening and closes every open connection. */
  close(): Promise<void>;
}

/**
 * An emulator listening on TCP.
 *
 * @example
 * const emulator = await startEmulatorServer({ protocol });
 * const socket = net.connect(emulator.port, emulator.host);
 */
export interface RunningEmulator extends EmulatorControls {
  readonly host: string;
  readonly port: number;
}

/**
 * Options every emulator's `startEmulator` takes (the CLI passes them through).
 *
 * @example
 * const emulator = await startEmulator({ port: 0, transport: 'solarman', now: () => new Date(2026, 5, 21, 12) });
 */
export interface EmulatorOptions {
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Default 0: a free port, see `RunningEmulator.port`. */
  port?: number;
  /** The wire framing, for devices that have several (Modbus: tcp, rtu-over-tcp, solarman). */
  transport?: string;
  /** The emulator's clock (default: the system clock); values follow its local time of day. */
  now?: () => Date;
  /** Modbus emulators: the unit id the device answers to (default 1). */
  unitId?: number;
  /** The `solarman` transport: the logger serial number it answers to. */
  loggerSerial?: number;
  /** The `solarman` transport: append two zero bytes after each Modbus CRC, as some Deye loggers do. */
  doubleCrc?: boolean;
  /** Emulators of a family: which model to be (e.g. the deye emulator's `three-phase-lv`); default the first. */
  model?: string;
}

/**
 * What an emulator module (the manifest's `heliograph.emulator`) exports.
 *
 * @example
 * const mod = (await import(pathToFileURL(file).href)) as EmulatorModule;
 * const emulator = await mod.startEmulator({ port: 0 });
 */
export interface EmulatorModule {
  startEmulator(options: EmulatorOptions): Promise<RunningEmulator>;
  /** The transports `startEmulator` accepts; the first is the default. */
  transports: readonly string[];
}

/**
 * What the emulator of a device that connects out exports instead (an EV charger that dials
 * its central system, `heliograph emulate ocpp-charger --url ws://...`): it takes the
 * command line's flags after its name and connects.
 *
 * @example
 * const mod = (await import(pathToFileURL(file).href)) as ConnectingEmulatorModule;
 * const running = await mod.runEmulator(['--url', 'ws://127.0.0.1:8080/ocpp/CP1', '--password', secret]);
 */
export interface ConnectingEmulatorModule {
  /** Parses `flags`, connects, and resolves once it runs; throws a message naming a wrong flag. */
  runEmulator(flags: string[]): Promise<{ describe: string; close(): Promise<void> }>;
}

/** Requests longer than this without a complete frame are dropped, so garbage cannot pile up. */
const MAX_PENDING_BYTES = 64 * 1024;

/**
 * The test controls every emulator server shares, and the reply to one request under them:
 * waiters of `nextRequest` see every request, a silenced emulator answers nothing, and the
 * next `corruptNext(n)` replies go out through `protocol.corrupt`.
 *
 * @example
 * const { reply, controls } = answeringControls(protocol);
 * const answer = reply(request); // undefined: send nothing
 */
export function answeringControls(protocol: FrameProtocol): {
  reply: (request: Buffer) => Buffer | undefined;
  controls: Omit<EmulatorControls, 'close'>;
} {
  let silent = false;
  let corruptions = 0;
  const waiters: Array<(request: Buffer) => void> = [];
  return {
    reply: (request) => {
      for (const waiter of waiters.splice(0)) waiter(request);
      if (silent) return undefined;
      const reply = protocol.answer(request);
      if (!reply || corruptions === 0) return reply;
      corruptions--;
      return protocol.corrupt(reply);
    },
    controls: {
      silence(on) {
        silent = on;
      },
      corruptNext(count) {
        corruptions = count;
      },
      nextRequest() {
        return new Promise<Buffer>((resolve) => waiters.push(resolve));
      },
    },
  };
}

/**
 * Listens on TCP and answers each connection's requests through `protocol`, with the test
 * controls of {@link EmulatorControls}. Requests on one connection are answered in order.
 *
 * @example
 * const emulator = await startEmulatorServer({ protocol: pi30Protocol(device), port: 0 });
 * console.log(`listening on ${emulator.host}:${emulator.port}`);
 */
export async function startEmulatorServer(options: {
  protocol: FrameProtocol;
  host?: string;
  port?: number;
}): Promise<RunningEmulator> {
  const { protocol } = options;
  const sockets = new Set<Socket>();
  const { reply, controls } = answeringControls(protocol);

  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length > 0) {
        const length = protocol.frameLength(pending);
        if (length < 0) break;
        const request = pending.subarray(0, Math.max(length, 1));
        pending = pending.subarray(request.length);
        const answer = reply(request);
        if (answer) socket.write(answer);
      }
      if (pending.length > MAX_PENDING_BYTES) pending = Buffer.alloc(0);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    host: address.address,
    port: address.port,
    ...controls,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Checks an emulator's `transport` option against the ones it speaks; the first is the default.
 *
 * @example
 * const transport = pickTransport(options.transport, MODBUS_TRANSPORTS); // 'tcp' when not given
 */
export function pickTransport<T extends string>(given: string | undefined, known: readonly T[]): T {
  if (given === undefined) return known[0]!;
  if ((known as readonly string[]).includes(given)) return given as T;
  throw new Error(`unknown transport "${given}": expected one of ${known.join(', ')}`);
}
