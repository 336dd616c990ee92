/*
 * Battery control's time slots as plain data. The Growatt Modbus RTU protocol v1.24 ("Priority
 * set", holding 1070..1108) gives each priority three daily time slots, each a start and a stop
 * word (hour in the high byte, minute in the low byte) and an on/off switch, with the priority's
 * settings: grid first 1070 discharge power rate (%), 1071 stop SOC, slot 1 at 1080..1082;
 * battery first 1090 charge power rate (%), 1091 stop SOC, 1092 AC charge switch, slot 1 at
 * 1100..1102. Outside every enabled slot the unit runs load first, its normal self.
 *
 * A forced command is slot 1 of one priority from the device's minute now to the lease's end
 * by the device's own clock (holding 45..50): Charge and Hold battery first (with and without AC
 * charge), Discharge grid first. The slot repeats every day (the protocol has no date), so it
 * never passes midnight (it stops at 23:59 at the latest) and a renewal keeps its start only
 * while the slot stays within an hour: a renewal writes one word, the stop, and once an hour two.
 */
import type { BatteryCommand, BatteryMode } from '@heliograph/plugins-sdk';
import { changedRuns } from '@heliograph/plugins-sdk/connections';

/** The control block battery control reads and writes: holding 1070..1102. */
export const BLOCK_START = 1070;
export const BLOCK_LENGTH = 33;
/** The device's clock: holding 45..50, year (− 2000), month, day, hour, minute, second. */
export const CLOCK_START = 45;

/** Block offsets of one priority's slot 1 and settings. */
export interface SlotLayout {
  rate: number;
  stopSoc: number;
  start: number;
  stop: number;
  enable: number;
}
/** Grid first: 1070 rate, 1071 stop SOC, 1080..1082 slot 1. */
export const GRID_FIRST: SlotLayout = { rate: 0, stopSoc: 1, start: 10, stop: 11, enable: 12 };
/** Battery first: 1090 rate, 1091 stop SOC, 1100..1102 slot 1. */
export const BATTERY_FIRST: SlotLayout = { rate: 20, stopSoc: 21, start: 30, stop: 31, enable: 32 };
/** Battery first's AC charge switch, 1092. */
export const AC_CHARGE = 22;

const DAY_MINUTES = 24 * 60;
/** A renewal keeps the slot's start while the slot stays at most this long (minutes). */
const LONGEST_SLOT = 60;

/** A time of day as the protocol's word: hour in the high byte, minute in the low byte. */
export const timeWord = (minutes: number) => (Math.floor(minutes / 60) << 8) | (minutes % 60);
/** A time word as minutes since midnight. */
export const minutesOf = (word: number) => (word >> 8) * 60 + (word & 0xff);

/** The device's time of day. */
export interface DeviceTime {
  /** Minutes since midnight. */
  minute: number;
  second: number;
}

/**
 * The device's time from holding 45..50 (year offset from 2000, as growatt_local's
 * read_device_time reads them: WouterTuinstra/Homeassistant-Growatt-Local-Modbus
 * custom_components/growatt_local/API/growatt.py); throws when they hold no date and time.
 *
 * @example
 * deviceTime([26, 12, 21, 22, 5, 40]); // { minute: 1325, second: 40 }
 */
export function deviceTime(words: readonly number[]): DeviceTime {
  const [year, month, day, hour, minute, second] = words as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(2000 + year, month - 1, day));
  const isDate = year < 100 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  if (!isDate || hour > 23 || minute > 59 || second > 59)
    throw new Error(
      `the inverter's clock (holding 45..50) reads ${words.join(', ')}, no date and time; set its date and time`,
    );
  return { minute: hour * 60 + minute, second };
}

/** Whether `minute` lies in the slot from `start` to `stop` (stop excluded; a start after the stop runs past midnight). */
export function inSlot(startWord: number, stopWord: number, minute: number): boolean {
  const start = minutesOf(startWord);
  const stop = minutesOf(stopWord);
  return start <= stop ? minute >= start && minute < stop : minute >= start || minute < stop;
}

/** A power as the rate registers' percent of `maxW`, 0..100. */
export const ratePercent = (watts: number, maxW: number) =>
  maxW > 0 ? Math.min(100, Math.max(0, Math.round((watts * 100) / maxW))) : 0;

