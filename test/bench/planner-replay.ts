// What both planner benchmarks (planner.bench.ts, planner-cases.ts) do with a generated year:
// settle a quarter's grid bill and battery wear, run it with no control, replay it quarter
// hour by quarter hour as the service plans, and cut its quarters into the LP's slots.
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
  pvGuess,
  stepBattery,
} from '@heliograph/plugin-planner/planning';
import { yearWindow } from './planner-params.js';

type Highs = Parameters<typeof makePlan>[0];

const QUARTER = 15 * 60_000;

/** What a run cost (EUR: the grid bill and the battery's wear), where it left the battery and its solve times. */
export interface Run {
  bill: number;
  wear: number;
  endSoc: number;
  solveMs: number[];
}

/** A run that has cost nothing yet, the battery at 50 %. */
export const newRun = (): Run => ({ bill: 0, wear: 0, endSoc: 50, solveMs: [] });

/** Adds quarter `i`'s grid bill (import or export price) and the wear of discharging `batteryKw`. */
export function settle(
  run: Run,
  data: YearData,
  i: number,
  gridKw: number,
  batteryKw: number,
  params: PlanParams,
): void {
  const h = 0.25;
  run.bill += h * gridKw * (gridKw >= 0 ? data.importPrice[i]! : data.exportPrice[i]!);
  if (batteryKw > 0) run.wear += h * batteryKw * params.cycleCost;
}

/** The battery over quarter `i` under `command`, from `soc`: settled into `run`, the new SOC returned. */
function step(run: Run, data: YearData, i: number, command: Command, soc: number, params: PlanParams): number {
  const next = stepBattery({
    command,
    socPercent: soc,
    pvKw: data.pvKw[i]!,
    loadKw: data.loadKw[i]!,
    hours: 0.25,
    params,
    minSoc: params.reserveSoc,
  });
  settle(run, data, i, next.gridKw, next.batteryKw, params);
  return next.socPercent;
}

/** The first `n` quarters without control (self-consumption), from 50 %. */
export function noControl(data: YearData, n: number, params: PlanParams): Run {
  const run = newRun();
  const command: Command = { mode: 'normal', powerW: 0, targetSoc: 0 };
  let soc = 50;
  for (let i = 0; i < n; i++) soc = step(run, data, i, command, soc, params);
  run.endSoc = soc;
  return run;
}

/**
 * The first `n` quarters as the service runs them: a 48 h plan at each quarter's start (from
 * the last plan's grid, with the quarter before and today's PV so far measured), its first action stepped. PV and
 * load come from `forecast` (none: the year's own); prices are known up to `pricesTo(i)`.
 */
export function replay(
  highs: Highs,
  data: YearData,
  n: number,
  params: PlanParams,
  opts: {
    describe: { currency: string; timeZone: string };
    terminal?: TerminalPolicy | undefined;
    forecast?: { pvKw: readonly number[]; loadKw: readonly number[] } | undefined;
    pricesTo: (i: number) => number;
    noPv?: ((j: number) => boolean) | undefined;
    /** Whether the plan at quarter `i` is told quarter `j`'s true PV instead of its forecast. */
    pvTold?: ((i: number, j: number) => boolean) | undefined;
  },
): Run {
  const run = newRun();
  const cal = new LocalCalendar(opts.describe.timeZone);
  let soc = 50;
  let last: Plan | undefined;
  for (let i = 0; i < n; i++) {
    const told = opts.pvTold;
    const forecast =
      opts.forecast && told
        ? { ...opts.forecast, pvKw: opts.forecast.pvKw.map((v, j) => (told(i, j) ? data.pvKw[j]! : v)) }
        : opts.forecast;
    // From the quarter before: its forecast against what was measured in it (`measured`).
    const window = yearWindow(data, Math.max(0, i - 1), i + 192, forecast, {
      pricesFrom: i - 96,
      pricesTo: opts.pricesTo(i),
      pvFrom: i - 192,
      ...(opts.noPv ? { noPv: opts.noPv } : {}),
    });
    const plan: Plan = makePlan(highs, {
      now: data.times[i]!,
      params,
      ...window,
      ...(i > 0
        ? {
            measured: {
              pvW: data.pvKw[i - 1]! * 1000,
              loadW: data.loadKw[i - 1]! * 1000,
              pvToday: pvToday(data, i, cal, window.pvW),
            },
          }
        : {}),
      defaultLoadW: 500,
      socPercent: soc,
      exportPrice: 0,
      describe: opts.describe,
      ...(opts.terminal ? { terminal: opts.terminal } : {}),
      // As the controller plans: from where the last plan's search ended.
      ...(last ? { previousGridW: plannedGrid(last) } : {}),
    });
    last = plan;
    run.solveMs.push(plan.solveMs);
    const a = plan.actions[0]!;
    soc = step(run, data, i, { mode: a.mode, powerW: a.powerW, targetSoc: a.targetSoc }, soc, params);
  }
  run.endSoc = soc;
  return run;
}

/**
 * Today's PV so far as the service reads it before the plan at quarter `i` (measured.ts): from
 * the local midnight (or the window's start) to quarter `i`, what was made and what the plan's
 * PV forecast `pvW` said of the same quarters (or the nearest day's, as the plan takes it),
 * kWh; and the next local midnight.
 */
function pvToday(
  data: YearData,
  i: number,
  cal: LocalCalendar,
  pvW: ReadonlyMap<number, number>,
): { madeKwh: number; forecastKwh: number; dayEnd: number } {
  const midnight = cal.dayStart(data.times[i]!);
  let madeKwh = 0;
  let forecastKwh = 0;
  for (let j = Math.max(0, i - Math.round((data.times[i]! - midnight) / QUARTER)); j < i; j++) {
    const forecast = pvGuess(pvW, data.times[j]!);
    if (forecast === undefined) continue;
    madeKwh += data.pvKw[j]! * 0.25;
    forecastKwh += (forecast / 1000) * 0.25;
  }
  return { madeKwh, forecastKwh, dayEnd: cal.dayEnd(data.times[i]!) };
}

/** The year's quarters [from, to) as the LP's slots. */
export function yearSlots(data: YearData, from: number, to: number): PlanSlot[] {
  const slots: PlanSlot[] = [];
  for (let j = from; j < to; j++)
    slots.push({
      start: data.times[j]!,
      end: data.times[j]! + QUARTER,
      importPrice: data.importPrice[j]!,
      exportPrice: data.exportPrice[j]!,
      pvKw: data.pvKw[j]!,
      loadKw: data.loadKw[j]!,
    });
  return slots;
}

/** Day-ahead: per quarter, the end (exclusive index) of the prices known then; before 13:00 local today's end, after it tomorrow's. */
export function dayAheadUntil(data: YearData, cal: LocalCalendar): number[] {
  return data.times.map((time, i) => {
    const { minute } = cal.position(time);
    return i + Math.round((24 * 60 - minute) / 15) + (minute >= 13 * 60 ? 96 : 0);
  });
}
