// Loads the energy and money of a calendar period from the service's per-period answer
// (GET /api/v1/energy: hour buckets for a day, day buckets for a week or month, month
// buckets for a year), each bucket figured by the service with the zone and counter resets
// in force when it was recorded. The page derives nothing from counters itself, so a
// change of zone or reset period on the Site tab never changes a past figure.

import { api } from '../api/client.js';
import { ENERGY_KINDS, type BucketMoney, type EnergyKind, type EnergyTable, type ResetPeriod } from './energy.js';
import type { EnergyAnswer, SiteConfig } from '../api/types.js';

export type { EnergyAnswer };
import { addPeriods, browserZone, isoDate, type Period } from './zone.js';

export interface SiteClock {
  /** The site's zone (the Site tab's), or the device's own when it names none. */
  zone: string;
  reset: ResetPeriod;
}

let siteClock: Promise<SiteClock> | null = null;

/** The site's zone and energy period, read once per page load (and again after a change on the Site tab). */
export function loadSiteClock(refresh = false): Promise<SiteClock> {
  if (refresh || !siteClock)
    siteClock = api<SiteConfig & { time_zone?: string }>('GET', '/config').then(
      (c) => ({
        zone: c.time_zone ?? c.site.timeZone ?? browserZone(),
        reset: (['daily', 'weekly', 'monthly'].includes(c.energy.resetPeriod)
          ? c.energy.resetPeriod
          : 'weekly') as ResetPeriod,
      }),
      () => ({ zone: browserZone(), reset: 'weekly' as ResetPeriod }),
    );
  return siteClock;
}

/** The flows of the answer's `energy`, by the page's names for them. */
const ANSWER_KEYS: Record<EnergyKind, keyof NonNullable<EnergyAnswer['buckets'][number]['energy']>> = {
  pv: 'pv',
  load: 'load',
  import: 'grid_in',
  export: 'grid_out',
  charge: 'battery_in',
  discharge: 'battery_out',
};

export interface PeriodEnergy {
  period: Period;
  start: number;
  end: number;
  /** Bucket starts: hours of a day, days of a week or month, months of a year. */
  buckets: number[];
  /** Each bucket's start as the service wrote it, in the zone it was counted in (its key). */
  keys: string[];
  /** The zone each bucket was counted in (the one in force at its start). */
  zones: string[];
  /** kWh per kind and bucket; null where the service has no reading in the bucket ("no data"). */
  table: EnergyTable;
  /** Money per bucket; null where there is no energy or no price at all. */
  money: Array<BucketMoney | null>;
  currency: string | null;
}

/** The bucket size of the answer that draws a period's bars. */
export const BUCKET_OF: Record<Period, 'hour' | 'day' | 'month'> = {
  day: 'hour',
  week: 'day',
  month: 'day',
  year: 'month',
};

/**
 * The path of the per-period answer for the period starting at `start`; `wide`, a day more
 * on each side, so the days recorded under another zone than today's are all in it (see
 * {@link periodEnergyOf}).
 */
export function energyPath(zone: string, period: Period, start: number, wide = false): string {
  const end = addPeriods(zone, start, period, 1);
  const query = new URLSearchParams({
    period: BUCKET_OF[period],
    from: new Date(wide ? addPeriods(zone, start, 'day', -1) : start).toISOString(),
    to: new Date(wide ? addPeriods(zone, end, 'day', 1) : end).toISOString(),
  });
  return `/energy?${query}`;
}

/**
 * The answer as the page reads it: kWh per kind (null for "no data") and money per bucket.
 * A period holds the buckets whose local date, in the zone each was recorded in (the date
 * its `from` starts with), falls within the period's dates: a day is the day as it was
 * counted, 23 or 25 h on the days the clocks change, and has one figure in its week, its
 * month and its year, whatever zone the site is in now.
 */
export function periodEnergyOf(
  answer: EnergyAnswer,
  period: Period,
  start: number,
  end: number,
  zone: string,
): PeriodEnergy {
  const first = isoDate(zone, start);
  const after = isoDate(zone, end);
  const buckets = answer.buckets.filter((b) => {
    const date = b.from.slice(0, 10);
    return date >= first && date < after;
  });
  const table = {} as EnergyTable;
  for (const kind of ENERGY_KINDS) table[kind] = buckets.map((b) => b.energy?.[ANSWER_KEYS[kind]] ?? null);
  return {
    period,
    start,
    end,
    buckets: buckets.map((b) => Date.parse(b.from)),
    keys: buckets.map((b) => b.from),
    zones: buckets.map((b) => b.time_zone),
    table,
    money: buckets.map((b) =>
      b.energy === null || b.money === null
        ? null
        : {
            importCost: b.money.import_cost,
            exportRevenue: b.money.export_revenue,
            standingCharge: b.money.standing_charge,
            netCost: b.money.net_cost,
            savings: b.money.savings,
            pricedHours: b.money.priced_hours,
            unpricedHours: b.money.unpriced_hours,
          },
    ),
    currency: answer.currency,
  };
}

/**
 * One answer per request for as long as a view lives: two cards showing the same figure (the
 * Overview's "Energy today" and the calendar's first day) share one request.
 */
export class RequestCache {
  private readonly answers = new Map<string, Promise<unknown>>();

  get<T>(path: string): Promise<T> {
    let answer = this.answers.get(path);
    if (!answer) {
      answer = api<T>('GET', path);
      // A refused or failed call is asked again next time, not remembered.
      answer.catch(() => this.answers.delete(path));
      this.answers.set(path, answer);
    }
    return answer as Promise<T>;
  }
}

/**
 * The energy of the period starting at `start` (a local midnight in the clock's zone). A
 * period recorded wholly in today's zone is one answer of its own range; one that touches
 * days recorded in another zone is asked again a day wider on each side, so those days are
 * whole.
 */
export async function loadPeriodEnergy(
  clock: SiteClock,
  period: Period,
  start: number,
  cache = new RequestCache(),
): Promise<PeriodEnergy> {
  const end = addPeriods(clock.zone, start, period, 1);
  let answer = await cache.get<EnergyAnswer>(energyPath(clock.zone, period, start));
  if (answer.buckets.some((b) => b.time_zone !== clock.zone))
    answer = await cache.get<EnergyAnswer>(energyPath(clock.zone, period, start, true));
  return periodEnergyOf(answer, period, start, end, clock.zone);
}
