/**
 * The load forecast: a blend of the household's power at the same weekday and local time over
 * the last weeks and at the same local time over the last days (either alone when the other
 * has no history, then the mean), the day with the highest load at that time left out, with
 * its error measured on the recorded days it could have predicted. The blend's weights are
 * those with the least error on a generated year (npm run bench:solver -- forecasts prints
 * each one's error against same-weekday alone).
 * Where the outside temperature is known for a slot and for the days the blend takes, a
 * temperature term (load-temperature.ts) adds what a colder or warmer day than those draws.
 */
import {
  coolingDegrees,
  fitTemperatureTerm,
  heatingDegrees,
  temperatureCorrection,
  type TemperatureSample,
  type TemperatureTerm,
} from './load-temperature.js';

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
  /** The temperature term in use; null without temperature, or where it explained too little. */
  temperature: TemperatureTerm | null;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

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
    const clock = this.clock(time);
    const day = Math.floor(clock / DAY_MS);
    return { day, minute: Math.round((clock - day * DAY_MS) / 60_000) };
  }

  /**
   * The start of the local day `time` is in, ms: local midnight, where the zone's offset is
   * the one of that moment (on the night a clock changes, not the one of `time`). Where a
   * clock change skips midnight, the day's first minute.
   */
  dayStart(time: number): number {
    const minute = Math.floor(time / 60_000) * 60_000;
    const clock = this.clock(minute);
    const midnight = Math.floor(clock / DAY_MS) * DAY_MS;
    // Back by the offset of now, then by the offset found at that moment.
    const guess = midnight - (clock - minute);
    return midnight - (this.clock(guess) - guess);
  }

  /** The start of the next local day after the one `time` is in, ms (23 or 25 hours later on the days a clock changes). */
  dayEnd(time: number): number {
    return this.dayStart(this.dayStart(time) + 26 * HOUR_MS);
  }

  /** What the local clock shows at `time`, as the UTC time with that reading, ms (whole minutes). */
  private clock(time: number): number {
    const parts: Record<string, number> = {};
    for (const p of this.fmt.formatToParts(time)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
    return Date.UTC(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0);
  }
}

