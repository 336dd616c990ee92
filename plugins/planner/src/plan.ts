/**
 * One planning run, pure: the price book, the PV forecast, the load forecast and the state
 * of charge in, the schedule of actions out. Slots are absolute UTC quarter hours (the first
 * starts now and ends at the next quarter hour); the site's zone only words the reasons.
 */
import {
  type CarLoad,
  type LpSolution,
  netGridCost,
  type PlanInput,
  PlanInfeasibleError,
  type PlanParams,
  type PlanSlot,
  solvePlan,
} from './lp.js';
import { type Describe, type SlotAction, toActions } from './modes.js';

type Highs = Parameters<typeof solvePlan>[0];

export const QUARTER_MS = 15 * 60_000;
export const MAX_HORIZON_MS = 48 * 3_600_000;

export interface PriceInput {
  start: number;
  end: number;
  /** Import price, currency per kWh. */
  import: number;
  /** Export price, currency per kWh; null = not known (then `exportPrice` of the config). */
  export: number | null;
}

export interface PlanRequest {
  now: number;
  params: PlanParams;
  prices: readonly PriceInput[];
  /** PV forecast, W, per quarter hour start. */
  pvW: ReadonlyMap<number, number>;
  /** Load forecast, W, per quarter hour start. */
  loadW: ReadonlyMap<number, number>;
  /** Fallback load, W, for quarter hours the load forecast does not cover. */
  defaultLoadW: number;
  socPercent: number;
  /** Export price when the book has none: the feed-in tariff (0 when not paid). */
  exportPrice: number;
  describe: Describe;
  horizonMs?: number;
  /** How energy left at the horizon's end is valued; default {@link DEFAULT_TERMINAL}. */
  terminal?: TerminalPolicy;
  /** An electric car to charge with the house (a charger in mode `planned`), if any. */
  car?: CarRequest;
  /**
   * The last plan's net grid power per quarter hour start, W ({@link plannedGrid}): where
   * import and export need a binary, the search starts from the last plan's choice too.
   */
  previousGridW?: ReadonlyMap<number, number>;
  /**
   * The last quarter hour as the site measured it (its mean PV and load, W), and today's PV so
   * far. Where the forecasts cover that quarter too, their error there corrects the next
   * hours, and today's error the rest of today ({@link nowcast}).
   */
  measured?: {
    pvW?: number;
    loadW?: number;
    /**
     * The PV of today so far (local midnight to the current quarter hour), kWh: what the site
     * made, and what the forecast said of the same quarter hours; `dayEnd` is the next local
     * midnight. How far today is off its forecast corrects the rest of today ({@link nowcast}).
     */
    pvToday?: { madeKwh: number; forecastKwh: number; dayEnd: number };
  };
}

/** The car's need as the planner read it from its charger. */
export interface CarRequest {
  /** The charger, `charger_1`. */
  device: string;
  /** Energy to draw by the deadline, kWh at the charger (the car's need over its efficiency). */
  needKwh: number;
  /** Unix ms by which it is needed (the next occurrence of the charger's local `plan_deadline`). */
  deadline: number;
  /** Largest and smallest charging power, W (below the smallest the charger pauses). */
  maxW: number;
  minW: number;
  /** Whether the home battery may discharge into the car (the charger's `allow_battery_to_car`). */
  allowBattery: boolean;
  /** What the charger reports it charges at now, W (the controller's guard; not planned with). */
  livePowerW?: number;
}

/** The car's part of a plan. */
export interface CarPlan {
  device: string;
  /** Per slot (as the actions), the charging power, W. */
  powerW: number[];
  /** The need, kWh at the charger, and what of it the plan cannot charge by the deadline. */
  needKwh: number;
  shortKwh: number;
  deadline: number;
}

/**
 * What the plan assumes beyond what it knows. `value`: a kWh left at the end is worth its use
 * against the load (`use`: the mean import price of the horizon's last 12 h less losses and
 * wear, the first version's rule), or at most the cheapest way to put it back within the
 * horizon (`replacement`: the lowest import price, or the export price forgone in a slot
 * with PV surplus), so no purchase is ever profitable by the end value alone. `extend`:
 * when the known prices end before the horizon, the last known day's prices are carried
 * over to the horizon's end (the plan's actions still stop with the known prices). `holdStart`:
 * when the prices (carried over or not) still end before the horizon, the plan ends no lower
 * than it starts (EMHASS's `soc_final` set to the start).
 */
