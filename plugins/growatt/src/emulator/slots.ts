/**
 * The emulated unit's clock and time slots, as the Growatt Modbus RTU protocol v1.24 gives
 * them (holding registers): 45..50 the system time (year offset from 2000, month, day, hour,
 * minute, second; "W"), and in "Priority set" grid first 1070 discharge power rate and 1071
 * stop SOC (0-100), its slots 1080..1088, battery first 1090 charge power rate, 1091 stop SOC
 * (0-100), 1092 AC charge switch (0/1), its slots 1100..1108: each slot a start and a stop
 * word (hour in the high byte 0-23, minute in the low byte 0-59) and an on/off switch (0/1).
 * A slot runs daily from its start up to its stop (a start after the stop runs past
 * midnight); battery first wins over grid first where they overlap; outside every slot the
 * unit runs load first.
 */
export const CLOCK = 45;

const GRID_FIRST_SLOTS = [1080, 1083, 1086];
const BATTERY_FIRST_SLOTS = [1100, 1103, 1106];
const PERCENT = [1070, 1071, 1090, 1091];
const SWITCHES = [1092, ...[...GRID_FIRST_SLOTS, ...BATTERY_FIRST_SLOTS].map((at) => at + 2)];
const TIMES = [...GRID_FIRST_SLOTS, ...BATTERY_FIRST_SLOTS].flatMap((at) => [at, at + 1]);

/**
 * Whether `word` is a value the control register at `address` takes; null when `address` is
 * not one of them.
 */
export function validControlWord(address: number, word: number): boolean | null {
  if (PERCENT.includes(address)) return word <= 100;
  if (SWITCHES.includes(address)) return word <= 1;
  if (TIMES.includes(address)) return word >> 8 <= 23 && (word & 0xff) <= 59;
  return null;
}

/** The clock registers for `time` (its local time). */
export function clockWords(time: Date): number[] {
  return [
    time.getFullYear() - 2000,
    time.getMonth() + 1,
    time.getDate(),
    time.getHours(),
    time.getMinutes(),
    time.getSeconds(),
  ];
}

/** The time the clock registers hold, or null when they hold none. */
export function clockTime(words: readonly number[]): Date | null {
  const [year, month, day, hour, minute, second] = words as [number, number, number, number, number, number];
  const time = new Date(2000 + year, month - 1, day, hour, minute, second);
  const valid =
    year < 100 && time.getMonth() === month - 1 && time.getDate() === day && hour < 24 && minute < 60 && second < 60;
  return valid ? time : null;
}

/** Whether one of the slots at `starts` is on and covers `time`. */
function covered(holding: ReadonlyMap<number, number>, starts: number[], time: Date): boolean {
  const now = time.getHours() * 60 + time.getMinutes();
  const minutes = (word: number) => (word >> 8) * 60 + (word & 0xff);
  return starts.some((at) => {
    if ((holding.get(at + 2) ?? 0) !== 1) return false;
    const start = minutes(holding.get(at) ?? 0);
    const stop = minutes(holding.get(at + 1) ?? 0);
    return start <= stop ? now >= start && now < stop : now >= start || now < stop;
  });
}

/** The priority the slots put in force at `time` (the device's clock): 1 battery first, 2 grid first, 0 load first. */
export function slotsInForce(holding: ReadonlyMap<number, number>, time: Date): number {
  if (covered(holding, BATTERY_FIRST_SLOTS, time)) return 1;
  if (covered(holding, GRID_FIRST_SLOTS, time)) return 2;
  return 0;
}