/** What one lease writes. */
export interface LeaseInput {
  command: BatteryCommand;
  /** The 33 words of holding 1070..1102 as the device holds them. */
  block: readonly number[];
  now: DeviceTime;
  /** How long the lease has left, ms. */
  leaseMs: number;
  /** The battery's largest powers, W: 100 % of the rate registers. */
  maxChargeW: number;
  maxDischargeW: number;
}

/**
 * The block for `command`: Normal switches slot 1 of both priorities off; a forced command
 * switches the other priority's slot 1 off and sets its own from the device's minute now (or
 * the start it keeps) to the lease's end, rounded down to the minute and at most 23:59, with
 * its settings (Charge: rate, stop SOC = target, AC charge on; Hold: AC charge off; Discharge:
 * rate, stop SOC = target). Words that need no change keep what the device holds.
 *
 * @example
 * leaseBlock({ command: { mode: 'charge', powerW: 1500, targetSoc: 90 }, now: { minute: 1320, second: 40 }, leaseMs: 1_800_000, ... });
 * // 1100 22:00, 1101 22:30, 1102 on, 1090 50 % (of 3000 W), 1091 90, 1092 on
 */
export function leaseBlock(input: LeaseInput): number[] {
  const { command, block, now } = input;
  const next = [...block];
  if (command.mode === 'normal') {
    next[GRID_FIRST.enable] = 0;
    next[BATTERY_FIRST.enable] = 0;
    return next;
  }
  const slot = command.mode === 'discharge' ? GRID_FIRST : BATTERY_FIRST;
  next[slot === GRID_FIRST ? BATTERY_FIRST.enable : GRID_FIRST.enable] = 0;
  const end = Math.min(DAY_MINUTES - 1, Math.floor((now.minute * 60 + now.second + input.leaseMs / 1000) / 60));
  const oldStart = minutesOf(block[slot.start]!);
  const keep = block[slot.enable] === 1 && oldStart <= now.minute && end - oldStart <= LONGEST_SLOT;
  next[slot.start] = timeWord(keep ? oldStart : now.minute);
  next[slot.stop] = timeWord(Math.max(end, keep ? oldStart : now.minute));
  if (command.mode === 'charge') {
    next[slot.rate] = ratePercent(command.powerW, input.maxChargeW);
    next[slot.stopSoc] = Math.round(command.targetSoc);
    next[AC_CHARGE] = 1;
  } else if (command.mode === 'hold') {
    next[AC_CHARGE] = 0;
  } else {
    next[slot.rate] = ratePercent(command.powerW, input.maxDischargeW);
    next[slot.stopSoc] = Math.round(command.targetSoc);
  }
  next[slot.enable] = 1;
  return next;
}

/**
 * What slot 1 of the two priorities makes the device do at `minute`: normal with both off; the
 * mode of the slot in force (battery first before grid first, as the emulator runs them);
 * null when one is on but not in force now (it will be at its time, every day).
 *
 * @example
 * slotMode(block, 1330); // 'charge' while 1100..1101 cover 22:10 with 1102 and 1092 on
 */
export function slotMode(block: readonly number[], minute: number): BatteryMode | null {
  const on = (slot: SlotLayout) => block[slot.enable] === 1;
  const now = (slot: SlotLayout) => on(slot) && inSlot(block[slot.start]!, block[slot.stop]!, minute);
  if (!on(BATTERY_FIRST) && !on(GRID_FIRST)) return 'normal';
  if (now(BATTERY_FIRST)) return block[AC_CHARGE] === 1 ? 'charge' : 'hold';
  if (now(GRID_FIRST)) return 'discharge';
  return null;
}

/**
 * The write requests that take the device from `old` to `next`, in runs of neighbouring
 * registers: first the slots switched off, then the settings and times, the slot switched on
 * last, so the device never runs a slot with half its settings.
 *
 * @example
 * blockWrites(old, next); // a renewal: [{ address: 1101, values: [0x1630] }]
 */
export function blockWrites(
  old: readonly number[],
  next: readonly number[],
): Array<{ address: number; values: number[] }> {
  const enables = [GRID_FIRST.enable, BATTERY_FIRST.enable];
  const off = old.map((word, i) => (enables.includes(i) && next[i] === 0 ? 0 : word));
  const settings = next.map((word, i) => (enables.includes(i) && word === 1 ? off[i]! : word));
  return [
    ...changedRuns(BLOCK_START, old, off),
    ...changedRuns(BLOCK_START, off, settings),
    ...changedRuns(BLOCK_START, settings, next),
  ];
}
