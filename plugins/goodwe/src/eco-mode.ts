/*
 * The GoodWe ET's eco mode groups as plain data, as the goodwe library encodes them
 * (marcelblijleven/goodwe goodwe/sensor.py): `EcoModeV2` / `Schedule` (ARM firmware 19 and
 * later, 6 registers from 47547, 47553, 47559, 47565: start hour, start minute, end hour, end
 * minute, on/off byte, weekday bits, power (s16, negative charges), SOC, month bits) and
 * `EcoModeV1` (4 registers from 47515, 47519, 47523, 47527: the times, the power, then the
 * on/off byte and the weekday bits). The weekday bits count from Sunday (bit 0, sensor.py
 * `DAY_NAMES`); the on/off byte is -1 - schedule type when on (0xFF for an eco group in %,
 * 0xF9 on platform 745, whose power is in tenths of a %) and the type when off. The inverter's
 * clock is the setting "time" at 45200 (et.py `Timestamp("time", 45200, ...)`: year − 2000,
 * month, day, hour, minute, second, one byte each).
 *
 * A forced command is one group (group 1) from the device's minute now to the lease's end on
 * today's weekday only; the other groups are switched off and the work mode (47000) is Eco (3),
 * which is self-use outside its groups. A renewal moves the end and nothing else while the
 * forced window is at most an hour long; then the group starts again at the device's minute
 * now, so a group left behind by a Heliograph gone for good forces an hour a week at most.
 */
import type { BatteryCommand, BatteryMode } from '@heliograph/plugins-sdk';

/** Only the registers that change are written (the SDK's, as every EEPROM-backed driver plans its writes). */
export { changedRuns } from '@heliograph/plugins-sdk/connections';

/** The work mode register and its Eco value (inverter.py `OperationMode.ECO`). */
export const WORK_MODE = 47000;
export const ECO = 3;
export const GENERAL = 0;
/** EMS mode (et.py `Integer("ems_mode", 47511)`); 1 is `EMSMode.AUTO`, self-use. */
export const EMS_MODE = 47511;
/** The inverter's clock (et.py `Timestamp("time", 45200)`). */
export const CLOCK = 45200;
/** The groups' first registers, V2 (ARM firmware 19 and later) and V1. */
export const GROUPS_V2 = [47547, 47553, 47559, 47565] as const;
export const GROUPS_V1 = [47515, 47519, 47523, 47527] as const;
/** The on/off byte of an eco group switched on: −1 (power in %) and −7 (platform 745, power in ‰). */
const ON_ECO = 0xff;
const ON_ECO_745 = 0xf9;
const ALL_MONTHS = 0x0fff;
/** The longest forced window a renewal keeps its start for, minutes. */
const LONGEST_WINDOW = 60;
const DAY_MINUTES = 24 * 60;

export type GroupVersion = 'v1' | 'v2';

/** One eco mode group as its registers hold it. */
export interface EcoGroup {
  start: number;
  /** Minutes since midnight; the end is not in the group (00:00..23:59 is the library's whole day). */
  end: number;
  /** The on/off byte as read (0xFF on, 0 off for an eco group; 0xF9 / 6 on platform 745). */
  onOff: number;
  /** Bit 0 Sunday .. bit 6 Saturday. */
  days: number;
  /** −100..100 % (−1000..1000 ‰ on platform 745); negative charges. */
  power: number;
  /** Charge up to this SOC (V2; V1 has none: 100). */
  soc: number;
  /** Bit 0 January .. bit 11 December; 0 or 0x0FFF every month. */
  months: number;
}

const byteHigh = (word: number) => (word >> 8) & 0xff;
const s16 = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);
const minutes = (word: number) => byteHigh(word) * 60 + (word & 0xff);
const timeWord = (m: number) => (Math.floor(m / 60) << 8) | (m % 60);

