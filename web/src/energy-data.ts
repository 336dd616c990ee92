// Loads the energy of a calendar period from /history (the kWh totals, last value per
// bucket, every page) and the site's zone and reset period from /config.

import { api } from './api.js';
import {
  counterQueryStart,
  counterRises,
  ENERGY_KINDS,
  ENERGY_TOPICS,
  sumIntoBuckets,
  type EnergyTable,
  type ResetPeriod,
} from './energy.js';
import type { Series, SiteConfig } from './types.js';
import { addPeriods, alignedStep, browserZone, bucketsOf, type Period } from './zone.js';

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

/** Every point of one topic's history over [from, to), following `next` across pages. */
export async function historyPoints(
  topic: string,
  from: number,
  to: number,
  groupBy: string,
  agg: string,
): Promise<Array<[number, number]>> {
  const out: Array<[number, number]> = [];
  let start = from;
  for (let page = 0; page < 50 && start < to; page++) {
    const query = new URLSearchParams({
      topic,
      from: new Date(start).toISOString(),
      to: new Date(to).toISOString(),
      group_by: groupBy,
      agg,
    });
    const answer = await api<Series>('GET', `/history?${query}`);
    for (const [time, value] of answer.points) out.push([Date.parse(time), value]);
    if (!answer.next) break;
    start = Date.parse(answer.next);
  }
  return out;
}

export interface PeriodEnergy {
  period: Period;
  start: number;
  end: number;
  /** Bucket starts: hours of a day, days of a week or month, months of a year. */
  buckets: number[];
  table: EnergyTable;
  /** The same energy per hour (for prices). */
  hours: number[];
  hourly: EnergyTable;
  /** Kinds whose total could not be read (no history, or refused). */
  missing: string[];
}

/** The energy of the period starting at `start` (a local midnight in the clock's zone). */
export async function loadPeriodEnergy(
  clock: SiteClock,
  period: Period,
  start: number,
  now = Date.now(),
): Promise<PeriodEnergy> {
  const end = addPeriods(clock.zone, start, period, 1);
  const to = Math.min(end, now + 1000);
  const buckets = bucketsOf(clock.zone, start, period);
  const hours: number[] = [];
  for (let t = start; t < end; t += 3_600_000) hours.push(t);
  const step = alignedStep(clock.zone, start, end);
  const table = {} as EnergyTable;
  const hourly = {} as EnergyTable;
  const missing: string[] = [];
  const queryFrom = counterQueryStart(start, clock.reset, clock.zone);
  await Promise.all(
    ENERGY_KINDS.map(async (kind) => {
      let rises: Array<[number, number]> = [];
      if (to > queryFrom) {
        try {
          const points = await historyPoints(ENERGY_TOPICS[kind], queryFrom, to, step.text, 'last');
          rises = counterRises(points, clock.reset, clock.zone);
        } catch {
          missing.push(kind);
        }
      }
      table[kind] = sumIntoBuckets(rises, buckets, end);
      hourly[kind] = sumIntoBuckets(rises, hours, end);
    }),
  );
  return { period, start, end, buckets, table, hours, hourly, missing };
}