export interface TerminalPolicy {
  value: 'use' | 'replacement';
  extend: boolean;
  holdStart: boolean;
}

/** Chosen by the benchmark's hard cases (plugins/planner/README.md, "The end of the horizon"). */
export const DEFAULT_TERMINAL: TerminalPolicy = { value: 'replacement', extend: true, holdStart: true };

const DAY_MS = 24 * 3_600_000;

export interface Plan {
  createdAt: number;
  socAtStart: number;
  actions: SlotAction[];
  solution: LpSolution;
  /** The plan's cost over the horizon (energy bought less sold plus wear), currency. */
  cost: number;
  /** Cost of plain self-consumption over the same horizon and forecasts, currency. */
  baselineCost: number;
  /** Per slot: what self-consumption would cost less what the plan costs, currency. */
  slotSavings: number[];
  /** Per slot: the state of charge at its end under self-consumption, %. */
  baselineSoc: number[];
  /** What a kWh left in the battery is worth (the plan's terminal value), currency. */
  energyValue: number;
  capacityKwh: number;
  solveMs: number;
  horizonEnd: number;
  /** The car's charging, when a car was planned. */
  car?: CarPlan;
}

/**
 * Quarter-hour slots from now to the end of the known prices (at most the horizon). Prices
 * finer than a quarter hour (Amber's 5-minute prices) are averaged over it, weighted by time.
 */
export function buildSlots(req: PlanRequest): PlanSlot[] {
  const horizonEnd = req.now + (req.horizonMs ?? MAX_HORIZON_MS);
  const sorted = [...req.prices].sort((a, b) => a.start - b.start);
  const slots: PlanSlot[] = [];
  let start = req.now;
  let i = 0;
  while (start < horizonEnd) {
    const quarter = Math.floor(start / QUARTER_MS) * QUARTER_MS;
    const end = Math.min(quarter + QUARTER_MS, horizonEnd);
    while (i < sorted.length && sorted[i]!.end <= start) i++;
    if (i >= sorted.length || sorted[i]!.start > start) break;
    // The prices covering [start, end) without a gap, weighted by the time each covers.
    let covered = start;
    let imp = 0;
    let exp = 0;
    for (let j = i; j < sorted.length && covered < end; j++) {
      const p = sorted[j]!;
      if (p.end <= covered) continue;
      if (p.start > covered) break;
      const to = Math.min(p.end, end);
      imp += p.import * (to - covered);
      exp += (p.export ?? req.exportPrice) * (to - covered);
      covered = to;
    }
    const span = covered - start;
    slots.push({
      start,
      end: covered,
      importPrice: imp / span,
      exportPrice: exp / span,
      pvKw: pvAt(req.pvW, quarter) / 1000,
      loadKw: (req.loadW.get(quarter) ?? req.defaultLoadW) / 1000,
    });
    if (covered < end) break;
    start = end;
  }
  return slots.filter((s) => s.end - s.start >= 1000);
}

/**
 * The PV forecast of a quarter hour, W. A quarter the forecast does not cover (a day the
 * provider left out, or beyond its end) takes the same quarter of the nearest day it covers
 * (the day before, the day after, then two days off), else 0: a sunny day planned as a dark
 * one would buy at night what the sun brings and empty the battery at noon into export.
 */
export function pvAt(pvW: ReadonlyMap<number, number>, quarter: number): number {
  return pvGuess(pvW, quarter) ?? 0;
}

/** {@link pvAt}'s forecast or nearest day's, undefined where no day within two has the quarter. */
export function pvGuess(pvW: ReadonlyMap<number, number>, quarter: number): number | undefined {
  return (
    pvW.get(quarter) ??
    pvW.get(quarter - DAY_MS) ??
    pvW.get(quarter + DAY_MS) ??
    pvW.get(quarter - 2 * DAY_MS) ??
    pvW.get(quarter + 2 * DAY_MS)
  );
}

