// The car part of `npm run bench:planner`: over the generated year, an electric car plugs in
// at 18:00 local on each weekday needing CAR_KWH by 07:00 the next morning, on an 11 kW
// charger. Each evening two 48 h plans are made from 18:00 with the same prices, PV, load and
// battery (perfect foresight, the battery at 50 %, kept off the car): the car charging at
// plug-in at full power (the LP's car window is the quarters that takes), and the car planned
// with the house up to 07:00. The saving is the difference of their costs over the 48 h (the
// grid bill, the battery's wear and the energy left in it at the plan's value).
import {
  type PlanParams,
  type YearData,
  LocalCalendar,
  solvePlan,
  terminalValue,
} from '@heliograph/plugin-planner/planning';
import { yearSlots } from './planner-replay.js';

type Highs = Parameters<typeof solvePlan>[0];

/** The car's need, kWh into its battery, and the charging efficiency (the planner's default). */
export const CAR_KWH = 12;
export const CAR_EFFICIENCY = 0.9;
export const CAR_MAX_KW = 11;

export interface CarResult {
  evenings: number;
  /** Over the year, EUR: at plug-in, planned, and the difference. */
  atPlugIn: number;
  planned: number;
  /** Mean import price of the car's energy, EUR/kWh, each way. */
  priceAtPlugIn: number;
  pricePlanned: number;
  /** Evenings the planned need could not be met (should be none). */
  short: number;
  solveMs: number[];
}

export function runCar(args: {
  highs: Highs;
  year: YearData;
  params: PlanParams;
  timeZone: string;
  n: number;
}): CarResult {
  const { highs, year, params, n } = args;
  const cal = new LocalCalendar(args.timeZone);
  const weekday = new Intl.DateTimeFormat('en-GB', { timeZone: args.timeZone, weekday: 'short' });
  const need = CAR_KWH / CAR_EFFICIENCY;
  const result: CarResult = {
    evenings: 0,
    atPlugIn: 0,
    planned: 0,
    priceAtPlugIn: 0,
    pricePlanned: 0,
    short: 0,
    solveMs: [],
  };
  let energyAtPlugIn = 0;
  let energyPlanned = 0;
  for (let i = 0; i + 192 <= year.times.length && i < n; i++) {
    const time = year.times[i]!;
    if (cal.position(time).minute !== 18 * 60 || ['Sat', 'Sun'].includes(weekday.format(time))) continue;
    const slots = yearSlots(year, i, i + 192);
    // 07:00 local the next morning: 13 hours on, or the quarter the local clock shows it.
    let until = 52;
    while (until < slots.length && cal.position(slots[until]!.start).minute !== 7 * 60) until++;
    const value = terminalValue(slots, params, 'replacement');
    const plan = (window: number) => {
      const started = performance.now();
      const sol = solvePlan(highs, {
        params,
        slots,
        socPercent: 50,
        terminalValue: value,
        car: { maxKw: CAR_MAX_KW, needKwh: need, slots: window, allowBattery: false },
      });
      result.solveMs.push(performance.now() - started);
      return sol;
    };
    const fullPower = plan(Math.ceil(need / (CAR_MAX_KW * 0.25)));
    const planned = plan(until);
    result.evenings++;
    result.atPlugIn += fullPower.objective;
    result.planned += planned.objective;
    if (planned.carShortKwh > 0.01) result.short++;
    for (let t = 0; t < until; t++) {
      result.priceAtPlugIn += fullPower.carKw[t]! * 0.25 * slots[t]!.importPrice;
      energyAtPlugIn += fullPower.carKw[t]! * 0.25;
      result.pricePlanned += planned.carKw[t]! * 0.25 * slots[t]!.importPrice;
      energyPlanned += planned.carKw[t]! * 0.25;
    }
  }
  result.priceAtPlugIn /= Math.max(1e-9, energyAtPlugIn);
  result.pricePlanned /= Math.max(1e-9, energyPlanned);
  return result;
}
