// The battery and grid both planner benchmarks plan for: 10 kWh / 5 kW, 90 % round trip.
import type { PlanParams } from '@heliograph/plugin-planner/planning';

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