/**
 * How long the last quarter's PV forecast error is carried into the plan, fading into today's
 * (the PV made today over its forecast). The load's is carried into the current quarter only
 * (its quarter-hour noise and appliance runs do not last). Measured on the bench's noisy March
 * and April (`--days 42 --start-day 60`): no nowcast 56.3 % of the optimum's saving, PV and
 * load over 3 h 58.2 %, PV over 3 h and load for the quarter 64.4 %, PV over 6 h 66.1 % (the
 * bench's PV error is one factor per day, which favours carrying it all day); the last quarter
 * over 3 h fading into today's ratio 67.7 % (62.7 % before, with the carried day smoothed).
 */
export const NOWCAST_PV_MS = 3 * 3_600_000;
/** Below this forecast PV (W) of the last quarter its ratio to the measured says nothing (dawn, dusk). */
const NOWCAST_MIN_PV_W = 200;

/** Below this forecast PV energy (kWh) of today so far, today's ratio says nothing yet (the first hour of sun). */
const NOWCAST_MIN_DAY_KWH = 0.5;

/**
 * The slots with the forecast's error so far carried on. The PV forecast of the rest of today
 * is scaled by what the site made today over what was forecast for the same quarter hours;
 * for the next {@link NOWCAST_PV_MS} the last quarter's own ratio takes over, fading into
 * today's. Both ratios are bounded 0.3-1.5, as the calibration. The current quarter's load is
 * moved by what the last one took more or less. A cloudy day forecast as sunny is seen in its
 * first hour, not at the end of the day. Nothing changes without a measurement or a forecast.
 */
export function nowcast(slots: PlanSlot[], req: PlanRequest): PlanSlot[] {
  const m = req.measured;
  if (!m || slots.length === 0) return slots;
  const current = Math.floor(req.now / QUARTER_MS) * QUARTER_MS;
  const last = current - QUARTER_MS;
  const bounded = (r: number) => Math.min(1.5, Math.max(0.3, r));
  const today = m.pvToday;
  const dayRatio =
    today !== undefined && today.forecastKwh >= NOWCAST_MIN_DAY_KWH ? bounded(today.madeKwh / today.forecastKwh) : 1;
  const pvForecast = pvGuess(req.pvW, last);
  const ratio =
    m.pvW !== undefined && pvForecast !== undefined && pvForecast >= NOWCAST_MIN_PV_W
      ? bounded(m.pvW / pvForecast)
      : undefined;
  const loadForecast = req.loadW.get(last);
  const loadKw = m.loadW !== undefined && loadForecast !== undefined ? (m.loadW - loadForecast) / 1000 : 0;
  if ((ratio ?? 1) === 1 && dayRatio === 1 && loadKw === 0) return slots;
  return slots.map((s, t) => {
    const base = today !== undefined && s.start < today.dayEnd ? dayRatio : 1;
    const fade = Math.max(0, 1 - (Math.floor(s.start / QUARTER_MS) * QUARTER_MS - current) / NOWCAST_PV_MS);
    const factor = base + ((ratio ?? base) - base) * fade;
    if (factor === 1 && t > 0) return s;
    return {
      ...s,
      pvKw: s.pvKw * factor,
      loadKw: t === 0 ? Math.max(0, s.loadKw + loadKw) : s.loadKw,
    };
  });
}

/** Known prices shorter than this before their end are not a day to carry over. */
const MIN_CARRY_MS = 12 * 3_600_000;

/**
 * The known slots carried on to the horizon's end with the last known day's prices (each
 * quarter hour priced as the same quarter hour one or two days before), PV and load from
 * the forecasts. When the day before the known prices' end is not known from its start
 * (at least {@link MIN_CARRY_MS} of it is), its missing quarters take the first known one's
 * prices. Nothing is added when less is known. The carried prices are smoothed
 * ({@link smoothCarried}).
 */
