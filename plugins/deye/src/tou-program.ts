/*
 * The time-of-use program a lease writes, as plain data: six time points (HHMM, each starting
 * its slot, the last running past midnight to the first), each with a battery power, a
 * voltage, a SOC and charge flags. A forced command is one slot that starts at or before the
 * device's time now and ends at the lease's end; the other five are self-use (the battery's
 * minimum SOC, no grid charge, full power), so the device is back to normal by itself when the
 * slot ends. The slot times are the device's own clock, so a drifted clock still bounds it.
 *
 * Layout: slot 1 forced from `start`, slot 2 self-use from `end`, slots 3..6 self-use at
 * start − 4 .. start − 1 minutes. The times stay in the device's cyclic order (each slot ends
 * where the next begins), and a renewal moves only slot 2's time while the forced window is
 * shorter than a day less five minutes.
 *
 * The program repeats on each day whose bit is set in the timer register, so a lease sets only
 * the days its window covers by the device's own calendar (today, and tomorrow when the window
 * passes midnight): a program left behind comes round again a week later, not the next day.
 */
import type { BatteryCommand, BatteryMode } from '@heliograph/plugins-sdk';

/** Only the registers that change are written (the SDK's, as every EEPROM-backed driver plans its writes). */
export { changedRuns } from '@heliograph/plugins-sdk/connections';

export const SLOTS = 6;
export const PROGRAM_LENGTH = 5 * SLOTS;
const DAY_MINUTES = 24 * 60;
/** Slots 3..6 sit in the four minutes before the forced slot. */
const TAIL = 4;
/**
 * The longest forced window a renewal keeps its start for. A longer one starts again at the
 * device's minute now (six time registers written once in 45 minutes of forcing, one
 * otherwise), so a program left behind by a Heliograph gone for good forces an hour at most.
 */
const LONGEST_WINDOW = 60;

/** Block offsets in the 30 program words. */
const TIME = 0;
const POWER = 1;
const SOC = 3;
const FLAGS = 4;
/** Grid charge in a slot's flags (mask 0x03: bit 0 grid, bit 1 generator). */
const GRID = 1;

/**
 * The timer register (248 single-phase, 146 three-phase): bit 0 "use timer", bits 1..7 the days
 * the program runs, Monday..Sunday (kellerza/sunsynk `three_phase_common.py` "Prog Monday
 * Enabled" ..; ha-solarman `deye_p3.yaml` and `deye_hybrid.yaml` "Time of Use": 0x0003 Monday ..
 * 0x0081 Sunday, 0x00FF every day).
 */
export const TIMER = 0x01;
export const WEEKDAYS = 0xfe;
/** The timer register's bit for a weekday (1 Monday .. 7 Sunday). */
export const dayBit = (weekday: number) => 1 << weekday;
const nextDay = (weekday: number) => (weekday % 7) + 1;
const previousDay = (weekday: number) => ((weekday + 5) % 7) + 1;

/** The device's time, from its clock registers: the time of day and the day of the week. */
export interface DeviceTime {
  hour: number;
  minute: number;
  second: number;
  /** 1 Monday .. 7 Sunday, from the clock's date (the days of the timer register). */
  weekday: number;
}

/**
 * The clock registers as kellerza/sunsynk's SystemTimeRWSensor reads them: (year − 2000) << 8 |
 * month, day << 8 | hour, minute << 8 | second. Throws when they hold no date or no time of day.
 *
 * @example
 * deviceTime([0x1a06, 0x1516, 0x1e00]); // { hour: 22, minute: 30, second: 0, weekday: 7 } (Sunday 21 June 2026)
 */
export function deviceTime(words: readonly number[]): DeviceTime {
  const [year, month, day] = [2000 + (words[0]! >> 8), words[0]! & 0xff, words[1]! >> 8];
  const hour = words[1]! & 0xff;
  const minute = words[2]! >> 8;
  const second = words[2]! & 0xff;
  const date = new Date(Date.UTC(year, month - 1, day));
  const isDate = date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  if (!isDate || hour > 23 || minute > 59 || second > 59) {
    const pad = (n: number) => String(n).padStart(2, '0');
    throw new Error(
      `the inverter's clock reads ${year}-${pad(month)}-${pad(day)} ${pad(hour)}:${pad(minute)}:${pad(second)}, ` +
        'no date and time; set its date and time on its display',
    );
  }
  return { hour, minute, second, weekday: date.getUTCDay() || 7 };
}

