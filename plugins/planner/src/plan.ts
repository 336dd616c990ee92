/**
 * One planning run, pure: the price book, the PV forecast, the load forecast and the state
 * of charge in, the schedule of actions out. Slots are absolute UTC quarter hours (the first
 * starts now and ends at the next quarter hour); the site's zone only words the reasons.
 */
import { type LpSolution, type PlanParams, type PlanSlot, solvePlan } from './lp.js';
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
}

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
}

/** Quarter-hour slots from now to the end of the known prices (at most the horizon). */
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
    const price = sorted[i];
    if (!price || price.start > start) break;
    slots.push({
      start,
      end,
      importPrice: price.import,
      exportPrice: price.export ?? req.exportPrice,
      pvKw: (req.pvW.get(quarter) ?? 0) / 1000,
      loadKw: (req.loadW.get(quarter) ?? req.defaultLoadW) / 1000,
    });
    start = end;
  }
  return slots.filter((s) => s.end - s.start >= 1000);
}

/**
 * The value of a kWh left at the horizon's end: what it would displace at the mean import
 * price of the horizon's last 12 hours, less the losses and wear of using it.
 */
export function terminalValue(slots: readonly PlanSlot[], params: PlanParams): number {
  if (slots.length === 0) return 0;
  const lastEnd = slots[slots.length - 1]!.end;
  const tail = slots.filter((s) => s.start >= lastEnd - 12 * 3_600_000);
  const mean = tail.reduce((a, s) => a + s.importPrice, 0) / tail.length;
  return Math.max(0, mean * Math.sqrt(params.roundTripEfficiency) - params.cycleCost);
}

/** Solves the request; throws the solver's error when there is no plan. */
export function makePlan(highs: Highs, req: PlanRequest): Plan {
  const slots = buildSlots(req);
  const input = {
    params: req.params,
    slots,
    socPercent: req.socPercent,
    terminalValue: terminalValue(slots, req.params),
  };
  const started = performance.now();
  const solution = solvePlan(highs, input);
  const solveMs = performance.now() - started;
  const actions = toActions(input, solution, req.describe);
  const planned = energyCost(input.slots, solution, req.params.cycleCost);
  const baseline = selfConsumptionCosts(input.slots, req.params, req.socPercent);
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
    horizonEnd: slots.length > 0 ? slots[slots.length - 1]!.end : req.now,
  };
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function energyCost(slots: readonly PlanSlot[], sol: LpSolution, cycleCost: number): number[] {
  return slots.map((s, t) => {
    const h = (s.end - s.start) / 3_600_000;
    return h * (s.importPrice * sol.importKw[t]! - s.exportPrice * sol.exportKw[t]! + cycleCost * sol.dischargeKw[t]!);
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

/** What the same forecasts would cost per slot with the battery left in self-consumption, and its SOC. */
export function selfConsumptionCosts(
  slots: readonly PlanSlot[],
  params: PlanParams,
  socPercent: number,
): Array<{ cost: number; socPercent: number }> {
  const eta = Math.sqrt(params.roundTripEfficiency);
  const cap = params.capacityKwh;
  const floor = (params.reserveSoc / 100) * cap;
  let soc = (socPercent / 100) * cap;
  const costs: Array<{ cost: number; socPercent: number }> = [];
  for (const s of slots) {
    const h = (s.end - s.start) / 3_600_000;
    const net = s.loadKw - s.pvKw;
    const battery =
      net > 0
        ? Math.min(net, params.maxDischargeKw, Math.max(0, ((soc - floor) * eta) / h))
        : -Math.min(-net, params.maxChargeKw, Math.max(0, (cap - soc) / (eta * h)));
    soc = battery >= 0 ? soc - (battery * h) / eta : soc - battery * h * eta;
    const grid = net - battery;
    const exportMax = params.exportAllowed ? params.gridExportMaxKw : 0;
    let cost = grid >= 0 ? h * s.importPrice * grid : -h * s.exportPrice * Math.min(-grid, exportMax);
    if (battery > 0) cost += h * params.cycleCost * battery;
    costs.push({ cost, socPercent: (soc / cap) * 100 });
  }
  return costs;
}
