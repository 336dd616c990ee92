import type { SettingsLog } from '../config/settings-log.js';
import type { Db } from '../db.js';
import type { HistoryStore } from '../history/store.js';
import { roundTo } from '../numbers.js';
import { readCounterGroups, riseIn, type CounterGroups } from './counter-rises.js';
import { periodBuckets, type EnergyPeriod, type PeriodBucket } from './period-buckets.js';
import { meanPrice, MoneyTally, readKeptPrices, standingCharge, type KeptPrices } from './period-money.js';

/** The answer's energy figures and the period-to-date counters (energy/kwh-totals.ts) they are read from. */
export const PERIOD_COUNTERS = [
  ['pv', 'total/pv_energy'],
  ['load', 'total/load_energy'],
  ['battery_in', 'total/battery_energy_in'],
  ['battery_out', 'total/battery_energy_out'],
  ['grid_in', 'total/grid_energy_in'],
  ['grid_out', 'total/grid_energy_out'],
] as const;

export type EnergyFigures = Record<(typeof PERIOD_COUNTERS)[number][0], number>;
export type MoneyFigures = NonNullable<ReturnType<MoneyTally['result']>>;

export interface PeriodFigures extends PeriodBucket {
  /** kWh, to 3 decimals; null when no counter has a reading in the bucket. */
  energy: EnergyFigures | null;
  /** Money in `currency`, to 4 decimals; null without energy or without any price. */
  money: MoneyFigures | null;
}

export interface PeriodEnergyDeps {
  store: HistoryStore;
  /** The database file holding the kept prices (`price_slots`). */
  db: Db;
  log: Pick<SettingsLog, 'values'>;
  /** The zone in force, for a log that has no row yet. */
  timeZone: () => string;
  /** The Site settings' price adjustment, as GET /api/v1/grid applies it. */
  priceAdjust: () => { multiplier: number; offset: number };
  /** Now: a standing charge counts up to it, not for days still to come. */
  now: () => number;
  /** The currency of the prices to cost with (the active provider's), or null: no money. */
  currency: () => Promise<string | null>;
}

/** Group lengths the store folds exactly, coarsest first: an hour at most, since money is priced per hour. */
const GROUPS_MS = [3_600_000, 900_000, 60_000, 10_000];
const HOUR_MS = 3_600_000;

/**
 * Energy and money per calendar period, read from stored history by the rules in force when
 * it was recorded: bucket bounds from the settings change log (the zone at each bucket's
 * start), kWh from how far each `total/*_energy` counter rose, with the resets found in the
 * readings themselves (counter-rises.ts), so no setting of today enters a past figure. The
 * counters are read in hour groups (quarter hours, or finer, when a zone's offset is not whole
 * hours) from the store's rollups, never reading by reading: a year of days is 8,784 groups a
 * counter.
 */
export class PeriodEnergy {
  constructor(private readonly deps: PeriodEnergyDeps) {}

  async figures(
    period: EnergyPeriod,
    from: number,
    to: number,
  ): Promise<{ currency: string | null; buckets: PeriodFigures[] }> {
    const { deps } = this;
    const buckets = periodBuckets(period, from, to, deps.log.values('site.timeZone'), deps.timeZone());
    const currency = await deps.currency();
    if (buckets.length === 0) return { currency, buckets: [] };
    const groupMs = GROUPS_MS.find((g) => buckets.every((b) => b.from % g === 0 && b.to % g === 0)) ?? 10_000;
    const first = buckets[0]!.from;
    const last = buckets.at(-1)!.to;
    // One group before the first bucket: its last reading is where the first group's rise starts.
    const groupsFrom = Math.floor(first / groupMs) * groupMs - groupMs;
    const n = Math.ceil((last - groupsFrom) / groupMs);
    const [counters, prices] = await Promise.all([
      Promise.all(PERIOD_COUNTERS.map(([, topic]) => readCounterGroups(deps.store, topic, groupsFrom, n, groupMs))),
      currency === null ? null : readKeptPrices(deps.db, currency, first, last, deps.priceAdjust()),
    ]);
    const cursors = { import: { i: 0 }, export: { i: 0 } };
    const out = buckets.map((bucket) => {
      const i0 = Math.round((bucket.from - groupsFrom) / groupMs);
      const i1 = Math.round((bucket.to - groupsFrom) / groupMs);
      return this.bucketFigures(bucket, counters, prices, cursors, groupsFrom, groupMs, i0, i1);
    });
    return { currency, buckets: out };
  }

  private bucketFigures(
    bucket: PeriodBucket,
    counters: readonly CounterGroups[],
    prices: KeptPrices | null,
    cursors: { import: { i: number }; export: { i: number } },
    groupsFrom: number,
    groupMs: number,
    i0: number,
    i1: number,
  ): PeriodFigures {
    const sums = new Float64Array(PERIOD_COUNTERS.length);
    const rises = new Float64Array(PERIOD_COUNTERS.length);
    const tally = new MoneyTally();
    let seen = false;
    for (let i = i0; i < i1; i++) {
      let read = false;
      for (let c = 0; c < counters.length; c++) {
        if (counters[c]!.count[i]! > 0) read = true;
        rises[c] = riseIn(counters[c]!, i);
        sums[c]! += rises[c]!;
      }
      if (!read) continue;
      seen = true;
      if (!prices) continue;
      const gFrom = groupsFrom + i * groupMs;
      const gTo = gFrom + groupMs;
      tally.add(
        groupMs / HOUR_MS,
        { load: rises[1]!, gridIn: rises[4]!, gridOut: rises[5]! },
        meanPrice(prices.import, cursors.import, gFrom, gTo),
        meanPrice(prices.export, cursors.export, gFrom, gTo),
      );
    }
    if (!seen) return { ...bucket, energy: null, money: null };
    const energy = Object.fromEntries(
      PERIOD_COUNTERS.map(([name], c) => [name, roundTo(sums[c]!, 3)]),
    ) as EnergyFigures;
    // A standing charge accrues with time: a running bucket's counts up to now.
    const money = prices
      ? tally.result(standingCharge(prices.standing, bucket.from, Math.min(bucket.to, this.deps.now())))
      : null;
    return { ...bucket, energy, money };
  }
}