/**
 * Forecast `targets` from `history` (15-minute means of the load, W, any order): the blend of
 * the same weekday and local time over the last `weeks` weeks and the same local time over the
 * last `recentDays` days; either alone when the other has no history; else the mean of all.
 * With `temperatureC`, the temperature term where it is known (see load-temperature.ts).
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
  /**
   * Outside temperature, °C, over the history and the targets (measured or forecast, any
   * resolution: hourly means are taken, then each hour's last {@link TEMPERATURE_HOURS}). Without
   * it, or where it is missing, the blend alone.
   */
  temperatureC?: readonly Point[];
}): LoadForecast {
  const weeks = args.weeks ?? 4;
  const blend: Blend = {
    weeks,
    share: args.sameWeekdayShare ?? SAME_WEEKDAY_SHARE,
    recentDays: args.recentDays ?? RECENT_DAYS,
  };
  const cal = new LocalCalendar(args.timeZone);
  const felt = feltTemperature(hourlyMeans(args.temperatureC ?? []));
  const loadAt = new Map<number, number>();
  const celsiusAt = new Map<number, number>();
  let sum = 0;
  let count = 0;
  let lastTime = -Infinity;
  const slots: Array<{ key: number; value: number; time: number }> = [];
  for (const p of args.history) {
    if (p.value === null || !Number.isFinite(p.value)) continue;
    const pos = cal.position(p.time);
    const key = slotKey(pos.day, pos.minute);
    loadAt.set(key, p.value);
    const c = felt.get(Math.floor(p.time / HOUR_MS));
    if (c !== undefined) celsiusAt.set(key, c);
    slots.push({ key, value: p.value, time: p.time });
    sum += p.value;
    count++;
    lastTime = Math.max(lastTime, p.time);
  }
  const mean = count > 0 ? sum / count : null;
  const model: Model = { blend, loadAt, celsiusAt, term: null };

  // The temperature term, from every recorded slot with temperature for it and its blend's days.
  if (celsiusAt.size > 0) {
    const samples: TemperatureSample[] = [];
    for (const s of slots) {
      const weights = blendWeights(loadAt, s.key, blend);
      const anomaly = weights ? degreeAnomaly(model, s.key, celsiusAt.get(s.key), weights) : null;
      if (!weights || !anomaly) continue;
      samples.push({
        day: Math.floor(s.key / 1440),
        hour: hourOf(s.key),
        residualW: s.value - weighted(loadAt, weights),
        ...anomaly,
      });
    }
    model.term = fitTemperatureTerm(samples);
  }

  const values = args.targets.map((time) => {
    const pos = cal.position(time);
    const key = slotKey(pos.day, pos.minute);
    return predict(model, key, felt.get(Math.floor(time / HOUR_MS))) ?? mean;
  });

  // The error: what this method would have said for each recorded slot of the last days.
  const errorFrom = lastTime - (args.errorDays ?? 7) * DAY_MS;
  let abs = 0;
  let samples = 0;
  for (const s of slots) {
    if (s.time <= errorFrom) continue;
    const f = predict(model, s.key, celsiusAt.get(s.key));
    if (f === null) continue;
    abs += Math.abs(f - s.value);
    samples++;
  }
  return { values, maeW: samples > 0 ? abs / samples : null, errorSamples: samples, temperature: model.term };
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

/** What a prediction needs: the blend, the recorded load and temperature by slot, the term. */
interface Model {
  blend: Blend;
  loadAt: Map<number, number>;
  celsiusAt: Map<number, number>;
  term: TemperatureTerm | null;
}

/** A slot as a number: local day number and minute of the local day. */
const slotKey = (day: number, minute: number): number => day * 1440 + minute;
const hourOf = (key: number): number => Math.floor((((key % 1440) + 1440) % 1440) / 60);

/**
 * The blend's prediction for a slot (null without history for it), plus the temperature
 * term's correction when `celsius` and the temperature of the blend's days are known.
 */
function predict(model: Model, key: number, celsius: number | undefined): number | null {
  const weights = blendWeights(model.loadAt, key, model.blend);
  if (!weights) return null;
  const base = weighted(model.loadAt, weights);
  if (!model.term) return base;
  const anomaly = degreeAnomaly(model, key, celsius, weights);
  return anomaly ? base + temperatureCorrection(model.term, hourOf(key), anomaly.heatingK, anomaly.coolingK) : base;
}

/**
 * From this many days in the blend on, the one with the highest load at the slot's time is
 * left out: an appliance's run (a washing machine, an oven) on one of the averaged days would
 * otherwise show as a bump at its hour on every day forecast, and the plan charged the battery
 * for it at night. Noisy forecasts, the six hard cases of `npm run bench:planner` on the
 * generated years 19-22, summed: 2 116.3 -> 2 135.9 points of the optimum's saving (spring
 * +5.9, export dearer than import +4.7, negative import +2.5, prices ending at midnight +7.3,
 * dark winter -0.3, a day without PV forecast -0.5); the largest left out of each group (the
 * same weekday, the last days) instead: +17.8.
 */
const TRIM_FROM = 4;

/**
 * The recorded slots the blend takes for a slot, each with its weight: the same weekday over
 * the last weeks (when at least two) and the same time over the last days, mixed by the
 * blend's share (either alone when the other has none), less the highest of them from
 * {@link TRIM_FROM} on; null when there are none.
 */
function blendWeights(loadAt: Map<number, number>, key: number, blend: Blend): Array<[number, number]> | null {
  const same: number[] = [];
  for (let k = 1; k <= blend.weeks; k++) if (loadAt.has(key - 7 * k * 1440)) same.push(key - 7 * k * 1440);
  const recent: number[] = [];
  for (let k = 1; k <= blend.recentDays; k++) if (loadAt.has(key - k * 1440)) recent.push(key - k * 1440);
  const useSame = same.length >= 2;
  if (!useSame && recent.length === 0) return null;
  const share = !useSame ? 0 : recent.length === 0 ? 1 : blend.share;
  const out: Array<[number, number]> = [];
  if (useSame) for (const k of same) out.push([k, share / same.length]);
  if (share < 1) for (const k of recent) out.push([k, (1 - share) / recent.length]);
  if (out.length < TRIM_FROM) return out;
  // The day that drew the most at this time is left out, the others' weights scaled up to 1.
  let top = 0;
  for (let i = 1; i < out.length; i++) if (loadAt.get(out[i]![0])! > loadAt.get(out[top]![0])!) top = i;
  const kept = out.filter((_, i) => i !== top);
  const total = kept.reduce((a, [, w]) => a + w, 0);
  return kept.map(([k, w]) => [k, w / total]);
}

function weighted(values: Map<number, number>, weights: ReadonlyArray<[number, number]>): number {
  let v = 0;
  for (const [k, w] of weights) if (w !== 0) v += w * values.get(k)!;
  return v;
}

/** The slot's heating and cooling degrees less the blend's of its days; null where a temperature is missing. */
function degreeAnomaly(
  model: Model,
  key: number,
  celsius: number | undefined,
  weights: ReadonlyArray<[number, number]>,
): { heatingK: number; coolingK: number } | null {
  if (celsius === undefined) return null;
  let heatingK = heatingDegrees(celsius);
  let coolingK = coolingDegrees(celsius);
  for (const [k, w] of weights) {
    if (w === 0) continue;
    const c = model.celsiusAt.get(k);
    if (c === undefined) return null;
    heatingK -= w * heatingDegrees(c);
    coolingK -= w * coolingDegrees(c);
  }
  return { heatingK, coolingK };
}

/**
 * Hours of outside temperature a slot's degrees are the mean of (that hour and those before):
 * a house's mass lags the outside by hours, so its heating follows the last half day's
 * temperature rather than the hour's (npm run bench:solver -- forecasts, the generated year
 * with a heat pump: 153.0 W with 12 h, 159.4 W with the hour alone).
 */
export const TEMPERATURE_HOURS = 12;

/** Per hour with a temperature, the mean of the known hours of the {@link TEMPERATURE_HOURS} up to it. */
function feltTemperature(hourly: Map<number, number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const h of hourly.keys()) {
    let total = 0;
    let n = 0;
    for (let k = 0; k < TEMPERATURE_HOURS; k++) {
      const c = hourly.get(h - k);
      if (c === undefined) continue;
      total += c;
      n++;
    }
    out.set(h, total / n);
  }
  return out;
}

/** Mean temperature per hour (Unix ms / 1 h, floored) of the points with a value. */
function hourlyMeans(points: readonly Point[]): Map<number, number> {
  const acc = new Map<number, [number, number]>();
  for (const p of points) {
    if (p.value === null || !Number.isFinite(p.value)) continue;
    const h = Math.floor(p.time / HOUR_MS);
    const a = acc.get(h);
    if (a) {
      a[0] += p.value;
      a[1]++;
    } else acc.set(h, [p.value, 1]);
  }
  const out = new Map<number, number>();
  for (const [h, [total, n]] of acc) out.set(h, total / n);
  return out;
}
