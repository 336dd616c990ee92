// The planner benchmark's hard cases: weeks (a fortnight for the dark winter) cut from the seeded year and bent into what
// real tariffs and forecasts do (export dearer than import, negative prices, prices that end
// at midnight until the day-ahead auction, a dark winter, a day without PV forecast, a
// two-rate tariff with a low feed-in). Each is
// replayed quarter hour by quarter hour as the service plans (re-planned every 15 min) and
// compared with the perfect-foresight optimum of the same days.
import {
  type PlanParams,
  type TerminalPolicy,
  type YearData,
  LocalCalendar,
  solvePlan,
} from '@heliograph/plugin-planner/planning';
import { dayAheadUntil, newRun, noControl, replay, type Run, settle, yearSlots } from './planner-replay.js';

type Highs = Parameters<typeof solvePlan>[0];
const DAY_Q = 96;

export interface BenchCase {
  name: string;
  /** First day of the year (0 = 1 January). */
  day: number;
  days: number;
  /** Bends the window's data (a copy of the year's) in place. */
  bend?: (data: YearData, cal: LocalCalendar) => void;
  /** Prices known until midnight, and from 13:00 until the next midnight (day-ahead), in both runs. */
  dayAhead?: boolean;
  /** Quarters (of the window) whose PV forecast is missing, in both runs. */
  noPv?: (j: number) => boolean;
}

/** A bend made quarter by quarter, knowing each quarter's local hour (13.75 for 13:45). */
const byLocalHour =
  (bend: (d: YearData, j: number, hour: number) => void) =>
  (d: YearData, cal: LocalCalendar): void =>
    d.times.forEach((t, j) => bend(d, j, cal.position(t).minute / 60));

/**
 * France's two-rate tariff (HP/HC): off-peak 22-6 h at 0.1696, else 0.2146, and a fixed 0.04
 * feed-in. Its spread barely pays a round trip's loss and wear, so the optimum's saving over
 * self-consumption is a few tenths of a euro a week: the shares say little, what is lost
 * against the optimum (EUR) says it.
 */
const twoRate = byLocalHour((d, j, h) => {
  d.importPrice[j] = h >= 22 || h < 6 ? 0.1696 : 0.2146;
  d.exportPrice[j] = 0.04;
});

export const CASES: BenchCase[] = [
  { name: 'spring, as generated', day: 95, days: 7 },
  {
    // Octopus Agile and Outgoing: the evening export rate above the import rate.
    name: 'export dearer than import 16-19 h',
    day: 300,
    days: 7,
    bend: byLocalHour((d, j, h) => {
      if (h >= 16 && h < 19) d.exportPrice[j] = d.importPrice[j]! + 0.05;
    }),
  },
  {
    // A dynamic import tariff (spot + 0.14) going negative at sunny middays, a fixed feed-in.
    name: 'negative import, fixed feed-in 0.08',
    day: 160,
    days: 7,
    bend: byLocalHour((d, j, h) => {
      const spot = d.spot[j]! - 0.3 * Math.exp(-((h - 13) ** 2) / 8) * Math.min(1, d.pvKw[j]! / 3);
      d.importPrice[j] = Math.round((spot + 0.14) * 10_000) / 10_000;
      d.exportPrice[j] = 0.08;
    }),
  },
  { name: 'prices end at midnight until 13:00', day: 310, days: 7, dayAhead: true },
  {
    name: 'dark winter fortnight',
    day: 345,
    days: 14,
    bend: (d) => d.pvKw.forEach((v, j) => (d.pvKw[j] = Math.round(v * 0.15 * 10_000) / 10_000)),
  },
  { name: 'a day without PV forecast', day: 180, days: 7, noPv: (j) => j >= 3 * DAY_Q && j < 4 * DAY_Q },
  { name: 'two-rate tariff (HP/HC), winter', day: 20, days: 7, bend: twoRate },
  { name: 'two-rate tariff (HP/HC), summer', day: 190, days: 7, bend: twoRate },
];

