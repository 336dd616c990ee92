/*
 * The JK (Jikong) BMS RS485 / UART protocol, as esphome-jk-bms (jk_modbus, jk_bms) speaks it:
 * a frame is 4E 57, a length (2 bytes: every byte after 4E 57, checksum included), a terminal
 * number (4), a command (06 = read all), a frame source (03 from a PC, 00 from the BMS), a
 * transport type (00 request, 01 reply), the information field, a record number (4), the end
 * byte 68 and a checksum: 4 bytes, of which the last two are the 16-bit sum of every byte
 * before the checksum. A reply's information field is a run of data ids, each followed by a
 * value of the id's fixed size (0x79, the cell voltages, by its own length byte).
 */
import { byteSum } from '@heliograph/plugins-sdk/connections';

export const READ_ALL = 0x06;
const HEADER = 11;
const TRAILER = 9;
const MAX_LENGTH = 1024;

/** Value size in bytes of each data id this driver reads or skips (0x79 excepted). */
export const JK_FIELD_SIZES: Readonly<Record<number, number>> = (() => {
  const sizes: Record<number, number> = {};
  const set = (size: number, ...ids: number[]) => ids.forEach((id) => (sizes[id] = size));
  for (let id = 0x80; id <= 0xc0; id++) sizes[id] = 2;
  set(1, 0x85, 0x86, 0x9d, 0xa9, 0xab, 0xac, 0xae, 0xaf, 0xb1, 0xb3, 0xb8, 0xbb, 0xbc, 0xbd, 0xc0);
  set(4, 0x89, 0xaa, 0xb5, 0xb6, 0xb9);
  set(10, 0xb2);
  set(8, 0xb4);
  set(15, 0xb7);
  set(24, 0xba);
  delete sizes[0x88];
  delete sizes[0x8d];
  return sizes;
})();

/** The data ids of a "read all" reply after 0x79, in the order the BMS sends them (0xBB..0xBF are write-only). */
export const READ_ALL_IDS: readonly number[] = Object.keys(JK_FIELD_SIZES)
  .map(Number)
  .filter((id) => id < 0xbb || id > 0xbf)
  .sort((a, b) => a - b);

/** The data ids the driver decodes. */
export const JkField = {
  cellVoltages: 0x79,
  mosTemperature: 0x80,
  temperature1: 0x81,
  temperature2: 0x82,
  voltage: 0x83,
  current: 0x84,
  soc: 0x85,
  cycles: 0x87,
  capacitySetting: 0xaa,
  deviceId: 0xb4,
  softwareVersion: 0xb7,
  actualCapacity: 0xb9,
  manufacturerId: 0xba,
  protocolVersion: 0xc0,
} as const;

/** The 16-bit sum of `bytes`. */
export function jkChecksum(bytes: Buffer): number {
  return byteSum(bytes) & 0xffff;
}

/** A whole frame around `info`: the header (command, source, transport), record number 0, 68, checksum. */
export function jkFrame(args: { command: number; source: number; transport: number; info: Buffer }): Buffer {
  const frame = Buffer.alloc(HEADER + args.info.length + TRAILER);
  frame.write('4e57', 0, 'hex');
  frame.writeUInt16BE(frame.length - 2, 2);
  frame[8] = args.command;
  frame[9] = args.source;
  frame[10] = args.transport;
  args.info.copy(frame, HEADER);
  frame[frame.length - 5] = 0x68;
  frame.writeUInt16BE(jkChecksum(frame.subarray(0, frame.length - 2)), frame.length - 2);
  return frame;
}

/** The "read all data" request a PC sends: 4E 57 00 13 ... 06 03 00 00 ... 68 00 00 01 29. */
export const readAllRequest = (): Buffer =>
  jkFrame({ command: READ_ALL, source: 0x03, transport: 0x00, info: Buffer.of(0) });

/** Length of the frame at the start of `buf`, -1 while incomplete; bytes before a 4E 57 are skipped as one bad frame. */
export function jkFrameLength(buf: Buffer): number {
  if (buf[0] !== 0x4e || (buf.length > 1 && buf[1] !== 0x57)) {
    const next = buf.indexOf(0x4e, 1);
    return next < 0 ? buf.length : next;
  }
  if (buf.length < 4) return -1;
  const total = buf.readUInt16BE(2) + 2;
  if (total < HEADER + TRAILER || total > MAX_LENGTH) return 2;
  return buf.length >= total ? total : -1;
}

/** The header bytes and information field of a sound frame, or undefined (start, length, end or checksum wrong). */
export function parseJkFrame(
  frame: Buffer,
): { command: number; source: number; transport: number; info: Buffer } | undefined {
  if (frame.length < HEADER + TRAILER || frame[0] !== 0x4e || frame[1] !== 0x57) return undefined;
  if (frame.readUInt16BE(2) + 2 !== frame.length || frame[frame.length - 5] !== 0x68) return undefined;
  if (frame.readUInt16BE(frame.length - 2) !== jkChecksum(frame.subarray(0, frame.length - 2))) return undefined;
  return {
    command: frame[8]!,
    source: frame[9]!,
    transport: frame[10]!,
    info: frame.subarray(HEADER, frame.length - TRAILER),
  };
}

/** The values of a reply's information field by data id; stops at an id of unknown size. */
export function jkFields(info: Buffer): Map<number, Buffer> {
  const fields = new Map<number, Buffer>();
  let at = 0;
  while (at < info.length) {
    const id = info[at]!;
    const size = id === JkField.cellVoltages ? (info[at + 1] ?? 0) + 1 : JK_FIELD_SIZES[id];
    if (size === undefined || at + 1 + size > info.length) break;
    fields.set(id, info.subarray(at + 1, at + 1 + size));
    at += 1 + size;
  }
  return fields;
}