export function extendSlots(req: PlanRequest, known: readonly PlanSlot[]): PlanSlot[] {
  const horizonEnd = req.now + (req.horizonMs ?? MAX_HORIZON_MS);
  if (known.length === 0) return [...known];
  const lastEnd = known[known.length - 1]!.end;
  if (lastEnd >= horizonEnd || lastEnd % QUARTER_MS !== 0) return [...known];
  const byQuarter = new Map<number, { import: number; export: number }>();
  for (const p of req.prices)
    for (let q = Math.ceil(p.start / QUARTER_MS) * QUARTER_MS; q + QUARTER_MS <= p.end; q += QUARTER_MS)
      byQuarter.set(q, { import: p.import, export: p.export ?? req.exportPrice });
  for (const s of known)
    if (s.start % QUARTER_MS === 0 && s.end - s.start === QUARTER_MS)
      byQuarter.set(s.start, { import: s.importPrice, export: s.exportPrice });
  // A day short of its first hours (the service just started, the book not a day old):
  // those hours take the first known quarter's prices.
  const first = Math.min(...byQuarter.keys());
  if (!byQuarter.has(lastEnd - DAY_MS) && lastEnd - first < MIN_CARRY_MS) return [...known];
  const out = [...known];
  for (let q = lastEnd; q < horizonEnd; q += QUARTER_MS) {
    const price =
      byQuarter.get(q - DAY_MS) ??
      byQuarter.get(q - 2 * DAY_MS) ??
      (q - DAY_MS < first ? byQuarter.get(first) : undefined);
    if (!price) break;
    byQuarter.set(q, price);
    out.push({
      start: q,
      end: Math.min(q + QUARTER_MS, horizonEnd),
      importPrice: price.import,
      exportPrice: price.export,
      pvKw: pvAt(req.pvW, q) / 1000,
      loadKw: (req.loadW.get(q) ?? req.defaultLoadW) / 1000,
    });
  }
  return smoothCarried(out, known.length);
}

/** The carried-over prices are averaged over this many quarter hours either side. */
const CARRY_SMOOTH_QUARTERS = 2;

/**
 * The carried-over slots (from `from`) priced at the mean of the carried prices within
 * {@link CARRY_SMOOTH_QUARTERS} either side: a quarter hour's noise in yesterday's prices
 * says nothing of tomorrow's, and the cheapest carried quarter (the end value's replacement)
 * would otherwise be its noise. Bench, prices ending at midnight: unsmoothed 83.2 / 83.2 %,
 * 2 either side 90.9 / 87.0 %, 4: 89.4 / 83.3 %, 8: 89.4 / 77.6 % (perfect / noisy); it
 * costs the noisy March and April (`--days 42 --start-day 60`) 64.1 -> 62.7 %.
 */
function smoothCarried(slots: PlanSlot[], from: number): PlanSlot[] {
  const imp = slots.map((s) => s.importPrice);
  const exp = slots.map((s) => s.exportPrice);
  for (let t = from; t < slots.length; t++) {
    let a = 0;
    let b = 0;
    let n = 0;
    for (
      let u = Math.max(from, t - CARRY_SMOOTH_QUARTERS);
      u <= Math.min(slots.length - 1, t + CARRY_SMOOTH_QUARTERS);
      u++
    ) {
      a += imp[u]!;
      b += exp[u]!;
      n++;
    }
    slots[t] = { ...slots[t]!, importPrice: a / n, exportPrice: b / n };
  }
  return slots;
}

/**
 * The value of a kWh left at the horizon's end: what it would displace at the mean import
 * price of the horizon's last 12 hours, less the losses and wear of using it; with
 * `replacement`, no more than the cheapest way to put it back within the horizon (the lowest
 * import price, or in a slot with PV surplus the export price forgone), so buying a kWh
 * (of which only the charging efficiency arrives) never pays by this value alone.
 */
