// Calendar arithmetic in the site's time zone (the Site tab's), whatever the browser's own:
// local midnights, the start of a week (Monday), month or year, and the hours of a day
// (23 or 25 on the days the clocks change). Intl does the zone rules; no library.

export type Period = 'day' | 'week' | 'month' | 'year';

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const wallFormats = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock date and time at `ms` in `zone`. */
export function wallTime(zone: string, ms: number): Wall {
  let format = wallFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    wallFormats.set(zone, format);
  }
  const parts: Record<string, number> = {};
  for (const p of format.formatToParts(ms)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour! % 24,
    minute: parts.minute!,
    second: parts.second!,
  };
}

/** How far `zone`'s clocks are ahead of UTC at `ms`, in ms. */
export function zoneOffsetMs(zone: string, ms: number): number {
  const w = wallTime(zone, ms);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant a wall-clock time in `zone` names (month 1-12; days and months past their
 * end roll over, as Date.UTC's do). A time the clocks skip resolves to the instant after
 * the change; a time they repeat, to the first.
 */
export function zonedInstant(zone: string, year: number, month: number, day: number, hour = 0): number {
  const wall = Date.UTC(year, month - 1, day, hour);
  let guess = wall - zoneOffsetMs(zone, wall);
  for (let i = 0; i < 2; i++) {
    const next = wall - zoneOffsetMs(zone, guess);
    if (next === guess) break;
    guess = next;
  }
  return guess;
}

/** Start of the day, week (Monday), month or year containing `ms`, at local midnight in `zone`. */
export function periodStart(zone: string, ms: number, period: Period): number {
  const w = wallTime(zone, ms);
  if (period === 'year') return zonedInstant(zone, w.year, 1, 1);
  if (period === 'month') return zonedInstant(zone, w.year, w.month, 1);
  if (period === 'week') {
    const weekday = (new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay() + 6) % 7; // Monday 0
    return zonedInstant(zone, w.year, w.month, w.day - weekday);
  }
  return zonedInstant(zone, w.year, w.month, w.day);
}

/** The period `n` periods after the one starting at `start` (a local midnight). */
export function addPeriods(zone: string, start: number, period: Period, n: number): number {
  const w = wallTime(zone, start);
  if (period === 'year') return zonedInstant(zone, w.year + n, w.month, w.day);
  if (period === 'month') return zonedInstant(zone, w.year, w.month + n, w.day);
  return zonedInstant(zone, w.year, w.month, w.day + n * (period === 'week' ? 7 : 1));
}

/** The buckets a period's bars are drawn in: hours of a day, days of a week or month, months of a year. */
export function bucketsOf(zone: string, start: number, period: Period): number[] {
  const end = addPeriods(zone, start, period, 1);
  const out: number[] = [];
  if (period === 'day') {
    for (let t = start; t < end; t += 3_600_000) out.push(t);
    return out;
  }
  const step: Period = period === 'year' ? 'month' : 'day';
  for (let t = start; t < end; t = addPeriods(zone, t, step, 1)) out.push(t);
  return out;
}

/** "2026-11-25" of the local date at `ms` in `zone` (the value of an <input type=date>). */
export function isoDate(zone: string, ms: number): string {
  const w = wallTime(zone, ms);
  return `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
}

/** Local midnight in `zone` of a "2026-11-25" date, or null for anything else. */
export function fromIsoDate(zone: string, text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  return zonedInstant(zone, Number(m[1]), Number(m[2]), Number(m[3]));
}

/**
 * The history bucket size (`group_by`) whose UTC-aligned buckets start at every local hour
 * boundary of `zone` between `from` and `to`: 1h where the zone is whole hours off UTC,
 * 15m for the zones 30 or 45 minutes off.
 */
export function alignedStep(zone: string, from: number, to: number): { ms: number; text: string } {
  const whole = [from, to].every((t) => zoneOffsetMs(zone, t) % 3_600_000 === 0);
  return whole ? { ms: 3_600_000, text: '1h' } : { ms: 900_000, text: '15m' };
}

/** The browser's own zone, for when the device does not say. */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