/**
 * How field 0x84 encodes the current. `sign-bit` (protocol version 0xC0 = 01, the firmware of
 * most units in the field): 10 mA units, the top bit set while charging. `offset` (0xC0 = 00,
 * the protocol's original definition): (10000 − raw) × 10 mA, positive while charging.
 * `auto` follows the 0xC0 field of each reply (sign-bit when it is missing).
 */
export type JkCurrentEncoding = 'auto' | 'sign-bit' | 'offset';

/** Amps, + charging, from the raw 0x84 value. */
export function jkCurrent(raw: number, encoding: Exclude<JkCurrentEncoding, 'auto'>): number {
  const centiamps = encoding === 'sign-bit' ? (raw & 0x8000 ? raw & 0x7fff : -(raw & 0x7fff)) : 10000 - raw;
  return Math.round(centiamps) / 100;
}

/** The raw 0x84 value of `amps` (+ charging). */
export function jkCurrentRaw(amps: number, encoding: Exclude<JkCurrentEncoding, 'auto'>): number {
  const centiamps = Math.round(amps * 100);
  if (encoding === 'offset') return 10000 - centiamps;
  return centiamps >= 0 ? 0x8000 | centiamps : -centiamps;
}

/**
 * °C from a temperature field: 0..99 as is, 100 and above below zero, 99 − raw (100 = −1 °C,
 * 140 = −41 °C). The protocol document (esphome-jk-bms docs/protocol-design-uart-ttl-gps-port.md,
 * 0x80: "such as 101 is negative 1 degree") is off by one: units in the field send 100 at
 * −1 °C, and esphome-jk-bms components/jk_bms/jk_bms.h `get_temperature_` changed to
 * `value > 99 ? 99 - value` (commits 3d9c019 and c90367c, closing its issue #685: a MOSFET
 * sensor just below 0 °C read 100 instead of −1), as users measured in
 * Louisvdw/dbus-serialbattery issue #339 (0x64 = −1 °C, 0x65 = −2 °C).
 */
export const jkTemperature = (raw: number): number => (raw > 99 ? 99 - raw : raw);

const text = (value: Buffer | undefined) =>
  value
    ?.toString('latin1')
    .replace(/[\0\s_]+$/, '')
    .trim() || undefined;

/** What the BMS says it is: device id (0xB4), manufacturer id (0xBA, the serial), software version (0xB7). */
export function jkIdentity(fields: Map<number, Buffer>): { model?: string; serial?: string; firmware?: string } {
  const identity = {
    model: text(fields.get(JkField.deviceId)),
    serial: text(fields.get(JkField.manufacturerId)),
    firmware: text(fields.get(JkField.softwareVersion)),
  };
  return Object.fromEntries(Object.entries(identity).filter(([, value]) => value !== undefined));
}

/**
 * The battery values of a "read all" reply: `current` and `power` + charging, cell voltage
 * range from 0x79, `temperature` the mean of the two battery sensors (0x81, 0x82) with their
 * range, `mos_temperature` (0x80), capacities in Ah (full: the measured capacity 0xB9 when the
 * firmware gives one, else the configured 0xAA; remaining: full × SOC).
 */
export function jkValues(fields: Map<number, Buffer>, encoding: JkCurrentEncoding): Record<string, number | null> {
  const u16 = (id: number) => fields.get(id)?.readUInt16BE(0) ?? null;
  const u32 = (id: number) => fields.get(id)?.readUInt32BE(0) ?? null;
  const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;
  const version = fields.get(JkField.protocolVersion)?.[0];
  const chosen = encoding !== 'auto' ? encoding : version === 0 ? 'offset' : 'sign-bit';
  const rawVoltage = u16(JkField.voltage);
  const rawCurrent = u16(JkField.current);
  const voltage = rawVoltage === null ? null : rawVoltage / 100;
  const current = rawCurrent === null ? null : jkCurrent(rawCurrent, chosen);
  const cellsField = fields.get(JkField.cellVoltages);
  const cells: number[] = [];
  for (let at = 1; cellsField && at + 3 <= cellsField.length; at += 3)
    cells.push(cellsField.readUInt16BE(at + 1) / 1000);
  const temps = [JkField.temperature1, JkField.temperature2]
    .map(u16)
    .filter((t) => t !== null)
    .map(jkTemperature);
  const soc = fields.get(JkField.soc)?.[0] ?? null;
  const measured = u32(JkField.actualCapacity);
  const full = measured ? measured : u32(JkField.capacitySetting);
  const mos = u16(JkField.mosTemperature);
  return {
    voltage,
    current,
    power: voltage !== null && current !== null ? Math.round(voltage * current) : null,
    state_of_charge: soc,
    cell_voltage_min: cells.length ? Math.min(...cells) : null,
    cell_voltage_max: cells.length ? Math.max(...cells) : null,
    temperature: temps.length ? round(temps.reduce((a, b) => a + b, 0) / temps.length, 1) : null,
    cell_temperature_min: temps.length ? Math.min(...temps) : null,
    cell_temperature_max: temps.length ? Math.max(...temps) : null,
    mos_temperature: mos === null ? null : jkTemperature(mos),
    cycles: u16(JkField.cycles),
    full_capacity: full,
    remaining_capacity: full !== null && soc !== null ? round((full * soc) / 100, 1) : null,
  };
}