const wrap = (minutes: number) => ((minutes % DAY_MINUTES) + DAY_MINUTES) % DAY_MINUTES;
/** Minutes since midnight as a time register (HHMM). */
export const hhmm = (minutes: number) => Math.floor(wrap(minutes) / 60) * 100 + (wrap(minutes) % 60);
/** A time register (HHMM) as minutes since midnight. */
export const minutesOf = (word: number) => Math.floor(word / 100) * 60 + (word % 100);

/** The slot in force at `minute` of the day: the latest time point at or before it, else the day's last one (past midnight). */
export function slotAt(times: readonly number[], minute: number): number {
  let best = -1;
  let latest = 0;
  for (let i = 0; i < SLOTS; i++) {
    const at = minutesOf(times[i]!);
    if (at <= minute && (best < 0 || at >= minutesOf(times[best]!))) best = i;
    if (at >= minutesOf(times[latest]!)) latest = i;
  }
  return best >= 0 ? best : latest;
}

/** The forced slot's start when `program` has this layout (slots 3..6 in the four minutes before slot 1), else null. */
function layoutStart(program: readonly number[]): number | null {
  const start = minutesOf(program[TIME * SLOTS]!);
  for (let i = 0; i < TAIL; i++) if (program[TIME * SLOTS + 2 + i] !== hhmm(start - TAIL + i)) return null;
  return start;
}

/** What one lease writes. */
export interface LeaseInput {
  /** A forced command: hold, charge or discharge. */
  command: BatteryCommand;
  /** The 30 program words as the device holds them (voltages and other flag bits are kept). */
  program: readonly number[];
  /** Whether the device's timer is on now (a renewal keeps what the running slot has). */
  timerOn: boolean;
  /** The device's time now and how long the lease has left (ms). */
  now: DeviceTime;
  leaseMs: number;
  /** The battery's SOC now, %, for hold. */
  soc: number;
  /** The self-use slots' SOC, %. */
  minSoc: number;
  /** The command's power and full power, in the slot power registers' units. */
  powerWord: number;
  fullPowerWord: number;
}

/** The program for a lease, the forced slot's start and end (minutes since midnight) and the days it needs. */
export interface LeaseProgram {
  program: number[];
  start: number;
  end: number;
  /** The weekday bits of the days from the device's time now to the lease's end: today, and tomorrow past midnight. */
  days: number;
}

/**
 * The program that forces `command` from the device's minute now until the lease's end,
 * rounded down to the minute (so at most `leaseMs` ahead), and self-use for the rest of the
 * day. A forced window crossing midnight wraps: the times are minutes of the day.
 *
 * @example
 * leaseProgram({ command: { mode: 'charge', powerW: 3000, targetSoc: 90 }, now: { hour: 22, minute: 5, second: 40, weekday: 7 }, leaseMs: 30 * 60_000, ... });
 * // slot 1 from 22:05 to 22:35 (slot 2), grid charge to 90 %, on Sunday (days 0x80)
 */
export function leaseProgram(input: LeaseInput): LeaseProgram {
  const { command, now } = input;
  const minute = now.hour * 60 + now.minute;
  const endAbsolute = Math.floor((now.hour * 3600 + now.minute * 60 + now.second + input.leaseMs / 1000) / 60);
  if (endAbsolute <= minute) throw new Error(`a lease of ${input.leaseMs} ms is shorter than the device's minute`);
  const program = [...input.program];
  const at = (block: number, slot: number) => block * SLOTS + slot;
  // Keep the forced slot's start while the window stays within the layout, so a renewal moves
  // only the end; otherwise the slot starts at the device's minute now.
  const kept = layoutStart(program);
  const since = kept === null ? Infinity : wrap(minute - kept);
  const start = since + (endAbsolute - minute) <= LONGEST_WINDOW ? kept! : minute;
  const end = wrap(endAbsolute);
  const times = [start, end, ...Array.from({ length: TAIL }, (_, i) => start - TAIL + i)];
  times.forEach((t, slot) => (program[at(TIME, slot)] = hhmm(t)));

  // A hold already running keeps its SOC (no register written at each renewal); a new one holds the SOC now.
  const running = input.timerOn && kept !== null;
  const holding = running && program[at(POWER, 0)] === 0 && (program[at(FLAGS, 0)]! & GRID) === 0;
  const minSoc = Math.ceil(input.minSoc);
  const holdSoc = holding ? program[at(SOC, 0)]! : Math.max(minSoc, Math.round(input.soc));
  const forced = {
    power: command.mode === 'hold' ? 0 : input.powerWord,
    soc: command.mode === 'hold' ? holdSoc : Math.round(command.targetSoc),
    grid: command.mode === 'charge',
  };
  for (let slot = 0; slot < SLOTS; slot++) {
    const self = slot > 0;
    program[at(POWER, slot)] = self ? input.fullPowerWord : forced.power;
    program[at(SOC, slot)] = self ? minSoc : forced.soc;
    const flags = program[at(FLAGS, slot)]! & ~GRID;
    program[at(FLAGS, slot)] = !self && forced.grid ? flags | GRID : flags;
  }
  // A window ending after midnight (not at it) runs into tomorrow, which needs its own bit.
  const days = dayBit(now.weekday) | (endAbsolute > DAY_MINUTES ? dayBit(nextDay(now.weekday)) : 0);
  return { program, start, end, days };
}

