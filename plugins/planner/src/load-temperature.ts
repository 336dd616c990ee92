/**
 * The load forecast's temperature term: how much more (or less) the household draws at a
 * local hour of the day per degree that the outside is colder than heating's base or warmer
 * than cooling's, learnt from the recorded days. It works on anomalies: a slot's load less
 * the blend's forecast of it, against the slot's heating (cooling) degrees less the same blend
 * of the degrees of the days the blend took. A day as cold as the days the blend averages
 * needs no correction; one colder than them gets the difference times the fitted W per K.
 *
 * The fit is a least-squares regression per local hour without intercept, pulled towards the
 * all-hours fit (a few days of data give 4 samples an hour a day), bounded to 0..
 * {@link MAX_W_PER_K}, and used only when, over at least {@link MIN_SAMPLES} slots, it explains
 * at least {@link MIN_DAY_GAIN} of how the blend's error varies from day to day (summed per
 * day: a household's load varies by the day, so the days are the samples that count, and by
 * chance an unrelated series explains about 1 / days of it): otherwise there is no term.
 */

/** Heating degrees count below this outside temperature, °C (the usual heating-degree base). */
export const HEATING_BASE_C = 18;
/** Cooling degrees count above this outside temperature, °C. */
export const COOLING_BASE_C = 24;
/** The bound of a fitted slope, W per K: a heat pump on a poorly insulated house is below it. */
export const MAX_W_PER_K = 500;
/** Fewest slots (quarter hours) with temperature the term is fitted on: three days. */
export const MIN_SAMPLES = 3 * 96;
/** Least share of the blend's day-to-day squared error (per-day sums) the term must explain to be used. */
export const MIN_DAY_GAIN = 0.2;
/** A regressor whose anomalies spread less than this (mean square, K²) is left out: no cold days to learn from. */
const MIN_SPREAD_K2 = 0.25;
/** Pseudo-samples pulling each hour's slope towards the all-hours slope. */
const PRIOR_SAMPLES = 40;

export const heatingDegrees = (c: number): number => Math.max(0, HEATING_BASE_C - c);
export const coolingDegrees = (c: number): number => Math.max(0, c - COOLING_BASE_C);

/** One slot the term learns from: its local day and hour, the load's anomaly (W) and the degrees' (K). */
export interface TemperatureSample {
  day: number;
  hour: number;
  residualW: number;
  heatingK: number;
  coolingK: number;
}

/** The fitted term. */
export interface TemperatureTerm {
  /** W per heating degree, per local hour 0-23. */
  heatingWPerK: number[];
  /** W per cooling degree, per local hour 0-23. */
  coolingWPerK: number[];
  /** The all-hours slopes, W per K. */
  heatingAllHours: number;
  coolingAllHours: number;
  /** Share of the blend's squared error on the samples the term explains, 0-1. */
  gain: number;
  /** The same on the per-day sums (what it must pass to be used). */
  dayGain: number;
  samples: number;
}

/** The term for the samples, or null when they are too few or it explains too little. */
export function fitTemperatureTerm(samples: readonly TemperatureSample[]): TemperatureTerm | null {
  const n = samples.length;
  if (n < MIN_SAMPLES) return null;
  const all = sums(samples);
  // A regressor without spread (no day colder than another) is left out of the fit.
  const useH = all.hh / n >= MIN_SPREAD_K2;
  const useC = all.cc / n >= MIN_SPREAD_K2;
  if (!useH && !useC) return null;
  const pooled = solve(all, useH, useC, 0, 0, [0, 0]);
  if (pooled[0] === 0 && pooled[1] === 0) return null;
  const dayGain = explained(daySums(samples), () => pooled);
  if (dayGain < MIN_DAY_GAIN) return null;

  const byHour = Array.from({ length: 24 }, () => [] as TemperatureSample[]);
  for (const s of samples) byHour[s.hour]?.push(s);
  const lambdaH = (PRIOR_SAMPLES * all.hh) / n;
  const lambdaC = (PRIOR_SAMPLES * all.cc) / n;
  const perHour = byHour.map((hs) => solve(sums(hs), useH, useC, lambdaH, lambdaC, pooled));
  return {
    heatingWPerK: perHour.map((b) => b[0]),
    coolingWPerK: perHour.map((b) => b[1]),
    heatingAllHours: pooled[0],
    coolingAllHours: pooled[1],
    gain: explained(samples, (hour) => perHour[hour]!),
    dayGain,
    samples: n,
  };
}

