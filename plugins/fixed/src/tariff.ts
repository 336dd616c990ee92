/**
 * The tariff as an owner's bill states it: a flat price or time-of-use periods (local times,
 * weekdays/weekends, seasons by month), a standing charge per day, an export price. The
 * schema checks each schedule covers every minute of every kind of day exactly once.
 */
import { z } from '@heliograph/plugins-sdk';

const MINUTES_PER_DAY = 1440;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

const localTime = z
  .string()
  .regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'a local time HH:MM such as 22:00 (24:00 for the end of the day)');

const month = z.number().int().min(1).max(12);

export const periodSchema = z
  .object({
    start: localTime.describe('Local time the period starts, HH:MM.').meta({ title: 'From' }),
    end: localTime
      .describe('Local time it ends, HH:MM (exclusive); earlier than the start to run past midnight.')
      .meta({ title: 'To' }),
    price: z.number().finite().describe('Price in your currency per kWh.').meta({ title: 'Price per kWh' }),
    days: z
      .enum(['all', 'weekdays', 'weekends'])
      .default('all')
      .describe('The days it applies to: every day, Monday to Friday, or Saturday and Sunday.')
      .meta({ title: 'Days' }),
    months: z
      .object({
        from: month.describe('First month, 1-12.').meta({ title: 'From month' }),
        to: month.describe('Last month, 1-12 (before the first for a season across the new year).').meta({
          title: 'To month',
        }),
      })
      .optional()
      .describe('A season: the months it applies to, both included; every month when left out.')
      .meta({ title: 'Season' }),
  })
  .refine((p) => p.start !== '24:00', { message: 'start: 24:00 is the end of a day; start at 00:00', path: ['start'] });

export type Period = z.output<typeof periodSchema>;

/** A price schedule: one price at every minute, or periods of the day. */
export type Schedule = { flat: number } | { periods: Period[] };

/** The kind of day a period applies to, by the local calendar. */
export type DayKind = 'weekdays' | 'weekends';

/** Minutes since local midnight of `HH:MM` (24:00 is 1440). */
export function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/**
 * The minute ranges of the local day a period covers: one, or two when it runs past midnight
 * (22:00-06:00 covers 00:00-06:00 and 22:00-24:00 of each day it applies to). Start equal to
 * end is the whole day.
 */
export function piecesOf(period: Pick<Period, 'start' | 'end'>): Array<[number, number]> {
  const start = minutesOf(period.start);
  const end = minutesOf(period.end);
  if (start === end || (start === 0 && end === MINUTES_PER_DAY)) return [[0, MINUTES_PER_DAY]];
  if (start < end) return [[start, end]];
  return [
    [0, end],
    [start, MINUTES_PER_DAY],
  ].filter(([a, b]) => b! > a!) as Array<[number, number]>;
}

/** Whether a period applies on a day of this kind in this month (1-12). */
export function appliesOn(period: Period, kind: DayKind, monthOfYear: number): boolean {
  if (period.days !== 'all' && period.days !== kind) return false;
  if (!period.months) return true;
  const { from, to } = period.months;
  return from <= to ? monthOfYear >= from && monthOfYear <= to : monthOfYear >= from || monthOfYear <= to;
}

/** A problem of a schedule: where it is, and in which kinds of day and months it occurs. */
interface Problem {
  index: number | undefined;
  text: string;
  kinds: Set<DayKind>;
  months: Set<number>;
}

/**
 * What is wrong with a list of periods: each overlap of two periods and each stretch of a day
 * no period covers, with the days and months it happens on. Empty when every minute of every
 * kind of day in every month has exactly one price.
 */
export function scheduleProblems(
  periods: readonly Period[],
  field: string,
): Array<{ index?: number; message: string }> {
  const found = new Map<string, Problem>();
  const note = (key: string, index: number | undefined, text: string, kind: DayKind, m: number) => {
    let problem = found.get(key);
    if (!problem) found.set(key, (problem = { index, text, kinds: new Set(), months: new Set() }));
    problem.kinds.add(kind);
    problem.months.add(m);
  };
  for (const kind of ['weekdays', 'weekends'] as const) {
    for (let m = 1; m <= 12; m++) {
      const applying = periods.flatMap((p, i) => (appliesOn(p, kind, m) ? [i] : []));
      const covered = new Uint8Array(MINUTES_PER_DAY);
      for (const [n, i] of applying.entries()) {
        for (const [a, b] of piecesOf(periods[i]!)) covered.fill(1, a, b);
        for (const j of applying.slice(0, n)) {
          for (const [a, b] of overlaps(periods[j]!, periods[i]!)) {
            const text = `${field}[${j}] (${describe(periods[j]!)}) and ${field}[${i}] (${describe(periods[i]!)}) overlap from ${clockOf(a)} to ${clockOf(b)}`;
            note(`${kind} overlap ${j} ${i} ${a} ${b}`, i, text, kind, m);
          }
        }
      }
      for (const [a, b] of runsOf(covered, 0)) {
        const text = `no period covers ${clockOf(a)}-${clockOf(b)}`;
        note(`${kind} gap ${a} ${b}`, undefined, text, kind, m);
      }
    }
  }
  // The same problem on weekdays and weekends in the same months is said once, for every day.
  const merged: Problem[] = [];
  for (const p of found.values()) {
    const twin = merged.find((q) => q.text === p.text && sameSet(q.months, p.months));
    if (twin) for (const kind of p.kinds) twin.kinds.add(kind);
    else merged.push(p);
  }
  return merged.map((p) => ({
    ...(p.index === undefined ? {} : { index: p.index }),
    message: `${p.text} ${whenText(p.kinds, p.months)}${p.index === undefined ? ': add a period for it or widen one' : ': each minute needs exactly one price'}`,
  }));
}

function sameSet<T>(a: Set<T>, b: Set<T>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}

/** Minute ranges where two periods both claim the day. */
function overlaps(a: Period, b: Period): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [a0, a1] of piecesOf(a))
    for (const [b0, b1] of piecesOf(b)) {
      const from = Math.max(a0, b0);
      const to = Math.min(a1, b1);
      if (to > from) out.push([from, to]);
    }
  return out;
}

/** The runs of `value` in `minutes`, as [start, end) ranges. */
function runsOf(minutes: Uint8Array, value: number): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let start = -1;
  for (let i = 0; i <= minutes.length; i++) {
    const inside = i < minutes.length && minutes[i] === value;
    if (inside && start < 0) start = i;
    if (!inside && start >= 0) {
      runs.push([start, i]);
      start = -1;
    }
  }
  return runs;
}

function clockOf(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

function describe(p: Period): string {
  const days = p.days === 'all' ? 'every day' : p.days;
  const season = p.months ? `, ${MONTHS[p.months.from - 1]}-${MONTHS[p.months.to - 1]}` : '';
  return `${p.start}-${p.end}, ${days}${season}`;
}

/** `on weekdays in Jan-Mar, Nov-Dec`, `every day`... */
function whenText(kinds: Set<DayKind>, months: Set<number>): string {
  const days = kinds.size === 2 ? 'every day' : `on ${[...kinds][0]}`;
  if (months.size === 12) return days;
  const ranges: string[] = [];
  for (let m = 1; m <= 12; m++) {
    if (!months.has(m)) continue;
    let last = m;
    while (months.has(last + 1)) last++;
    ranges.push(last === m ? MONTHS[m - 1]! : `${MONTHS[m - 1]}-${MONTHS[last - 1]}`);
    m = last;
  }
  return `${days} in ${ranges.join(', ')}`;
}
