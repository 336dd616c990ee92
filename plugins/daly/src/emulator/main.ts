/**
 * The Daly BMS emulator, as `heliograph emulate daly` starts it: one 16-cell LFP pack behind
 * a TCP serial bridge, answering commands 90..94 from a host on either port address (40 or
 * 80) with 13-byte frames; a frame with a wrong checksum gets no answer.
 */
import {
  clamp,
  EmulatedSite,
  flipLastByte,
  householdLoad,
  startFrameEmulator,
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
  /**
   * `inverted` emulates firmware that sends the current the other way round (charging
   * positive on the wire, and its charge / discharge state with it, as the BMS's own app shows
   * it: Louisvdw/dbus-serialbattery issue #65, Daly Smart BMS 150 A 16S).
   */
  currentSign: 'normal' | 'inverted';

  constructor(options: { now?: () => Date; soc?: number; currentSign?: 'normal' | 'inverted' } = {}) {
    super(options, { soc: 70 });
    this.currentSign = options.currentSign ?? 'normal';
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
    // python-daly-bms `get_soc`: (raw − 30000) / 10 A, "negative=charging"; inverted firmware the other way.
    const wireCurrent = this.currentSign === 'normal' ? -this.current : this.current;
    switch (command) {
      case DalyCommand.soc:
        data.writeInt16BE(Math.round(volts * 10), 0);
        data.writeUInt16BE(Math.round(30000 + wireCurrent * 10), 4);
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
        // python-daly-bms `get_mosfet_status`: 0 stationary, 1 charging, 2 discharging.
        data.writeInt8(wireCurrent < 0 ? 1 : wireCurrent > 0 ? 2 : 0, 0);
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
    corrupt: flipLastByte,
  };
}

/**
 * Starts an emulated Daly BMS; `pack` gives tests its state.
 *
 * @example
 * const emulator = await startEmulator({ port: 0 });
 */
export async function startEmulator(
  options: EmulatorOptions & { currentSign?: 'normal' | 'inverted' } = {},
): Promise<RunningEmulator & { pack: DalyPack }> {
  const pack = new DalyPack({ now: options.now, currentSign: options.currentSign });
  return startFrameEmulator(options, { transports, name: 'pack', device: pack, protocol: dalyProtocol });
}
