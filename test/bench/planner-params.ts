// The battery and grid both planner benchmarks plan for (10 kWh / 5 kW, 90 % round trip), and
// the window of a generated year a plan is asked for.
import type { PlanParams, PriceInput, YearData } from '@heliograph/plugin-planner/planning';

const QUARTER = 15 * 60_000;

export const BENCH_PLAN_PARAMS: PlanParams = {
  capacityKwh: 10,
  maxChargeKw: 5,
  maxDischargeKw: 5,
  reserveSoc: 10,
  maxSoc: 100,
  roundTripEfficiency: 0.9,
  cycleCost: 0.02,
  gridImportMaxKw: 20,
  gridExportMaxKw: 10,
  exportAllowed: true,
};

/**
 * The prices, PV and load of the year's quarters [from, to) as a plan request has them. PV
 * and load are the year's own (perfect foresight), or from `forecast` (noisy forecasts, for
 * the current quarter too: a plan is made at its start, before it is measured). `window`
 * narrows the prices: known from `pricesFrom` (a price book keeps today's past prices) to
 * `pricesTo` (the day-ahead auction's reach), gives the PV forecast from `pvFrom` (the service
 * reads it from two days back) and drops it for `noPv` quarters.
 */
export function yearWindow(
  year: YearData,
  from: number,
  to: number,
  forecast?: { pvKw: readonly number[]; loadKw: readonly number[] },
  window: { pricesFrom?: number; pricesTo?: number; pvFrom?: number; noPv?: (j: number) => boolean } = {},
): { prices: PriceInput[]; pvW: Map<number, number>; loadW: Map<number, number> } {
  const prices: PriceInput[] = [];
  const pvW = new Map<number, number>();
  const loadW = new Map<number, number>();
  const pricesTo = Math.min(window.pricesTo ?? to, year.times.length);
  for (let j = Math.max(0, window.pricesFrom ?? from); j < pricesTo; j++) {
    const time = year.times[j]!;
    prices.push({ start: time, end: time + QUARTER, import: year.importPrice[j]!, export: year.exportPrice[j]! });
  }
  for (let j = Math.max(0, Math.min(from, window.pvFrom ?? from)); j < Math.min(to, year.times.length); j++) {
    const time = year.times[j]!;
    if (!window.noPv?.(j)) pvW.set(time, (forecast ? forecast.pvKw[j]! : year.pvKw[j]!) * 1000);
    if (j >= from) loadW.set(time, (forecast ? forecast.loadKw[j]! : year.loadKw[j]!) * 1000);
  }
  return { prices, pvW, loadW };
}
