// The planner benchmark's hard cases: weeks (a fortnight for the dark winter) cut from the seeded year and bent into what
// real tariffs and forecasts do (export dearer than import, negative prices, prices that end
// at midnight until the day-ahead auction, a dark winter, a day without PV forecast). Each is
// replayed quarter hour by quarter hour as the service plans (re-planned every 15 min) and
// compared with the perfect-foresight optimum of the same days.
import {
  type Command,
  type PlanParams,
  type PlanSlot,
  type TerminalPolicy,
  type YearData,
  LocalCalendar,
  makePlan,
  type Plan,
  plannedGrid,
  solvePlan,
  stepBattery,
} from '@heliograph/plugin-planner/planning';
import { yearWindow } from './planner-params.js';

type Highs = Parameters<typeof makePlan>[0];

const QUARTER = 15 * 60_000;
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

const hourOf = (cal: LocalCalendar, time: number) => cal.position(time).minute / 60;

export const CASES: BenchCase[] = [
  { name: 'spring, as generated', day: 95, days: 7 },
  {
    // Octopus Agile and Outgoing: the evening export rate above the import rate.
    name: 'export dearer than import 16-19 h',
    day: 300,
    days: 7,
    bend: (d, cal) =>
      d.times.forEach((t, j) => {
        const h = hourOf(cal, t);
        if (h >= 16 && h < 19) d.exportPrice[j] = d.importPrice[j]! + 0.05;
      }),
  },
  {
    // A dynamic import tariff (spot + 0.14) going negative at sunny middays, a fixed feed-in.
    name: 'negative import, fixed feed-in 0.08',
    day: 160,
    days: 7,
    bend: (d, cal) =>
      d.times.forEach((t, j) => {
        const h = hourOf(cal, t);
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
];

export interface CaseResult {
  name: string;
  days: number;
  /** Share of the optimum's saving (against no control) at the planner's end state, %. */
  perfectEqual: number;
  perfectRealized: number;
  noisyEqual: number;
  noisyRealized: number;
  solveMs: number[];
}

interface Run {
  bill: number;
  endSoc: number;
  solveMs: number[];
}

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
}): CaseResult[] {
  const { highs, params } = args;
  const cal = new LocalCalendar(args.timeZone);
  const results: CaseResult[] = [];
  for (const c of args.cases ?? CASES) {
    const data = caseData(args.year, c, cal);
    const n = c.days * DAY_Q;
    const offset = c.day * DAY_Q;
    const noisy = {
      pvKw: args.noisy.pv.slice(offset, offset + data.times.length),
      loadKw: args.noisy.load.slice(offset, offset + data.times.length),
    };
    const known = knownUntil(data, cal, c.dayAhead === true);
    const perfect = replay(highs, data, n, params, args, undefined, c.dayAhead ? known : undefined, c.noPv);
    const noisyRun = replay(highs, data, n, params, args, noisy, known, c.noPv);
    const base = noControl(data, n, params);
    const free = optimum(highs, data, n, params, undefined);
    const share = (run: Run, best: number) => (100 * (base - run.bill)) / (base - best);
    results.push({
      name: c.name,
      days: c.days,
      perfectEqual: share(perfect, optimum(highs, data, n, params, perfect.endSoc)),
      perfectRealized: share(perfect, free),
      noisyEqual: share(noisyRun, optimum(highs, data, n, params, noisyRun.endSoc)),
      noisyRealized: share(noisyRun, free),
      solveMs: [...perfect.solveMs, ...noisyRun.solveMs],
    });
  }
  return results;
}

/** Per quarter, the end (exclusive index) of the prices known then. */
function knownUntil(data: YearData, cal: LocalCalendar, dayAhead: boolean): number[] {
  return data.times.map((time, i) => {
    if (!dayAhead) return i + 192;
    const { minute } = cal.position(time);
    return i + Math.round((24 * 60 - minute) / 15) + (minute >= 13 * 60 ? DAY_Q : 0);
  });
}

const bill = (data: YearData, i: number, gridKw: number) =>
  0.25 * gridKw * (gridKw >= 0 ? data.importPrice[i]! : data.exportPrice[i]!);

function replay(
  highs: Highs,
  data: YearData,
  n: number,
  params: PlanParams,
  opts: { timeZone: string; terminal?: TerminalPolicy },
  forecast: { pvKw: readonly number[]; loadKw: readonly number[] } | undefined,
  known: readonly number[] | undefined,
  noPv: ((j: number) => boolean) | undefined,
): Run {
  const run: Run = { bill: 0, endSoc: 50, solveMs: [] };
  let soc = 50;
  let last: Plan | undefined;
  for (let i = 0; i < n; i++) {
    const plan: Plan = makePlan(highs, {
      now: data.times[i]!,
      params,
      // From the quarter before: its forecast against what was measured in it (`measured`).
      ...yearWindow(data, Math.max(0, i - 1), i + 192, forecast, {
        pricesFrom: i - DAY_Q,
        pricesTo: known ? known[i]! : i + 192,
        ...(noPv ? { noPv } : {}),
      }),
      ...(i > 0 ? { measured: { pvW: data.pvKw[i - 1]! * 1000, loadW: data.loadKw[i - 1]! * 1000 } } : {}),
      defaultLoadW: 500,
      socPercent: soc,
      exportPrice: 0,
      describe: { currency: 'EUR', timeZone: opts.timeZone },
      ...(opts.terminal ? { terminal: opts.terminal } : {}),
      // As the controller plans: from where the last plan's search ended.
      ...(last ? { previousGridW: plannedGrid(last) } : {}),
    });
    last = plan;
    run.solveMs.push(plan.solveMs);
    const a = plan.actions[0]!;
    const step = stepBattery({
      command: { mode: a.mode, powerW: a.powerW, targetSoc: a.targetSoc },
      socPercent: soc,
      pvKw: data.pvKw[i]!,
      loadKw: data.loadKw[i]!,
      hours: 0.25,
      params,
      minSoc: params.reserveSoc,
    });
    run.bill += bill(data, i, step.gridKw) + (step.batteryKw > 0 ? 0.25 * step.batteryKw * params.cycleCost : 0);
    soc = step.socPercent;
  }
  run.endSoc = soc;
  return run;
}

function noControl(data: YearData, n: number, params: PlanParams): number {
  let cost = 0;
  let soc = 50;
  const command: Command = { mode: 'normal', powerW: 0, targetSoc: 0 };
  for (let i = 0; i < n; i++) {
    const step = stepBattery({
      command,
      socPercent: soc,
      pvKw: data.pvKw[i]!,
      loadKw: data.loadKw[i]!,
      hours: 0.25,
      params,
      minSoc: params.reserveSoc,
    });
    cost += bill(data, i, step.gridKw) + (step.batteryKw > 0 ? 0.25 * step.batteryKw * params.cycleCost : 0);
    soc = step.socPercent;
  }
  return cost;
}

/** The case's cost with perfect foresight: one plan over all its days, ending at `endSoc` or above (none: free). */
function optimum(highs: Highs, data: YearData, n: number, params: PlanParams, endSoc: number | undefined): number {
  const slots: PlanSlot[] = [];
  for (let j = 0; j < n; j++)
    slots.push({
      start: data.times[j]!,
      end: data.times[j]! + QUARTER,
      importPrice: data.importPrice[j]!,
      exportPrice: data.exportPrice[j]!,
      pvKw: data.pvKw[j]!,
      loadKw: data.loadKw[j]!,
    });
  const sol = solvePlan(highs, {
    params,
    slots,
    socPercent: 50,
    terminalValue: 0,
    // Branch and cut to the end (or a minute): the reference must be the optimum.
    searchMs: 60_000,
    ...(endSoc === undefined ? {} : { endSocMin: endSoc }),
  });
  let cost = 0;
  for (let j = 0; j < n; j++)
    cost += bill(data, j, sol.importKw[j]! - sol.exportKw[j]!) + 0.25 * sol.dischargeKw[j]! * params.cycleCost;
  return cost;
}
