/*
 * The Daly BMS UART / RS485 protocol (as python-daly-bms speaks it): 13-byte frames, start
 * byte A5, an address byte (40 from a host on RS485 / USB, 80 on UART / Bluetooth, 01 from
 * the BMS), the command (90..98), the data length 08, eight data bytes and a checksum (the
 * low byte of the sum of the twelve bytes before it).
 */
import { byteSum } from '@heliograph/plugins-sdk/connections';

export const FRAME_LENGTH = 13;

/** Commands this driver reads. */
export const DalyCommand = {
  soc: 0x90,
  cellVoltageRange: 0x91,
  temperatureRange: 0x92,
  mosfet: 0x93,
  status: 0x94,
} as const;

/** The low byte of the sum of `bytes`. */
export function dalyChecksum(bytes: Buffer): number {
  return byteSum(bytes) & 0xff;
}

/** A frame: A5, `address`, `command`, 08, `data` (8 bytes, zero-padded), checksum. */
export function dalyFrame(address: number, command: number, data: Buffer = Buffer.alloc(8)): Buffer {
  const frame = Buffer.alloc(FRAME_LENGTH);
  frame[0] = 0xa5;
  frame[1] = address;
  frame[2] = command;
  frame[3] = 0x08;
  data.copy(frame, 4, 0, 8);
  frame[12] = dalyChecksum(frame.subarray(0, 12));
  return frame;
}

/** Length of the frame at the start of `buf` (13), -1 while incomplete; bytes before an A5 are skipped as one bad frame. */
export function dalyFrameLength(buf: Buffer): number {
  if (buf[0] !== 0xa5) {
    const next = buf.indexOf(0xa5);
    return next < 0 ? buf.length : next;
  }
  return buf.length >= FRAME_LENGTH ? FRAME_LENGTH : -1;
}

/** The command and data of a sound frame, or undefined (length, start byte or checksum wrong). */
export function parseDalyFrame(frame: Buffer): { address: number; command: number; data: Buffer } | undefined {
  if (frame.length !== FRAME_LENGTH || frame[0] !== 0xa5 || frame[3] !== 0x08) return undefined;
  if (frame[12] !== dalyChecksum(frame.subarray(0, 12))) return undefined;
  return { address: frame[1]!, command: frame[2]!, data: frame.subarray(4, 12) };
}

/**
 * How the firmware signs the current of reply 90. `normal`: (raw − 30000) / 10 A, negative
 * while charging (python-daly-bms dalybms/daly_bms.py `get_soc`: "negative=charging").
 * `inverted`: some firmware (Daly Smart BMS 150 A 16S among them) sends it the other way
 * round, positive while charging; dbus-serialbattery offers `INVERT_CURRENT_MEASUREMENT = -1`
 * for it (Louisvdw/dbus-serialbattery issue #65, etc/dbus-serialbattery/bms/daly.py
 * `read_soc_data`), batmon-ha `invert_current`.
 */
export type DalyCurrentSign = 'normal' | 'inverted';

/**
 * The battery values in the replies to 90..94: `current` and `power` + charging (the BMS
 * counts (raw − 30000) / 10 A, negative while charging, or positive on `inverted` firmware),
 * temperatures with their +40 offset.
 */
export function dalyValues(
  replies: Record<number, Buffer>,
  currentSign: DalyCurrentSign = 'normal',
): Record<string, number | null> {
  const soc = replies[DalyCommand.soc];
  const cells = replies[DalyCommand.cellVoltageRange];
  const temps = replies[DalyCommand.temperatureRange];
  const mosfet = replies[DalyCommand.mosfet];
  const status = replies[DalyCommand.status];
  const voltage = soc ? soc.readInt16BE(0) / 10 : null;
  const towardsCharge = soc ? (30000 - soc.readUInt16BE(4)) / 10 : null;
  const current = towardsCharge === null ? null : currentSign === 'normal' ? towardsCharge : -towardsCharge || 0;
  const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;
  return {
    voltage,
    current,
    power: voltage !== null && current !== null ? Math.round(voltage * current) : null,
    state_of_charge: soc ? soc.readInt16BE(6) / 10 : null,
    cell_voltage_max: cells ? cells.readInt16BE(0) / 1000 : null,
    cell_voltage_min: cells ? cells.readInt16BE(3) / 1000 : null,
    cell_temperature_max: temps ? temps.readInt8(0) - 40 : null,
    cell_temperature_min: temps ? temps.readInt8(2) - 40 : null,
    temperature: temps ? round((temps.readInt8(0) + temps.readInt8(2)) / 2 - 40, 1) : null,
    remaining_capacity: mosfet ? mosfet.readInt32BE(4) / 1000 : null,
    cycles: status ? status.readInt16BE(5) : null,
  };
}
