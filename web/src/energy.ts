// Energy per calendar bucket from the core's kWh totals (total/pv_energy and the others),
// never from averaged power: each total is a counter the core integrates from every
// reading and restarts at the start of its period (energy.resetPeriod, at local midnight
// in the site's zone). History keeps its last value per bucket; the energy of a bucket is
// how far the counter rose in it. So a day has the same figure in a week, a month or a
// year, and an unfinished bucket counts only what happened so far.

import { periodStart, type Period } from './zone.js';

export const ENERGY_KINDS = ['pv', 'load', 'import', 'export', 'charge', 'discharge'] as const;
export type EnergyKind = (typeof ENERGY_KINDS)[number];

/** The kWh total each figure comes from. */
export const ENERGY_TOPICS: Record<EnergyKind, string> = {
  pv: 'total/pv_energy',
  load: 'total/load_energy',
  import: 'total/grid_energy_in',
  export: 'total/grid_energy_out',
  charge: 'total/battery_energy_in',
  discharge: 'total/battery_energy_out',
};

export type ResetPeriod = 'daily' | 'weekly' | 'monthly';

const RESET_TO_PERIOD: Record<ResetPeriod, Period> = { daily: 'day', weekly: 'week', monthly: 'month' };

/**
 * The counter's rise per history bucket: `points` are [bucket start ms, last kWh in the
 * bucket], oldest first. A bucket in a later reset period than the one before counts from
 * zero (the counter restarted at the period's start); the first bucket counts from zero
 * too, so ask from the start of a reset period (see {@link counterQueryStart}). A drop
 * within a period (a total set back) counts nothing, never negative energy.
 */
export function counterRises(
  points: Array<[number, number]>,
  reset: ResetPeriod,
  zone: string,
): Array<[number, number]> {
  const period = RESET_TO_PERIOD[reset];
  const out: Array<[number, number]> = [];
  let prev: { value: number; period: number } | null = null;
  for (const [t, value] of points) {
    const p = periodStart(zone, t, period);
    const rise = prev === null || prev.period !== p ? value : Math.max(0, value - prev.value);
    out.push([t, rise]);
    prev = { value, period: p };
  }
  return out;
}

/** Where to start asking history so the first bucket at or after `from` has its base value. */
export function counterQueryStart(from: number, reset: ResetPeriod, zone: string): number {
  return periodStart(zone, from, RESET_TO_PERIOD[reset]);
}

/**
 * Sums rises into buckets starting at `starts` (ascending); the last ends at `end`. Rises
 * outside [starts[0], end) are left out. Returns one kWh figure per bucket.
 */
export function sumIntoBuckets(rises: Array<[number, number]>, starts: number[], end: number): number[] {
  const sums = starts.map(() => 0);
  let b = 0;
  for (const [t, kwh] of rises) {
    if (t < (starts[0] ?? end) || t >= end) continue;
    while (b + 1 < starts.length && t >= starts[b + 1]!) b += 1;
    sums[b]! += kwh;
  }
  return sums.map((s) => Math.round(s * 1000) / 1000);
}

export type EnergyTable = Record<EnergyKind, number[]>;

/** The sum of each kind over all buckets. */
export function totalsOf(table: EnergyTable): Record<EnergyKind, number> {
  const out = {} as Record<EnergyKind, number>;
  for (const kind of ENERGY_KINDS) out[kind] = Math.round(table[kind].reduce((a, b) => a + b, 0) * 1000) / 1000;
  return out;
}

export interface Shares {
  /** Share of the solar energy used on site (not sold), 0-1, or null without solar. */
  selfConsumption: number | null;
  /** Share of the home's use not bought from the grid, 0-1, or null without use. */
  selfSufficiency: number | null;
}

/** Self-consumption and self-sufficiency, as Home Assistant's energy dashboard defines them. */
export function sharesOf(e: Record<EnergyKind, number>): Shares {
  const clamp = (x: number) => Math.min(1, Math.max(0, x));
  return {
    selfConsumption: e.pv > 0 ? clamp((e.pv - e.export) / e.pv) : null,
    selfSufficiency: e.load > 0 ? clamp((e.load - e.import) / e.load) : null,
  };
}

/** One price slot: its start and end (ms) and prices per kWh (export null when not paid). */
export interface PriceInterval {
  from: number;
  to: number;
  importPrice: number;
  exportPrice: number | null;
}

export interface Money {
  /** What was paid for bought energy less what sold energy earned. */
  cost: number;
  /** What the home's use would have cost from the grid alone, less `cost`. */
  savings: number;
  /** Hours (buckets) of the period with energy and a known price: what cost and savings sum. */
  priced: number;
  /** Hours (buckets) of the period with energy but no known price: left out of the sums. */
  unpriced: number;
}

/**
 * Cost and savings of hourly energy at the prices in force in each hour (the mean of the
 * slots overlapping it, weighted by overlap). Hours without a price are counted in
 * `unpriced` and left out. Hours and slots are both in time order (one pass: a year of
 * quarter-hour slots is 35,000 of them).
 */
export function moneyOf(
  hours: number[],
  hourly: Pick<EnergyTable, 'import' | 'export' | 'load'>,
  prices: PriceInterval[],
): Money {
  let cost = 0;
  let without = 0;
  let priced = 0;
  let unpriced = 0;
  let first = 0;
  hours.forEach((start, i) => {
    const end = start + 3_600_000;
    let imp = 0;
    let exp = 0;
    let covered = 0;
    while (first < prices.length && prices[first]!.to <= start) first++;
    for (let k = first; k < prices.length && prices[k]!.from < end; k++) {
      const p = prices[k]!;
      const overlap = Math.min(end, p.to) - Math.max(start, p.from);
      if (overlap <= 0) continue;
      imp += p.importPrice * overlap;
      exp += (p.exportPrice ?? 0) * overlap;
      covered += overlap;
    }
    const bought = hourly.import[i] ?? 0;
    const sold = hourly.export[i] ?? 0;
    const used = hourly.load[i] ?? 0;
    if (covered === 0) {
      if (bought + sold + used > 0) unpriced += 1;
      return;
    }
    if (bought + sold + used > 0) priced += 1;
    cost += (bought * imp - sold * exp) / covered;
    without += (used * imp) / covered;
  });
  const round = (x: number) => Math.round(x * 10000) / 10000;
  return { cost: round(cost), savings: round(without - cost), priced, unpriced };
}

/** What the cost covers when some hours have no known price; '' when all have one. */
export function costNote(m: Pick<Money, 'priced' | 'unpriced'>): string {
  if (m.unpriced === 0) return '';
  if (m.priced === 0) return `No cost for this period: none of its ${m.unpriced} h with energy has a known price.`;
  return `Cost of ${m.priced} of ${m.priced + m.unpriced} h; ${m.unpriced} h without a price.`;
}
