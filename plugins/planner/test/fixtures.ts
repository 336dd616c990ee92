// What the planner's tests plan for: a 10 kWh battery on a 15 kW connection, and a day whose
// prices are cheap at night and dear in the evening.
import type { PlanParams, PlanRequest, PriceInput } from '../src/planning.js';

const HOUR = 3_600_000;

export const PARAMS: PlanParams = {
  capacityKwh: 10,
  maxChargeKw: 5,
  maxDischargeKw: 5,
  reserveSoc: 20,
  maxSoc: 100,
  roundTripEfficiency: 0.9,
  cycleCost: 0.02,
  gridImportMaxKw: 15,
  gridExportMaxKw: 8,
  exportAllowed: true,
};

/** 24 hours from 00:00 UTC of 2026-03-10: cheap at night (0.07), dear 17:00-21:00 (0.31). */
export function nightAndEvening(start = Date.UTC(2026, 2, 10)): PriceInput[] {
  return Array.from({ length: 24 }, (_, h) => ({
    start: start + h * HOUR,
    end: start + (h + 1) * HOUR,
    import: h < 5 ? 0.07 : h >= 17 && h < 21 ? 0.31 : 0.2,
    export: 0.05,
  }));
}

/** A plan request at `now` for PARAMS, half full, with these prices and no forecast. */
export function planRequest(prices: PlanRequest['prices'], now = Date.UTC(2026, 2, 10)): PlanRequest {
  return {
    now,
    params: PARAMS,
    prices,
    pvW: new Map(),
    loadW: new Map(),
    defaultLoadW: 1500,
    socPercent: 50,
    exportPrice: 0,
    describe: { currency: 'EUR', timeZone: 'Europe/Berlin' },
  };
}
