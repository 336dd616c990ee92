/**
 * The JK BMS emulator, as `heliograph emulate jkbms` starts it: one 16-cell LFP pack behind a
 * TCP serial bridge, answering the "read all data" request (command 06) with a reply frame
 * built from the protocol's data ids (protocol version 0xC0 = 01 by default: the current's
 * top bit set while charging; `offset` for the older encoding). A request with a wrong
 * checksum gets no answer.
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
import {
  JK_FIELD_SIZES,
  JkField,
  jkCurrentRaw,
  jkFrame,
  jkFrameLength,
  parseJkFrame,
  READ_ALL,
  READ_ALL_IDS,
} from '../protocol.js';

export const transports = ['tcp'] as const;

const CAPACITY_AH = 280;
const CELLS = 16;

/** One pack: its charge follows a PV surplus by day and the house at night. */
export class JkPack extends EmulatedSite {
  cycles = 52;
  /** A, + charging. */
  current = 0;
  voltage = 0;
  temperatures = { mos: 31, t1: 24, t2: -3 };
  identity = { deviceId: 'JK_B2A24S', software: '11.XW_S11.26___', serial: 'JK2026A0001234' };
  encoding: 'sign-bit' | 'offset';

  constructor(options: { now?: () => Date; soc?: number; encoding?: 'sign-bit' | 'offset' } = {}) {
    super(options, { soc: 70 });
    this.encoding = options.encoding ?? 'sign-bit';
  }

  /** Moves the pack on to now: current from the PV surplus or the house, SOC from the current. */
  private advance(): void {
    const hours = this.day.advance();
    const time = this.now();
    this.voltage = Math.round((48 + 0.08 * this.soc) * 100) / 100;
    const amps = ((4000 * sunFraction(time) - householdLoad(time)) / this.voltage) * 100;
    this.current = clamp(Math.round(amps) / 100, -150, 150);
    if ((this.current > 0 && this.soc >= 100) || (this.current < 0 && this.soc <= 5)) this.current = 0;
    this.soc = clamp(this.soc + (this.current * hours * 100) / CAPACITY_AH, 0, 100);
  }

  /** The information field of a "read all" reply: each data id with its value. */
  readAll(): Buffer {
    this.advance();
    const cell = Math.round((this.voltage / CELLS) * 1000);
    const cells = Buffer.alloc(CELLS * 3);
    for (let i = 0; i < CELLS; i++) {
      cells[i * 3] = i + 1;
      cells.writeUInt16BE(cell + (i === 3 ? 7 : i === 11 ? -6 : 0), i * 3 + 1);
    }
    const ascii = (value: string, size: number) => Buffer.from(value.padEnd(size, '\0').slice(0, size), 'latin1');
    const values = new Map<number, Buffer>([
      [JkField.mosTemperature, u16(temperatureRaw(this.temperatures.mos))],
      [JkField.temperature1, u16(temperatureRaw(this.temperatures.t1))],
      [JkField.temperature2, u16(temperatureRaw(this.temperatures.t2))],
      [JkField.voltage, u16(Math.round(this.voltage * 100))],
      [JkField.current, u16(jkCurrentRaw(this.current, this.encoding))],
      [JkField.soc, Buffer.of(Math.round(this.soc))],
      [0x86, Buffer.of(2)],
      [JkField.cycles, u16(this.cycles)],
      [0x8a, u16(CELLS)],
      [0x8b, u16(0)],
      [0x8c, u16(0b111)],
      [JkField.capacitySetting, u32(CAPACITY_AH)],
      [JkField.deviceId, ascii(this.identity.deviceId, 8)],
      [JkField.softwareVersion, ascii(this.identity.software, 15)],
      [JkField.actualCapacity, u32(0)],
      [JkField.manufacturerId, ascii(this.identity.serial, 24)],
      [JkField.protocolVersion, Buffer.of(this.encoding === 'sign-bit' ? 1 : 0)],
    ]);
    const parts: Buffer[] = [Buffer.of(JkField.cellVoltages, cells.length), cells];
    for (const id of READ_ALL_IDS) {
      const value = values.get(id) ?? SETTINGS.get(id) ?? Buffer.alloc(JK_FIELD_SIZES[id]!);
      if (JK_FIELD_SIZES[id] !== value.length) throw new Error(`field ${id.toString(16)}: ${value.length} bytes`);
      parts.push(Buffer.of(id), value);
    }
    return Buffer.concat(parts);
  }
}

/** Protection settings a unit typically leaves at (16S LFP): served as they are, never used by the driver. */
const SETTINGS = new Map<number, Buffer>([
  [0x8e, u16(5840)],
  [0x8f, u16(4000)],
  [0x90, u16(3650)],
  [0x91, u16(3400)],
  [0x92, u16(5)],
  [0x93, u16(2500)],
  [0x94, u16(2900)],
  [0x95, u16(5)],
  [0x96, u16(300)],
  [0x97, u16(200)],
  [0x98, u16(300)],
  [0x99, u16(150)],
  [0x9a, u16(30)],
  [0x9b, u16(3000)],
  [0x9c, u16(10)],
  [0x9d, Buffer.of(1)],
  [0xa9, Buffer.of(CELLS)],
  [0xab, Buffer.of(1)],
  [0xac, Buffer.of(1)],
  [0xae, Buffer.of(1)],
  [0xb2, Buffer.from('123456\0\0\0\0', 'latin1')],
  [0xb5, Buffer.from('2604', 'latin1')],
]);

/**
 * The raw temperature field of `celsius` as units in the field send it: 0..99 as is, below zero
 * 99 − °C (−1 °C = 100, −3 °C = 102): esphome-jk-bms components/jk_bms/jk_bms.h
 * `get_temperature_` (`value > 99 ? 99 - value`), written here from that rule, not from the
 * driver's decoder.
 */
function temperatureRaw(celsius: number): number {
  const whole = Math.round(celsius);
  return whole < 0 ? 99 - whole : whole;
}

function u16(value: number): Buffer {
  const buf = Buffer.alloc(2);
  buf.writeUInt16BE(value & 0xffff);
  return buf;
}

function u32(value: number): Buffer {
  const buf = Buffer.alloc(4);
  buf.writeUInt32BE(value);
  return buf;
}

/** The frames around a pack; corruption breaks the checksum. */
export function jkProtocol(pack: JkPack): FrameProtocol {
  return {
    frameLength: jkFrameLength,
    answer(request) {
      const parsed = parseJkFrame(request);
      if (!parsed || parsed.command !== READ_ALL || parsed.transport !== 0x00) return undefined;
      return jkFrame({ command: READ_ALL, source: 0x00, transport: 0x01, info: pack.readAll() });
    },
    corrupt: flipLastByte,
  };
}

/**
 * Starts an emulated JK BMS; `pack` gives tests its state.
 *
 * @example
 * const emulator = await startEmulator({ port: 0 });
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator & { pack: JkPack }> {
  const pack = new JkPack({ now: options.now });
  return startFrameEmulator(options, { transports, name: 'pack', device: pack, protocol: jkProtocol });
}