/** The term's correction for a slot at a local hour with these degree anomalies, W. */
export function temperatureCorrection(term: TemperatureTerm, hour: number, heatingK: number, coolingK: number): number {
  return (term.heatingWPerK[hour] ?? 0) * heatingK + (term.coolingWPerK[hour] ?? 0) * coolingK;
}

/** The samples summed per day (hour 0). */
function daySums(samples: readonly TemperatureSample[]): TemperatureSample[] {
  const days = new Map<number, TemperatureSample>();
  for (const x of samples) {
    const d = days.get(x.day);
    if (!d) days.set(x.day, { ...x, hour: 0 });
    else {
      d.residualW += x.residualW;
      d.heatingK += x.heatingK;
      d.coolingK += x.coolingK;
    }
  }
  return [...days.values()];
}

interface Sums {
  hh: number;
  hc: number;
  cc: number;
  hr: number;
  cr: number;
}

function sums(samples: readonly TemperatureSample[]): Sums {
  const s: Sums = { hh: 0, hc: 0, cc: 0, hr: 0, cr: 0 };
  for (const x of samples) {
    s.hh += x.heatingK * x.heatingK;
    s.hc += x.heatingK * x.coolingK;
    s.cc += x.coolingK * x.coolingK;
    s.hr += x.heatingK * x.residualW;
    s.cr += x.coolingK * x.residualW;
  }
  return s;
}

const bound = (w: number): number => (Number.isFinite(w) ? Math.min(MAX_W_PER_K, Math.max(0, w)) : 0);

/**
 * Ridge least squares of the residual on the used regressors, pulled towards `prior` by
 * `lambda` per regressor, each slope bounded; a regressor left out is 0. When one of two
 * slopes is bounded the other is fitted again alone.
 */
function solve(
  s: Sums,
  useH: boolean,
  useC: boolean,
  lambdaH: number,
  lambdaC: number,
  prior: readonly [number, number],
): [number, number] {
  const a = s.hh + lambdaH;
  const d = s.cc + lambdaC;
  const bh = s.hr + lambdaH * prior[0];
  const bc = s.cr + lambdaC * prior[1];
  const alone = (num: number, den: number) => (den > 0 ? bound(num / den) : 0);
  if (useH && useC) {
    const det = a * d - s.hc * s.hc;
    if (det > 1e-9 * a * d) {
      const h = (bh * d - bc * s.hc) / det;
      const c = (a * bc - s.hc * bh) / det;
      if (h >= 0 && h <= MAX_W_PER_K && c >= 0 && c <= MAX_W_PER_K) return [h, c];
      // A slope out of bounds: fix it at its bound and fit the other with it.
      const hb = bound(h);
      const cb = bound(c);
      if (hb !== h) return [hb, alone(bc - s.hc * hb, d)];
      return [alone(bh - s.hc * cb, a), cb];
    }
  }
  return [useH ? alone(bh, a) : 0, useC ? alone(bc, d) : 0];
}

/** 1 - (squared error with the slopes) / (squared error without), over the samples. */
function explained(samples: readonly TemperatureSample[], slopes: (hour: number) => readonly number[]): number {
  let before = 0;
  let after = 0;
  for (const x of samples) {
    const [h = 0, c = 0] = slopes(x.hour);
    const e = x.residualW - h * x.heatingK - c * x.coolingK;
    before += x.residualW * x.residualW;
    after += e * e;
  }
  return before > 0 ? 1 - after / before : 0;
}