/** Whether the on/off byte switches the group on (a negative byte: −1 − schedule type). */
export const isOn = (group: EcoGroup) => group.onOff >= 0x80;
/** Whether the group's power counts tenths of a % (schedule type 6, platform 745). */
export const permille = (group: EcoGroup) => group.onOff === ON_ECO_745 || group.onOff === 6;

/** The group from its registers (6 words for V2, 4 for V1). */
export function decodeGroup(words: readonly number[], version: GroupVersion): EcoGroup {
  const [w0, w1, w2, w3, w4, w5] = words.map((w) => w ?? 0);
  if (version === 'v1')
    return {
      start: minutes(w0!),
      end: minutes(w1!),
      power: s16(w2!),
      onOff: byteHigh(w3!),
      days: w3! & 0xff,
      soc: 100,
      months: 0,
    };
  return {
    start: minutes(w0!),
    end: minutes(w1!),
    onOff: byteHigh(w2!),
    days: w2! & 0xff,
    power: s16(w3!),
    soc: w4!,
    months: w5!,
  };
}

/** The group's registers. */
export function encodeGroup(group: EcoGroup, version: GroupVersion): number[] {
  const power = group.power & 0xffff;
  const onDays = (group.onOff << 8) | group.days;
  if (version === 'v1') return [timeWord(group.start), timeWord(group.end), power, onDays];
  return [timeWord(group.start), timeWord(group.end), onDays, power, group.soc, group.months];
}

/** The group switched off (the on/off byte to the schedule type, as sensor.py `encode_off` does). */
export function switchedOff(group: EcoGroup): EcoGroup {
  return isOn(group) ? { ...group, onOff: permille(group) ? 6 : 0 } : group;
}

/** The device's time, from its clock registers. */
export interface DeviceTime {
  /** Minutes since midnight. */
  minute: number;
  second: number;
  /** 0 Sunday .. 6 Saturday (the groups' weekday bits). */
  weekday: number;
  /** 0 January .. 11 December. */
  month: number;
}

/**
 * The clock registers as sensor.py `read_datetime` reads them. Throws when they hold no date
 * and time of day.
 *
 * @example
 * deviceTime([0x1a06, 0x1516, 0x1e00]); // Sunday 21 June 2026 22:30:00
 */
export function deviceTime(words: readonly number[]): DeviceTime {
  const bytes = words.flatMap((w) => [byteHigh(w), w & 0xff]);
  const [year, month, day, hour, minute, second] = [
    2000 + bytes[0]!,
    bytes[1]!,
    bytes[2]!,
    bytes[3]!,
    bytes[4]!,
    bytes[5]!,
  ];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59)
    throw new Error(
      `the inverter's clock reads ${bytes.slice(0, 6).join(' ')} (year − 2000, month, day, hour, minute, second), ` +
        'no date and time; set its date and time (SEMS or the PV Master app)',
    );
  return { minute: hour * 60 + minute, second, weekday: date.getUTCDay(), month: month - 1 };
}

/** The clock registers for a local time, as the device holds them. */
export function clockWords(time: Date): number[] {
  return [
    ((time.getFullYear() - 2000) << 8) | (time.getMonth() + 1),
    (time.getDate() << 8) | time.getHours(),
    (time.getMinutes() << 8) | time.getSeconds(),
  ];
}

/**
 * Whether `group` is in force at the device's `now`: on, an eco group, today's month, and the
 * minute within start..end on a day whose bit is set (a group past midnight, end before start,
 * runs on into the next day as its start day's).
 */
export function inForce(group: EcoGroup, now: DeviceTime): boolean {
  if (!isOn(group) || (group.onOff !== ON_ECO && group.onOff !== ON_ECO_745)) return false;
  if (group.months !== 0 && group.months !== ALL_MONTHS && (group.months & (1 << now.month)) === 0) return false;
  const today = (group.days & (1 << now.weekday)) !== 0;
  const yesterday = (group.days & (1 << ((now.weekday + 6) % 7))) !== 0;
  if (group.start <= group.end) return today && now.minute >= group.start && now.minute < group.end;
  return (today && now.minute >= group.start) || (yesterday && now.minute < group.end);
}

