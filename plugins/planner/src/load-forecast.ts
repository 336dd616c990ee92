/**
 * The load forecast: the household's power at the same weekday and local time over the last
 * weeks (falling back to the same local time on the last days, then to the mean), with its
 * error measured on the recorded days it could have predicted.
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
 * Forecast `targets` from `history` (15-minute means of the load, W, any order).
 * Same weekday and local time over the last `weeks` weeks; else the same local time on the
 * last 7 days; else the mean of all history.
 */
export function forecastLoad(args: {
  history: readonly Point[];
  targets: readonly number[];
  timeZone: string;
  weeks?: number;
  /** Days at the end of the history on which the error is measured (default 7). */
  errorDays?: number;
}): LoadForecast {
  const weeks = args.weeks ?? 4;
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
  const predict = (day: number, minute: number): number | null => predictStrict(byKey, day, minute, weeks) ?? mean;
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
    const f = predictStrict(byKey, p.day, p.minute, weeks);
    if (f === null) continue;
    abs += Math.abs(f - p.value);
    samples++;
  }
  return { values, maeW: samples > 0 ? abs / samples : null, errorSamples: samples };
}

/** The same-weekday (else last-days) prediction, without the all-history mean fallback. */
function predictStrict(byKey: Map<string, number>, day: number, minute: number, weeks: number): number | null {
  const same: number[] = [];
  for (let k = 1; k <= weeks; k++) {
    const v = byKey.get(`${day - 7 * k}:${minute}`);
    if (v !== undefined) same.push(v);
  }
  if (same.length >= 2) return average(same);
  const recent: number[] = [];
  for (let k = 1; k <= 7; k++) {
    const v = byKey.get(`${day - k}:${minute}`);
    if (v !== undefined) recent.push(v);
  }
  return recent.length > 0 ? average(recent) : null;
}

function average(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
