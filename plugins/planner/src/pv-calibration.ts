/**
 * The PV forecast calibrated to the site: per local hour of the day, the factor of what the
 * PV made over what the provider forecast, over the last days of history. Learnt from the
 * provider's own forecast as history recorded it (`weather/pv_power_predicted`, which only
 * the forecast plugin writes), never from the calibrated one (which is never stored): the
 * factor cannot feed on itself. Bounded, so a shaded or snowy week cannot zero the forecast
 * or double it, and an hour with too little forecast energy to learn from keeps factor 1.
 */
import { LocalCalendar, type Point } from './load-forecast.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Days of history a factor is learnt from. */
export const CALIBRATION_DAYS = 14;
/** Bounds of a factor. */
export const FACTOR_MIN = 0.3;
export const FACTOR_MAX = 1.5;
/** An hour is learnt from once the provider forecast at least this much energy in it over the days, Wh. */
const MIN_FORECAST_WH = 500;

export interface PvCalibration {
  /** Per local hour 0-23: the factor applied to the provider's forecast (1 where unknown). */
  factors: number[];
  /** The local hours that had enough forecast energy to learn from. */
  hoursLearnt: number[];
  /** Mean absolute error of the provider's forecast over the daylight hours of the last `errorDays`, W; null if none. */
  maeRawW: number | null;
  /** The same for the calibrated forecast, each day calibrated from the days before it only; null if none. */
  maeCalibratedW: number | null;
  /** Days the errors were measured on. */
  errorDays: number;
}

/** One recorded hour: actual and forecast PV means, W. */
interface Hour {
  day: number;
  hour: number;
  actual: number;
  forecast: number;
}

/**
 * Calibration from hourly means of the actual PV and of the provider's forecast as recorded
 * (any order, hours missing from either left out). Factors from the `days` days before
 * `now`; errors on the last `errorDays` days, each calibrated from the `days` before it.
 */
export function calibratePv(args: {
  actual: readonly Point[];
  forecast: readonly Point[];
  now: number;
  timeZone: string;
  days?: number;
  errorDays?: number;
}): PvCalibration {
  const days = args.days ?? CALIBRATION_DAYS;
  const errorDays = args.errorDays ?? 7;
  const cal = new LocalCalendar(args.timeZone);
  const forecastAt = new Map<number, number>();
  for (const p of args.forecast) if (p.value !== null && Number.isFinite(p.value)) forecastAt.set(p.time, p.value);
  const hours: Hour[] = [];
  for (const p of args.actual) {
    const forecast = forecastAt.get(p.time);
    if (p.value === null || !Number.isFinite(p.value) || forecast === undefined || p.time >= args.now) continue;
    const { day, minute } = cal.position(p.time);
    hours.push({ day, hour: Math.floor(minute / 60), actual: Math.max(0, p.value), forecast: Math.max(0, forecast) });
  }
  const today = cal.position(args.now).day;
  const factors = learn(hours, today - days, today);
  const hoursLearnt = learnt(hours, today - days, today);

  let raw = 0;
  let calibrated = 0;
  let samples = 0;
  for (let day = today - errorDays; day < today; day++) {
    const f = learn(hours, day - days, day);
    for (const h of hours) {
      // Daylight hours only: a night's zeros would make any forecast look good.
      if (h.day !== day || (h.forecast === 0 && h.actual === 0)) continue;
      raw += Math.abs(h.actual - h.forecast);
      calibrated += Math.abs(h.actual - f[h.hour]! * h.forecast);
      samples++;
    }
  }
  return {
    factors,
    hoursLearnt,
    maeRawW: samples > 0 ? raw / samples : null,
    maeCalibratedW: samples > 0 ? calibrated / samples : null,
    errorDays,
  };
}

/** Per local hour, the sums of actual and forecast energy over the local days [from, to), Wh. */
function sums(hours: readonly Hour[], from: number, to: number): { actual: number[]; forecast: number[] } {
  const actual = new Array<number>(24).fill(0);
  const forecast = new Array<number>(24).fill(0);
  for (const h of hours) {
    if (h.day < from || h.day >= to) continue;
    actual[h.hour]! += h.actual;
    forecast[h.hour]! += h.forecast;
  }
  return { actual, forecast };
}

/** Per-hour factors from the hours of local days [from, to). */
function learn(hours: readonly Hour[], from: number, to: number): number[] {
  const { actual, forecast } = sums(hours, from, to);
  return forecast.map((f, hour) =>
    f < MIN_FORECAST_WH ? 1 : Math.min(FACTOR_MAX, Math.max(FACTOR_MIN, actual[hour]! / f)),
  );
}

function learnt(hours: readonly Hour[], from: number, to: number): number[] {
  const { forecast } = sums(hours, from, to);
  return forecast.flatMap((f, hour) => (f < MIN_FORECAST_WH ? [] : [hour]));
}

/** The forecast (W per quarter-hour start) with each point scaled by its local hour's factor. */
export function applyCalibration(
  pvW: ReadonlyMap<number, number>,
  factors: readonly number[],
  timeZone: string,
): Map<number, number> {
  const cal = new LocalCalendar(timeZone);
  const out = new Map<number, number>();
  for (const [time, value] of pvW) out.set(time, value * (factors[Math.floor(cal.position(time).minute / 60)] ?? 1));
  return out;
}

/** The factors in words for the topic: `07-08 0.85, 08-09 0.92, ...` (local hours that learnt one). */
export function describeFactors(c: Pick<PvCalibration, 'factors' | 'hoursLearnt'>): string {
  const hh = (hour: number) => String(hour).padStart(2, '0');
  const words = c.hoursLearnt.map((hour) => `${hh(hour)}-${hh(hour + 1)} ${c.factors[hour]!.toFixed(2)}`);
  return words.length > 0 ? words.join(', ') : 'none yet (too little history)';
}

/** The recorded hours a calibration needs: [from, to) aligned to hours. */
export function calibrationWindow(
  now: number,
  days = CALIBRATION_DAYS,
  errorDays = 7,
): { fromMs: number; toMs: number } {
  const toMs = Math.floor(now / HOUR_MS) * HOUR_MS;
  return { fromMs: toMs - (days + errorDays + 1) * DAY_MS, toMs };
}
