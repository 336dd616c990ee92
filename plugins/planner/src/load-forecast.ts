/**
 * The load forecast: a blend of the household's power at the same weekday and local time over
 * the last weeks and at the same local time over the last days (either alone when the other
 * has no history, then the mean), with its error measured on the recorded days it could have
 * predicted. The blend's weights are those with the least error on a generated year
 * (npm run bench:solver -- forecasts prints each one's error against same-weekday alone).
 */

export interface Point {
  time: number;
  value: number | null;
}

export interface LoadForecast {
  /** Forecast per target time, W (null only when there is no history at all). */
  values: Array<number | null>;
  /** Mean absolute error of the same method on the last recorded days, W; null if unknown. */
  maeW: number | null;
  /** How many recorded slots the error was measured on. */
  errorSamples: number;
}

const DAY_MS = 86_400_000;

/** Local calendar position of a time in a zone: day number (days since 1970 in local dates) and minute. */
export class LocalCalendar {
  private readonly fmt: Intl.DateTimeFormat;
  constructor(timeZone: string) {
    this.fmt = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      hourCycle: 'h23',
    });
  }

  /** `{ day, minute }`: local date as a day number and minute of the local day. */
  position(time: number): { day: number; minute: number } {
    const parts: Record<string, number> = {};
    for (const p of this.fmt.formatToParts(time)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
    const day = Math.round(Date.UTC(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1) / DAY_MS);
    return { day, minute: (parts.hour ?? 0) * 60 + (parts.minute ?? 0) };
  }
}

/**
 * Forecast `targets` from `history` (15-minute means of the load, W, any order): the blend of
 * the same weekday and local time over the last `weeks` weeks and the same local time over the
 * last `recentDays` days; either alone when the other has no history; else the mean of all.
 */
export function forecastLoad(args: {
  history: readonly Point[];
  targets: readonly number[];
  timeZone: string;
  weeks?: number;
  /** Days at the end of the history on which the error is measured (default 7). */
  errorDays?: number;
  /** Share of the same-weekday average in the blend, 0-1 (default {@link SAME_WEEKDAY_SHARE}); 1: same weekday alone. */
  sameWeekdayShare?: number;
  /** How many last days the recent average takes (default {@link RECENT_DAYS}). */
  recentDays?: number;
}): LoadForecast {
  const weeks = args.weeks ?? 4;
  const blend: Blend = {
    weeks,
    share: args.sameWeekdayShare ?? SAME_WEEKDAY_SHARE,
    recentDays: args.recentDays ?? RECENT_DAYS,
  };
  const cal = new LocalCalendar(args.timeZone);
  const byKey = new Map<string, number>();
  let sum = 0;
  let count = 0;
  let lastTime = -Infinity;
  const positions: Array<{ day: number; minute: number; value: number; time: number }> = [];
  for (const p of args.history) {
    if (p.value === null || !Number.isFinite(p.value)) continue;
    const pos = cal.position(p.time);
    byKey.set(`${pos.day}:${pos.minute}`, p.value);
    positions.push({ ...pos, value: p.value, time: p.time });
    sum += p.value;
    count++;
    lastTime = Math.max(lastTime, p.time);
  }
  const mean = count > 0 ? sum / count : null;
  const predict = (day: number, minute: number): number | null => predictStrict(byKey, day, minute, blend) ?? mean;
  const values = args.targets.map((time) => {
    const pos = cal.position(time);
    return predict(pos.day, pos.minute);
  });

  // The error: what this method would have said for each recorded slot of the last days.
  const errorFrom = lastTime - (args.errorDays ?? 7) * DAY_MS;
  let abs = 0;
  let samples = 0;
  for (const p of positions) {
    if (p.time <= errorFrom) continue;
    const f = predictStrict(byKey, p.day, p.minute, blend);
    if (f === null) continue;
    abs += Math.abs(f - p.value);
    samples++;
  }
  return { values, maeW: samples > 0 ? abs / samples : null, errorSamples: samples };
}

/** Share of the same-weekday average in the blend (bench: least error on the generated year). */
export const SAME_WEEKDAY_SHARE = 0.5;
/** Days the recent average takes. */
export const RECENT_DAYS = 14;

interface Blend {
  weeks: number;
  share: number;
  recentDays: number;
}

/** The blended prediction (either part alone when the other has no history), without the all-history mean. */
function predictStrict(byKey: Map<string, number>, day: number, minute: number, blend: Blend): number | null {
  const same: number[] = [];
  for (let k = 1; k <= blend.weeks; k++) {
    const v = byKey.get(`${day - 7 * k}:${minute}`);
    if (v !== undefined) same.push(v);
  }
  const recent: number[] = [];
  for (let k = 1; k <= blend.recentDays; k++) {
    const v = byKey.get(`${day - k}:${minute}`);
    if (v !== undefined) recent.push(v);
  }
  const weekday = same.length >= 2 ? average(same) : null;
  const days = recent.length > 0 ? average(recent) : null;
  if (weekday === null) return days;
  if (days === null) return weekday;
  return blend.share * weekday + (1 - blend.share) * days;
}

function average(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
