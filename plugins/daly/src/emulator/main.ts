/**
 * The Daly BMS emulator, as `heliograph emulate daly` starts it: one 16-cell LFP pack behind
 * a TCP serial bridge, answering commands 90..94 from a host on either port address (40 or
 * 80) with 13-byte frames; a frame with a wrong checksum gets no answer.
 */
import {
  clamp,
  EmulatedSite,
  householdLoad,
  pickTransport,
  startEmulatorServer,
  sunFraction,
  type EmulatorOptions,
  type FrameProtocol,
  type RunningEmulator,
} from '@heliograph/plugins-sdk/emulator';
import { DalyCommand, dalyFrame, dalyFrameLength, parseDalyFrame } from '../protocol.js';

export const transports = ['tcp'] as const;

const CAPACITY_MAH = 100_000;

/** One pack: its charge follows a PV surplus by day and the house at night. */
export class DalyPack extends EmulatedSite {
  cycles = 37;
  /** A, + charging. */
  current = 0;

  constructor(options: { now?: () => Date; soc?: number } = {}) {
    super(options, { soc: 70 });
  }

  /** The 8 data bytes of the reply to `command`, or undefined for a command it does not know. */
  answer(command: number): Buffer | undefined {
    const hours = this.day.advance();
    const time = this.now();
    const volts = 48 + 0.08 * this.soc;
    this.current = clamp(Math.round(((4000 * sunFraction(time) - householdLoad(time)) / volts) * 10) / 10, -100, 100);
    if ((this.current > 0 && this.soc >= 100) || (this.current < 0 && this.soc <= 5)) this.current = 0;
    this.soc = clamp(this.soc + (this.current * hours * 1000 * 100) / CAPACITY_MAH, 0, 100);
    const cell = Math.round((volts / 16) * 1000);
    const data = Buffer.alloc(8);
    switch (command) {
      case DalyCommand.soc:
        data.writeInt16BE(Math.round(volts * 10), 0);
        data.writeInt16BE(Math.round(30000 - this.current * 10), 4); // the BMS counts charging negative
        data.writeInt16BE(Math.round(this.soc * 10), 6);
        return data;
      case DalyCommand.cellVoltageRange:
        data.writeInt16BE(cell + 6, 0);
        data.writeInt8(3, 2);
        data.writeInt16BE(cell - 5, 3);
        data.writeInt8(11, 5);
        return data;
      case DalyCommand.temperatureRange:
        data.writeInt8(40 + 24, 0);
        data.writeInt8(1, 1);
        data.writeInt8(40 + 21, 2);
        data.writeInt8(2, 3);
        return data;
      case DalyCommand.mosfet:
        data.writeInt8(this.current > 0 ? 1 : this.current < 0 ? 2 : 0, 0);
        data.writeUInt8(1, 1);
        data.writeUInt8(1, 2);
        data.writeInt32BE(Math.round((CAPACITY_MAH * this.soc) / 100), 4);
        return data;
      case DalyCommand.status:
        data.writeInt8(16, 0);
        data.writeInt8(2, 1);
        data.writeUInt8(this.current > 0 ? 1 : 0, 2);
        data.writeUInt8(this.current < 0 ? 1 : 0, 3);
        data.writeInt16BE(this.cycles, 5);
        return data;
      default:
        return undefined;
    }
  }
}

/** The frames around a pack; corruption breaks the checksum. */
export function dalyProtocol(pack: DalyPack): FrameProtocol {
  return {
    frameLength: dalyFrameLength,
    answer(request) {
      const parsed = parseDalyFrame(request);
      if (!parsed || (parsed.address !== 0x40 && parsed.address !== 0x80)) return undefined;
      const data = pack.answer(parsed.command);
      return data && dalyFrame(0x01, parsed.command, data);
    },
    corrupt(reply) {
      const copy = Buffer.from(reply);
      copy[12] = copy[12]! ^ 0xff;
      return copy;
    },
  };
}

/**
 * Starts an emulated Daly BMS; `pack` gives tests its state.
 *
 * @example
 * const emulator = await startEmulator({ port: 0 });
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator & { pack: DalyPack }> {
  pickTransport(options.transport, transports);
  const pack = new DalyPack({ now: options.now });
  const running = await startEmulatorServer({ protocol: dalyProtocol(pack), host: options.host, port: options.port });
  return Object.assign(running, { pack });
}