export interface CaseResult {
  name: string;
  days: number;
  /**
   * Share of the optimum's saving (against no control) at the planner's end state, %; NaN
   * where that saving is under {@link SHARE_FROM_EUR} (no share of it means anything).
   */
  perfectEqual: number;
  perfectRealized: number;
  noisyEqual: number;
  noisyRealized: number;
  /** What each run cost more than the optimum ending at the same state of charge, EUR. */
  lostEur: { perfect: number; noisy: number };
  /**
   * Day-ahead cases: the perfect and the noisy run's shares at equal end state had the planner
   * known every price 48 h ahead: what is left of each shortfall without the unpublished
   * prices' guess.
   */
  allPrices?: { perfect: number; noisy: number };
  /**
   * With `attribute`: the noisy run's share at equal end state with only the PV noisy (the load
   * as it came), with only the load noisy, and with each day's PV told as it will come once the
   * day has had an hour of sun (the most that watching the day could learn of it).
   */
  attribution?: Record<'pvAlone' | 'loadAlone' | 'daySeen', { share: number; lostEur: number }>;
  solveMs: number[];
}

const cost = (run: Run) => run.bill + run.wear;

/** Below this saving at stake (EUR over the case's days) a share is not given. */
const SHARE_FROM_EUR = 0.05;

/** The window's data (`days` + 2 more for the last plans' horizon), bent by the case. */
function caseData(year: YearData, c: BenchCase, cal: LocalCalendar): YearData {
  const from = c.day * DAY_Q;
  const to = Math.min(year.times.length, from + (c.days + 2) * DAY_Q);
  const cut = <T>(xs: readonly T[]) => xs.slice(from, to);
  const d: YearData = {
    times: cut(year.times),
    spot: cut(year.spot),
    importPrice: cut(year.importPrice),
    exportPrice: cut(year.exportPrice),
    pvKw: cut(year.pvKw),
    loadKw: cut(year.loadKw),
  };
  c.bend?.(d, cal);
  return d;
}