export function terminalValue(
  slots: readonly PlanSlot[],
  params: PlanParams,
  value: TerminalPolicy['value'] = 'use',
): number {
  if (slots.length === 0) return 0;
  const lastEnd = slots[slots.length - 1]!.end;
  const tail = slots.filter((s) => s.start >= lastEnd - 12 * 3_600_000);
  const mean = tail.reduce((a, s) => a + s.importPrice, 0) / tail.length;
  const use = mean * Math.sqrt(params.roundTripEfficiency) - params.cycleCost;
  if (value === 'use') return Math.max(0, use);
  let replace = Infinity;
  for (const s of slots) {
    replace = Math.min(replace, s.importPrice);
    if (s.pvKw > s.loadKw) replace = Math.min(replace, Math.max(0, s.exportPrice));
  }
  return Math.max(0, Math.min(use, replace));
}

/** Solves the request; throws the solver's error when there is no plan. */
export function makePlan(highs: Highs, req: PlanRequest): Plan {
  const policy = req.terminal ?? DEFAULT_TERMINAL;
  const known = nowcast(buildSlots(req), req);
  const slots = policy.extend ? extendSlots(req, known) : known;
  // Prices that end before the horizon (and could not be carried over) are not the end of
  // the world: the battery ends no lower than it starts.
  const endsEarly =
    slots.length > 0 && slots[slots.length - 1]!.end < req.now + (req.horizonMs ?? MAX_HORIZON_MS) - QUARTER_MS;
  const car = carLoad(req, known);
  const full: PlanInput = {
    params: req.params,
    slots,
    socPercent: req.socPercent,
    terminalValue: terminalValue(slots, req.params, policy.value),
    keepPv: true,
    ...(policy.holdStart && endsEarly ? { endSocMin: req.socPercent } : {}),
    ...(car ? { car } : {}),
    ...(req.previousGridW ? { importHint: importHint(slots, req.previousGridW) } : {}),
  };
  const started = performance.now();
  let whole: LpSolution;
  try {
    whole = solvePlan(highs, full);
  } catch (e) {
    // The start's state of charge out of reach (a load above the grid's limit): plan without it.
    if (!(e instanceof PlanInfeasibleError) || full.endSocMin === undefined) throw e;
    delete full.endSocMin;
    whole = solvePlan(highs, full);
  }
  const solveMs = performance.now() - started;
  // Only the known prices' part is the plan; the carried-over day only values its end.
  const input = { ...full, slots: known };
  const solution = truncate(whole, known.length);
  const actions = toActions(input, solution, req.describe);
  const planned = energyCost(input.slots, solution, req.params.cycleCost);
  // The baseline charges the car as the plan does: the battery's saving is compared like with like.
  const baseline = selfConsumptionCosts(input.slots, req.params, req.socPercent, car ? solution.carKw : undefined, {
    allowBattery: car?.allowBattery ?? true,
  });
  const baselineSoc = baseline.map((b) => b.socPercent);
  return {
    createdAt: req.now,
    socAtStart: req.socPercent,
    actions,
    solution,
    cost: sum(planned),
    baselineCost: sum(baseline.map((b) => b.cost)),
    slotSavings: baseline.map((b, t) => b.cost - planned[t]!),
    baselineSoc,
    energyValue: input.terminalValue,
    capacityKwh: req.params.capacityKwh,
    solveMs,
    horizonEnd: known.length > 0 ? known[known.length - 1]!.end : req.now,
    ...(req.car
      ? {
          car: {
            device: req.car.device,
            powerW: solution.carKw.map((kw) => Math.round(kw * 1000)),
            needKwh: req.car.needKwh,
            shortKwh: car ? solution.carShortKwh : 0,
            deadline: req.car.deadline,
          },
        }
      : {}),
  };
}

/** A plan's net grid power per quarter hour start, W: the next plan's {@link PlanRequest.previousGridW}. */
export function plannedGrid(plan: Pick<Plan, 'actions'>): Map<number, number> {
  return new Map(plan.actions.map((a) => [Math.floor(a.start / QUARTER_MS) * QUARTER_MS, a.gridW]));
}

function importHint(slots: readonly PlanSlot[], gridW: ReadonlyMap<number, number>): Array<boolean | undefined> {
  return slots.map((s) => {
    const w = gridW.get(Math.floor(s.start / QUARTER_MS) * QUARTER_MS);
    return w === undefined ? undefined : w >= 0;
  });
}