/**
 * The timer register for a lease that needs `days` (`LeaseProgram.days`) on `weekday`: the
 * timer on and exactly those days. A timer already on with those days is kept as it is when
 * the only other day it has is yesterday (left by a window that ran past midnight), so a
 * renewal after midnight writes nothing to it; the bits above 7 are kept.
 *
 * @example
 * leaseTimer({ old: 0xfe, days: 0x80, weekday: 7 }); // 0x81: on, Sunday only
 * leaseTimer({ old: 0x83, days: 0x02, weekday: 1 }); // 0x83 kept: Monday, and Sunday from yesterday's window
 */
export function leaseTimer(args: { old: number; days: number; weekday: number }): number {
  const { old, days } = args;
  const allowed = days | dayBit(previousDay(args.weekday));
  const keep = (old & TIMER) !== 0 && (old & days) === days && (old & WEEKDAYS & ~allowed) === 0;
  return keep ? old : (old & ~(TIMER | WEEKDAYS)) | TIMER | days;
}

/** What one slot does, from its power, SOC and grid-charge flag. */
function slotMode(program: readonly number[], slot: number, gridCharge: boolean, minSoc: number): BatteryMode {
  if (gridCharge && (program[FLAGS * SLOTS + slot]! & GRID) !== 0) return 'charge';
  if (program[POWER * SLOTS + slot] === 0) return 'hold';
  return program[SOC * SLOTS + slot]! <= Math.ceil(minSoc) ? 'normal' : 'discharge';
}

/** Whether the program runs on the device's day now: the timer on and today's bit set. */
export const runsToday = (timer: number, now: DeviceTime) =>
  (timer & TIMER) !== 0 && (timer & dayBit(now.weekday)) !== 0;

/**
 * What the device does with this program: `normal` with the timer off, with no day's bit set,
 * or when every slot that can be in force is self-use; the forced mode of the slot in force now
 * when the program runs today; null when it does not force the battery now but will on a day
 * whose bit is set (later today, or on another day: it is not normal, and a start clears it).
 *
 * @example
 * programMode({ timer: 0x81, gridCharge: true, program, now: { hour: 22, minute: 10, second: 0, weekday: 7 }, minSoc: 20 }); // 'charge'
 */
export function programMode(args: {
  /** The timer register: bit 0 on, bits 1..7 the days. */
  timer: number;
  gridCharge: boolean;
  program: readonly number[];
  now: DeviceTime;
  minSoc: number;
}): BatteryMode | null {
  const { program, gridCharge, minSoc, timer } = args;
  if ((timer & TIMER) === 0 || (timer & WEEKDAYS) === 0) return 'normal';
  const times = program.slice(0, SLOTS);
  if (runsToday(timer, args.now)) {
    const now = slotMode(program, slotAt(times, args.now.hour * 60 + args.now.minute), gridCharge, minSoc);
    if (now !== 'normal') return now;
  }
  // A slot is reachable when it is the one in force at its own start.
  for (let slot = 0; slot < SLOTS; slot++)
    if (slotAt(times, minutesOf(times[slot]!)) === slot && slotMode(program, slot, gridCharge, minSoc) !== 'normal')
      return null;
  return 'normal';
}
