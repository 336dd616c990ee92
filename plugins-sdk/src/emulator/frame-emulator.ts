/*
 * Start-up of an emulator for a byte-protocol device (a BMS, an inverter's serial port) that
 * a TCP serial bridge carries: the transport check and the listener every such emulator repeated.
 */
import {
  pickTransport,
  startEmulatorServer,
  type EmulatorOptions,
  type FrameProtocol,
  type RunningEmulator,
} from './server.js';

/**
 * Starts `protocol` (built around `device`) on a TCP listener at `options.host` and
 * `options.port`, after checking `options.transport` is one of `transports`. Returns the
 * emulator with `device` under `name`, for tests to reach its state.
 *
 * @example
 * export const startEmulator = (options: EmulatorOptions = {}) =>
 *   startFrameEmulator(options, { transports, name: 'pack', device: new MyPack(), protocol: myProtocol });
 */
export async function startFrameEmulator<N extends string, D>(
  options: EmulatorOptions,
  args: { transports: readonly string[]; name: N; device: D; protocol: (device: D) => FrameProtocol },
): Promise<RunningEmulator & { [K in N]: D }> {
  pickTransport(options.transport, args.transports);
  const running = await startEmulatorServer({
    protocol: args.protocol(args.device),
    host: options.host,
    port: options.port,
  });
  return Object.assign(running, { [args.name]: args.device } as { [K in N]: D });
}

/**
 * A copy of `reply` with its last byte inverted: the corruption for protocols whose frame ends
 * in its checksum.
 *
 * @example
 * const protocol: FrameProtocol = { frameLength, answer, corrupt: flipLastByte };
 */
export function flipLastByte(reply: Buffer): Buffer {
  const copy = Buffer.from(reply);
  copy[copy.length - 1] = copy[copy.length - 1]! ^ 0xff;
  return copy;
}