export function runCases(args: {
  highs: Highs;
  year: YearData;
  /** Noisy PV and load forecasts of the whole year, index for index. */
  noisy: { pv: readonly number[]; load: readonly number[] };
  params: PlanParams;
  timeZone: string;
  terminal?: TerminalPolicy;
  cases?: readonly BenchCase[];
  /** Also replay the noisy run split by its sources ({@link CaseResult.attribution}). */
  attribute?: boolean;
}): CaseResult[] {
  const { highs, params } = args;
  const cal = new LocalCalendar(args.timeZone);
  const results: CaseResult[] = [];
  for (const c of args.cases ?? CASES) {
    const data = caseData(args.year, c, cal);
    const n = c.days * DAY_Q;
    const offset = c.day * DAY_Q;
    // The forecast's error as generated for the year (its ratio to the year's PV), on the
    // case's own weather: a dark fortnight is forecast dark, with the same error.
    const noisy = {
      pvKw: data.pvKw.map((v, j) => {
        const generated = args.year.pvKw[offset + j]!;
        return generated > 0 ? (v * args.noisy.pv[offset + j]!) / generated : 0;
      }),
      loadKw: args.noisy.load.slice(offset, offset + data.times.length),
    };
    const known = knownUntil(data, cal, c.dayAhead === true);
    const common = { describe: { currency: 'EUR', timeZone: args.timeZone }, terminal: args.terminal, noPv: c.noPv };
    const perfect = replay(highs, data, n, params, { ...common, pricesTo: (i) => (c.dayAhead ? known[i]! : i + 192) });
    const noisyRun = replay(highs, data, n, params, { ...common, forecast: noisy, pricesTo: (i) => known[i]! });
    const base = cost(noControl(data, n, params));
    const free = optimum(highs, data, n, params, undefined);
    const share = (run: Run, best: number) =>
      base - best < SHARE_FROM_EUR ? NaN : (100 * (base - cost(run))) / (base - best);
    // Against the optimum ending where the run ended: the share of its saving, and the EUR lost.
    const atEnd = (run: Run) => {
      const best = optimum(highs, data, n, params, run.endSoc);
      return { share: share(run, best), lostEur: cost(run) - best };
    };
    const equal = (run: Run) => atEnd(run).share;
    const allPrices = c.dayAhead
      ? {
          perfect: equal(replay(highs, data, n, params, { ...common, pricesTo: (i) => i + 192 })),
          noisy: equal(replay(highs, data, n, params, { ...common, forecast: noisy, pricesTo: (i) => i + 192 })),
        }
      : undefined;
    const split = (
      forecast: { pvKw: readonly number[]; loadKw: readonly number[] },
      pvTold?: (i: number, j: number) => boolean,
    ) => atEnd(replay(highs, data, n, params, { ...common, forecast, pricesTo: (i) => known[i]!, pvTold }));
    const attribution = args.attribute
      ? {
          pvAlone: split({ pvKw: noisy.pvKw, loadKw: data.loadKw }),
          loadAlone: split({ pvKw: data.pvKw, loadKw: noisy.loadKw }),
          daySeen: split(noisy, toldAfterSunrise(data)),
        }
      : undefined;
    const [perfectEnd, noisyEnd] = [atEnd(perfect), atEnd(noisyRun)];
    results.push({
      name: c.name,
      days: c.days,
      perfectEqual: perfectEnd.share,
      perfectRealized: share(perfect, free),
      noisyEqual: noisyEnd.share,
      noisyRealized: share(noisyRun, free),
      lostEur: { perfect: perfectEnd.lostEur, noisy: noisyEnd.lostEur },
      ...(allPrices ? { allPrices } : {}),
      ...(attribution ? { attribution } : {}),
      solveMs: [...perfect.solveMs, ...noisyRun.solveMs],
    });
  }
  return results;
}

/** Quarters with at least this much PV (kW) have sun. */
const SUN_KW = 0.2;

/**
 * For the noisy run told each day's PV once seen: quarter j's true PV is told to the plan at
 * quarter i when both are in the same day of the noisy forecast (its error is one factor per
 * 96 quarters of the year, and a window starts at such a day) and that day has had an hour
 * (four quarters) of sun before i.
 */
function toldAfterSunrise(data: YearData): (i: number, j: number) => boolean {
  const sunrise = new Map<number, number>();
  for (let k = 0; k < data.pvKw.length; k++) {
    const day = Math.floor(k / DAY_Q);
    if (!sunrise.has(day) && data.pvKw[k]! >= SUN_KW) sunrise.set(day, k);
  }
  return (i, j) => {
    const day = Math.floor(i / DAY_Q);
    const first = sunrise.get(day);
    return Math.floor(j / DAY_Q) === day && first !== undefined && i >= first + 4;
  };
}

/** Per quarter, the end (exclusive index) of the prices known then. */
function knownUntil(data: YearData, cal: LocalCalendar, dayAhead: boolean): number[] {
  return dayAhead ? dayAheadUntil(data, cal) : data.times.map((_, i) => i + 192);
}

/** The case's cost with perfect foresight: one plan over all its days, ending at `endSoc` or above (none: free). */
function optimum(highs: Highs, data: YearData, n: number, params: PlanParams, endSoc: number | undefined): number {
  const sol = solvePlan(highs, {
    params,
    slots: yearSlots(data, 0, n),
    socPercent: 50,
    terminalValue: 0,
    // Branch and cut to the end (or a minute): the reference must be the optimum.
    searchMs: 60_000,
    ...(endSoc === undefined ? {} : { endSocMin: endSoc }),
  });
  const run = newRun();
  for (let j = 0; j < n; j++) settle(run, data, j, sol.importKw[j]! - sol.exportKw[j]!, sol.dischargeKw[j]!, params);
  return run.bill + run.wear;
}