/**
 * The car as the LP takes it: its window is the known prices' slots that end by the deadline
 * (a deadline beyond the known prices: the energy is planned in the known part). None when
 * nothing is needed or nothing can be charged.
 */
export function carLoad(req: PlanRequest, known: readonly PlanSlot[]): CarLoad | undefined {
  const car = req.car;
  if (!car || car.needKwh <= 0 || car.maxW <= 0) return undefined;
  let count = 0;
  while (count < known.length && known[count]!.end <= car.deadline) count++;
  if (count === 0) return undefined;
  return { maxKw: car.maxW / 1000, needKwh: car.needKwh, slots: count, allowBattery: car.allowBattery };
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function truncate(sol: LpSolution, count: number): LpSolution {
  if (sol.importKw.length === count) return sol;
  return {
    importKw: sol.importKw.slice(0, count),
    exportKw: sol.exportKw.slice(0, count),
    chargeKw: sol.chargeKw.slice(0, count),
    dischargeKw: sol.dischargeKw.slice(0, count),
    curtailKw: sol.curtailKw.slice(0, count),
    socPercent: sol.socPercent.slice(0, count),
    carKw: sol.carKw.slice(0, count),
    carShortKwh: sol.carShortKwh,
    objective: sol.objective,
  };
}

/** Per slot, what the plan pays: its net grid flow as the meter bills it, plus wear. */
export function energyCost(slots: readonly PlanSlot[], sol: LpSolution, cycleCost: number): number[] {
  return slots.map((s, t) => {
    const h = (s.end - s.start) / 3_600_000;
    return h * (netGridCost(s, sol.importKw[t]! - sol.exportKw[t]!) + cycleCost * sol.dischargeKw[t]!);
  });
}

/**
 * The saving of the plan's first `count` slots against self-consumption, counting the
 * difference in the energy left in the battery at their end at the plan's value of energy.
 */
export function savingOver(plan: Plan, count: number): number {
  if (count <= 0) return 0;
  const k = Math.min(count, plan.actions.length) - 1;
  const kept = ((plan.actions[k]!.socPercent - plan.baselineSoc[k]!) / 100) * plan.capacityKwh * plan.energyValue;
  return sum(plan.slotSavings.slice(0, k + 1)) + kept;
}

/**
 * What the same forecasts would cost per slot with the battery left in self-consumption, and
 * its SOC. A car's power per slot (kW) counts as load; the battery covers it only where
 * `allowBattery` (else, as the plan, it covers the house alone).
 */
export function selfConsumptionCosts(
  slots: readonly PlanSlot[],
  params: PlanParams,
  socPercent: number,
  carKw?: readonly number[],
  options: { allowBattery: boolean } = { allowBattery: true },
): Array<{ cost: number; socPercent: number }> {
  const eta = Math.sqrt(params.roundTripEfficiency);
  const cap = params.capacityKwh;
  const floor = (params.reserveSoc / 100) * cap;
  let soc = (socPercent / 100) * cap;
  const costs: Array<{ cost: number; socPercent: number }> = [];
  for (const [t, s] of slots.entries()) {
    const h = (s.end - s.start) / 3_600_000;
    const car = carKw?.[t] ?? 0;
    const house = s.loadKw - s.pvKw;
    const net = house + car;
    // What the battery may cover: the car too, or the house alone.
    const covered = options.allowBattery ? net : Math.max(0, house);
    const battery =
      net > 0
        ? Math.min(covered, params.maxDischargeKw, Math.max(0, ((soc - floor) * eta) / h))
        : -Math.min(-net, params.maxChargeKw, Math.max(0, (cap - soc) / (eta * h)));
    soc = battery >= 0 ? soc - (battery * h) / eta : soc - battery * h * eta;
    const grid = house + car - battery;
    const exportMax = params.exportAllowed ? params.gridExportMaxKw : 0;
    let cost = grid >= 0 ? h * s.importPrice * grid : -h * s.exportPrice * Math.min(-grid, exportMax);
    if (battery > 0) cost += h * params.cycleCost * battery;
    costs.push({ cost, socPercent: (soc / cap) * 100 });
  }
  return costs;
}