/** The power word's step: 1 % or 1 ‰. */
const step = (group: EcoGroup) => (permille(group) ? 10 : 1);

/**
 * What one group in force makes the battery do: Hold is a charge group at the least power
 * (1 %, 10 ‰) to the SOC it holds, Charge one at more; Discharge a positive power.
 */
export function groupMode(group: EcoGroup): BatteryMode {
  if (group.power > 0) return 'discharge';
  return group.power >= -step(group) ? 'hold' : 'charge';
}

/**
 * What the device does by its work mode and groups now: `normal` outside Eco or with no
 * group on; the mode of the first group in force; null when a group is on but not in force (it
 * will force the battery later: not normal, and a start ends it).
 */
export function deviceMode(args: {
  workMode: number;
  groups: readonly EcoGroup[];
  now: DeviceTime;
}): BatteryMode | null {
  if (args.workMode !== ECO) return 'normal';
  const on = args.groups.filter((g) => isOn(g));
  if (on.length === 0) return 'normal';
  const now = on.find((g) => inForce(g, args.now));
  return now ? groupMode(now) : null;
}

/** What one lease writes into group 1. */
export interface LeaseInput {
  command: BatteryCommand;
  /** Group 1 as the device holds it, and whether the device runs Eco now. */
  group: EcoGroup;
  eco: boolean;
  now: DeviceTime;
  /** How long the lease has left, ms. */
  leaseMs: number;
  /** The SOC now, % (the SOC Hold keeps). */
  soc: number;
  minSoc: number;
  /** The command's power in % of the inverter's rated power (1..100). */
  powerPct: number;
  /** Whether the device's groups count power in tenths of a % (platform 745). */
  permille: boolean;
}

/**
 * Group 1 forcing `command` from the device's minute now to the lease's end (rounded down to
 * the minute, so never past it), on today's weekday; a renewal of the same command within an
 * hour keeps the start, so it moves only the end.
 *
 * @example
 * leaseGroup({ command: { mode: 'charge', powerW: 2000, targetSoc: 90 }, now: { minute: 22 * 60, second: 0, weekday: 0, month: 5 }, leaseMs: 1_800_000, powerPct: 20, ... });
 * // 22:00..22:30, Sunday, −20 %, to 90 %
 */
export function leaseGroup(input: LeaseInput): EcoGroup {
  const { command, now, group: old } = input;
  const unit = input.permille ? 10 : 1;
  const endAbsolute = Math.floor((now.minute * 60 + now.second + input.leaseMs / 1000) / 60);
  if (endAbsolute <= now.minute) throw new Error(`a lease of ${input.leaseMs} ms is shorter than the device's minute`);
  const day = 1 << now.weekday;
  const running = input.eco && inForce(old, now) && old.days === day && old.start <= now.minute;
  const sameMode = running && groupMode(old) === command.mode;
  const start = sameMode && endAbsolute - old.start <= LONGEST_WINDOW ? old.start : now.minute;
  // A hold already running keeps its SOC (nothing written at a renewal); a new one holds the SOC now.
  const holdSoc =
    sameMode && command.mode === 'hold' ? old.soc : Math.max(Math.ceil(input.minSoc), Math.floor(input.soc));
  const pct = Math.min(100, Math.max(2, Math.round(input.powerPct)));
  const power = command.mode === 'hold' ? -unit : command.mode === 'charge' ? -pct * unit : pct * unit;
  return {
    start,
    end: endAbsolute % DAY_MINUTES,
    onOff: input.permille ? ON_ECO_745 : ON_ECO,
    days: day,
    power,
    soc: command.mode === 'hold' ? holdSoc : command.mode === 'charge' ? Math.round(command.targetSoc) : 100,
    months: input.permille ? ALL_MONTHS : 0,
  };
}
