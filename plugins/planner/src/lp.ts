/**
 * The planner's linear program: the cost-minimising battery schedule over a horizon of
 * slots, solved by HiGHS (compiled to WebAssembly, npm `highs`).
 *
 * Units: power in kW, energy in kWh, prices in currency per kWh, slot lengths in hours.
 * Variables per slot t: grid import, grid export, battery charge, battery discharge, PV
 * curtailment (all >= 0, power) and the state of charge at the slot's end (energy).
 *
 * *   balance:  import - export - charge + discharge - curtail = load - pv
 *   storage:  soc[t] = soc[t-1] + etaC * h * charge - h / etaD * discharge
 *   minimise: sum h * (importPrice * import - exportPrice * export + cycleCost * discharge)
 *             - terminalValue * soc[T-1] - sum h * KEEP_PV * keep
 *
 * where keep[t] <= charge[t] and keep[t] <= max(0, pv[t] - load[t]) in each slot with a PV
 * surplus: the PV kept in the battery instead of exported ({@link KEEP_PV}).
 *
 * Where import is not dearer than export, or a price is negative, the LP would import and
 * export at once (a phantom arbitrage no meter pays): there a binary per slot makes them
 * exclusive (import <= Imax * y, export <= Emax * (1 - y)) and HiGHS solves a MIP. Elsewhere
 * doing both at once only costs, so the plain LP never does it and stays an LP.
 *
 * An electric car (optional) is a flexible load: a power car[t] in 0..max in each slot before
 * its deadline, taken in the balance like the house's load, and one row
 *   sum h * car[t] + short >= need
 * where the shortfall costs {@link CAR_SHORT_PENALTY} per kWh (the need out of reach: charge
 * what can be charged, and say so). Unless the owner lets the home battery charge the car,
 * in each of those slots the battery covers the house and the export, never the car:
 *   discharge[t] - export[t] <= max(0, load[t] - pv[t])
 */
import type { Highs } from 'highs';
import { improveByFlips, numberBinaries } from './exclusive.js';
import type { LpSolution, PlanInput, PlanParams, PlanSlot } from './plan-input.js';
import { signsByDp } from './sign-dp.js';

export { needsExclusivity } from './exclusive.js';

export type { CarLoad, LpSolution, PlanInput, PlanParams, PlanSlot } from './plan-input.js';

export class PlanInfeasibleError extends Error {}

/**
 * Among quarter hours of equal price the earliest charges (a tie broken at 1e-6 per kWh and
 * slot): the energy is in the bank sooner, and a re-plan does not move it back and forth.
 */
const CHARGE_TIE = 1e-6;

/**
 * Among quarter hours of equal price the latest discharges (a tie broken at 1e-6 per kWh and
 * slot, less each slot on): energy the plan has no use for is exported at the last quarter
 * hour its price allows, not now. Under a flat feed-in price a plan is otherwise free to empty
 * the battery at 16:00 for an evening the forecast made too small; kept, the energy is there
 * when the evening takes more, and the next plan (made every quarter hour) sees it first.
 * Negative import under a fixed feed-in, noisy forecasts: 88.1 -> 93.9 % of the optimum's
 * saving (plugins/planner/README.md).
 */
const DISCHARGE_TIE = 1e-6;

/**
 * Per kWh of the forecast's PV surplus charged into the battery instead of exported, counted
 * in the plan's favour: 0.003 a kWh, never more than a round trip's wear (so cycling the
 * battery for it never pays). A plan that knows the evening and the night stores just what
 * they need and exports the rest of the PV, when its only reason to is the charge's loss
 * (about 0.002 a kWh at a 0.04 feed-in). Both are forecasts: a kWh exported at a low feed-in
 * is gone, where kept it would have covered a bigger evening at the import price. Where a
 * dearer export pays (spot prices at midday) the plan still exports. A two-rate tariff
 * (0.2146 / 0.1696, feed-in 0.04), a summer week, noisy forecasts: 0.08-0.21 EUR lost
 * against the optimum at the same end state before, none after; 0.01 a kWh cost the other
 * cases up to 1.7 points with perfect forecasts (plugins/planner/README.md).
 */
const KEEP_PV = 0.003;

/**
 * Cost per kWh of curtailed PV in the objective: far above any price. Curtailing is only a
 * way out (export not allowed, battery full): the battery modes cannot order it, so the plan
 * must not count on it to dodge a negative export price.
 */
const CURTAIL_PENALTY = 10;

/** Cost per kWh of the car's need not met by its deadline: far above any price and curtailment. */
const CAR_SHORT_PENALTY = 100;

const VARS = 6;
const IMP = 0;
const EXP = 1;
const CH = 2;
const DIS = 3;
const CURT = 4;
const SOC = 5;

let highsPromise: Promise<Highs> | undefined;

/**
 * Loads the solver once per process (about 50 ms; the module is shared by every plan). The
 * package itself is imported here, not at the top: a process that only reads plans (the
 * service, see solver.ts) never loads it.
 */
export function loadSolver(): Promise<Highs> {
  // The package's one declaration file is typed as CommonJS, while Node loads its ES module
  // build here, whose default export is the loader itself.
  highsPromise ??= import('highs').then((highs) => (highs.default as unknown as () => Promise<Highs>)());
  return highsPromise;
}

/**
 * HiGHS's branch and cut as an improvement on the rounded plan: no presolve, strong branching
 * or primal heuristics (the rounded plan is the start), within {@link MIP_MS} of wall clock.
 */
const MIP_OPTIONS = {
  output_flag: false,
  solver: 'choose',
  presolve: 'off',
  mip_rel_gap: 1e-4,
  mip_heuristic_effort: 0,
  mip_detect_symmetry: false,
  mip_allow_restart: false,
  mip_pscost_minreliable: 0,
  // The interrupt is not asked during the root's processing: nodes bound the rest.
  mip_max_nodes: 200,
} as const;
/** The search's budget, ms (checked by HiGHS's interrupt callback; the LP solves come on top). */
const MIP_MS = 80;

const LP_OPTIONS = { output_flag: false, solver: 'simplex', presolve: 'off' } as const;

/**
 * Solves the plan; throws {@link PlanInfeasibleError} when HiGHS finds no optimum.
 *
 * With binaries the relaxation's plan is rounded: each slot that needs one imports or exports
 * as its net flow (or its binary) in the relaxation says, as the last plan had it
 * ({@link PlanInput.importHint}), or as the cheapest path of a dynamic program over the whole
 * horizon has it (sign-dp.ts); the LP is solved again with each choice fixed, and the cheapest
 * is the plan. With a car in the plan (the dynamic program's car is a guess) and for a reference
 * ({@link PlanInput.searchMs}) each binary is then flipped once (exclusive.ts) and HiGHS's branch
 * and cut starts from the result within a budget, its plan replacing the rounded one when it
 * is cheaper. Branch and cut alone took 0.2-4 s CPU per 48 h plan with 50 such slots (a
 * negative import price under a fixed feed-in; WebAssembly, one thread).
 */
export function solvePlan(highs: Highs, input: PlanInput): LpSolution {
  const T = input.slots.length;
  if (T === 0) throw new PlanInfeasibleError('no slots to plan');
  const { columns, rows, matrix, binaries, car, bounds } = buildModel(input);
  const model = highs.createModel({
    numCols: matrix.numCols,
    numRows: matrix.numRows,
    ...columns,
    ...rows,
    matrix: { format: 'csc', ...matrix },
  });
  const { optimal, unknown } = highs.constants.modelStatus;
  const solveLp = (): Float64Array | null => {
    model.options.set(LP_OPTIONS);
    model.run();
    // The dual simplex without presolve can end a degenerate model without an answer (status
    // unknown: a plan of the bench's two-rate winter week, test/degenerate-plan.json); with
    // presolve HiGHS solves it.
    if (model.getModelStatus() === unknown) {
      model.clearSolver();
      model.options.set({ ...LP_OPTIONS, presolve: 'on' });
      model.run();
    }
    return model.getModelStatus() === optimal ? model.getSolution().colValue : null;
  };
  const infeasible = () =>
    new PlanInfeasibleError(`the solver found no optimal plan (model status ${model.getModelStatus()})`);
  let x: Float64Array;
  try {
    // Dual simplex without presolve: on this small, sparse model the fastest and the most
    // even in time (benchmark: p99 a few ms for 48 h, where presolve adds outliers).
    const lp = solveLp();
    if (!lp) throw infeasible();
    x = lp;
    if (binaries.length > 0) {
      const bound = (col: number, y: number) => model.changeColBounds(col, y, y);
      const solve = () => {
        const fixed = solveLp();
        return fixed ? { x: fixed, objective: model.getObjectiveValue() } : null;
      };
      const fix = (rule: (col: number, slot: number) => number) => {
        for (const { col, slot } of binaries) bound(col, rule(col, slot));
        return solve();
      };
      // The whole horizon's rounding, by dynamic programming (sign-dp.ts). It has no car: a car
      // in the plan is taken as the load the relaxation gave it.
      const relaxed = x;
      const slots = car
        ? input.slots.map((s, t) =>
            t < car.slots ? { ...s, loadKw: s.loadKw + Math.max(0, relaxed[car.col + t] ?? 0) } : s,
          )
        : input.slots;
      const dp = signsByDp({ ...input, slots }, { ...bounds, curtailCost: CURTAIL_PENALTY });
      let best = cheapestRounding(x, input.importHint, dp, fix);
      if (!best) throw infeasible();
      x = best.x;
      // With the dynamic program's rounding a plan ends here: the flips and 80 ms of branch
      // and cut after it changed no share of the optimum's saving and tripled the solve time
      // (see the planner's README). With a car (whose load the rounding guessed), without the
      // rounding, and for a reference (searchMs), they run.
      if (!dp || car || input.searchMs !== undefined) {
        best = improveByFlips(best, binaries, { fix, bound, solve }) ?? best;
        x = best.x;
        for (const { col } of binaries) {
          model.changeColBounds(col, 0, 1);
          model.changeColIntegrality(col, highs.constants.variableType.integer);
        }
        model.setSolution({ colValue: x });
        model.options.set(input.searchMs === undefined ? MIP_OPTIONS : { ...MIP_OPTIONS, mip_max_nodes: 10_000_000 });
        // HiGHS's own time_limit counts every earlier run of the model: the budget is kept here.
        const until = performance.now() + (input.searchMs ?? MIP_MS);
        model.run({
          [highs.constants.callbackType.mipInterrupt](event) {
            if (performance.now() > until) event.interrupt();
          },
        });
        // 2: a feasible solution (HiGHS's SolutionStatus), also when the budget ended the search.
        if (Number(model.info.get('primal_solution_status')) === 2 && model.getObjectiveValue() < best.objective - 1e-9)
          x = model.getSolution().colValue;
      }
    }
  } finally {
    model.dispose();
  }
  return readSolution(x, input, T, input.params.capacityKwh, car);
}

/**
 * The cheapest of the binaries' roundings, each solved as an LP with them fixed: as the
 * relaxation's net flow or its binary says, as the last plan had it, as the dynamic program's
 * path has it. A rounding may leave a slot that only exports without the energy for its load:
 * then another, and import everywhere (always feasible: PV can be curtailed) as the last.
 */
function cheapestRounding(
  relaxed: Float64Array,
  hint: PlanInput['importHint'],
  dp: Uint8Array | null,
  fix: (rule: (col: number, slot: number) => number) => { x: Float64Array; objective: number } | null,
): { x: Float64Array; objective: number } | null {
  const byNet = (_: number, slot: number) =>
    (relaxed[VARS * slot + IMP] ?? 0) - (relaxed[VARS * slot + EXP] ?? 0) >= 0 ? 1 : 0;
  const byY = (col: number) => ((relaxed[col] ?? 0) >= 0.5 ? 1 : 0);
  const byHint = (col: number, slot: number) => (hint?.[slot] === undefined ? byNet(col, slot) : hint[slot] ? 1 : 0);
  const byDp = (_: number, slot: number) => dp![slot]!;
  let best: { x: Float64Array; objective: number } | null = null;
  for (const rule of [byNet, byY, ...(hint ? [byHint] : []), ...(dp ? [byDp] : [])]) {
    const fixed = fix(rule);
    if (fixed && (!best || fixed.objective < best.objective)) best = fixed;
  }
  return best ?? fix(() => 1);
}

/**
 * The model in HiGHS's column form: per slot, the variables import, export, charge,
 * discharge, curtailment and state of charge, and two rows: the power balance and the
 * battery's energy from one slot to the next. After them, per slot that needs it, a binary
 * column and the two rows that keep import and export apart; after the car's, per slot with
 * a PV surplus (when the plan values kept PV), the kept PV's column and its row.
 */
function buildModel(input: PlanInput) {
  const { params, slots } = input;
  const T = slots.length;
  const etaC = Math.sqrt(params.roundTripEfficiency);
  const etaD = etaC;
  const bounds = { ...socBounds(input), exportMax: params.exportAllowed ? params.gridExportMaxKw : 0 };
  const { soc0, socMin, socMax, endMin, exportMax } = bounds;
  // Slot t's binary is column n + k and its rows 2T + 2k (import) and 2T + 2k + 1 (export).
  const binaryOf = new Int32Array(T).fill(-1);
  const B = exportMax > 0 && params.gridImportMaxKw > 0 ? numberBinaries(slots, binaryOf) : 0;
  const n = VARS * T;
  const carAt = carLayout(input, n + B, 2 * T + 2 * B);
  const keep = keepLayout(input, n + B + carAt.cols, 2 * T + 2 * B + carAt.rows);
  const numCols = keep.col + keep.count;
  const numRows = keep.row + keep.count;
  const m = allocate(numCols, numRows);
  const { colCost, colLower, colUpper, rowLower, rowUpper, starts, indices, values } = m;

  for (let t = 0; t < T; t++) {
    const s = slots[t]!;
    const h = (s.end - s.start) / 3_600_000;
    const base = VARS * t;
    const bal = t;
    const dyn = T + t;
    rowLower[bal] = rowUpper[bal] = s.loadKw - s.pvKw;
    rowLower[dyn] = rowUpper[dyn] = t === 0 ? soc0 : 0;

    const column = (j: number, cost: number, lo: number, hi: number, entries: Array<[number, number]>) =>
      pushColumn(m, base + j, cost, lo, hi, entries);
    const k = binaryOf[t]!;
    const impEntries: Array<[number, number]> = [[bal, 1]];
    const expEntries: Array<[number, number]> = [[bal, -1]];
    const disEntries: Array<[number, number]> = [
      [bal, 1],
      [dyn, h / etaD],
    ];
    if (k >= 0) {
      impEntries.push([2 * T + 2 * k, 1]);
      expEntries.push([2 * T + 2 * k + 1, 1]);
    }
    batteryOffCar(carAt, t, s, { rowLower, rowUpper, disEntries, expEntries });
    column(IMP, h * s.importPrice, 0, params.gridImportMaxKw, impEntries);
    column(EXP, -h * s.exportPrice, 0, exportMax, expEntries);
    const kept: Array<[number, number]> = keep.of[t]! >= 0 ? [[keep.row + keep.of[t]!, -1]] : [];
    column(CH, h * CHARGE_TIE * t, 0, params.maxChargeKw, [[bal, -1], [dyn, -etaC * h], ...kept]);
    column(DIS, h * (params.cycleCost + DISCHARGE_TIE * (T - t)), 0, params.maxDischargeKw, disEntries);
    column(CURT, CURTAIL_PENALTY * h, 0, Math.max(0, s.pvKw), [[bal, -1]]);
    const socEntries: Array<[number, number]> = [[dyn, 1]];
    if (t + 1 < T) socEntries.push([dyn + 1, -1]);
    column(SOC, t === T - 1 ? -input.terminalValue : 0, t === T - 1 ? endMin : socMin, socMax, socEntries);
  }
  const binaries = exclusivityColumns({
    input,
    binaryOf,
    exportMax,
    n,
    colUpper,
    rowLower,
    rowUpper,
    starts,
    indices,
    values,
  });
  carColumns(m, slots, carAt, rowLower, rowUpper);
  keepColumns(m, input, keep);
  starts[numCols] = indices.length;
  return {
    columns: { colCost, colLower, colUpper },
    rows: { rowLower, rowUpper },
    matrix: {
      numRows,
      numCols,
      starts,
      indices: Int32Array.from(indices),
      values: Float64Array.from(values),
    },
    binaries,
    car: carAt.car ? { col: carAt.col, slots: carAt.slots } : null,
    /** The energy (kWh) and export (kW) bounds the model holds, for the dynamic program's rounding. */
    bounds,
  };
}

/** The model's arrays, empty: columns, rows and the matrix's entries (CSC). */
function allocate(numCols: number, numRows: number) {
  return {
    colCost: new Float64Array(numCols),
    colLower: new Float64Array(numCols),
    colUpper: new Float64Array(numCols),
    rowLower: new Float64Array(numRows),
    rowUpper: new Float64Array(numRows),
    starts: new Int32Array(numCols + 1),
    indices: [] as number[],
    values: [] as number[],
  };
}

/** Where the kept PV is in the model: per slot with a PV surplus, a column from `col` and a row from `row`. */
function keepLayout(input: PlanInput, col: number, row: number) {
  const { params, slots } = input;
  const value = input.keepPv ? Math.min(KEEP_PV, params.roundTripEfficiency * params.cycleCost) : 0;
  const of = new Int32Array(slots.length).fill(-1);
  let count = 0;
  if (value > 0) for (let t = 0; t < slots.length; t++) if (slots[t]!.pvKw > slots[t]!.loadKw) of[t] = count++;
  return { of, count, col, row, value };
}

/** The kept PV's columns, valued per kWh: keep[t] - charge[t] <= 0, keep[t] <= the slot's PV surplus. */
function keepColumns(m: ReturnType<typeof allocate>, input: PlanInput, keep: ReturnType<typeof keepLayout>): void {
  input.slots.forEach((s, t) => {
    const k = keep.of[t]!;
    if (k < 0) return;
    const h = (s.end - s.start) / 3_600_000;
    m.rowLower[keep.row + k] = -Infinity;
    m.rowUpper[keep.row + k] = 0;
    const surplus = Math.min(input.params.maxChargeKw, s.pvKw - s.loadKw);
    pushColumn(m, keep.col + k, -h * keep.value, 0, surplus, [[keep.row + k, 1]]);
  });
}

type CarLayout = ReturnType<typeof carLayout>;

/** Slot t's row keeping the battery off the car, in its window: discharge - export <= max(0, load - pv). */
function batteryOffCar(
  at: CarLayout,
  t: number,
  s: PlanSlot,
  m: {
    rowLower: Float64Array;
    rowUpper: Float64Array;
    disEntries: Array<[number, number]>;
    expEntries: Array<[number, number]>;
  },
): void {
  if (t >= at.guardRows) return;
  const guard = at.needRow + 1 + t;
  m.rowLower[guard] = -Infinity;
  m.rowUpper[guard] = Math.max(0, s.loadKw - s.pvKw);
  m.disEntries.push([guard, 1]);
  m.expEntries.push([guard, -1]);
}

/**
 * Where the car is in the model: its columns follow the binaries (one power per slot of its
 * window, then the shortfall), its rows follow theirs (the need, then per window slot the
 * battery's, unless the battery may feed the car). No car: nothing.
 */
function carLayout(input: PlanInput, col: number, needRow: number) {
  const car = input.car && input.car.needKwh > 0 && input.car.maxKw > 0 ? input.car : undefined;
  const slots = car ? Math.max(0, Math.min(input.slots.length, car.slots)) : 0;
  const guardRows = car && !car.allowBattery ? slots : 0;
  return { car, slots, col, needRow, guardRows, cols: car ? slots + 1 : 0, rows: car ? 1 + guardRows : 0 };
}

/** The car's power columns (in the balance and the need) and its shortfall column. */
function carColumns(
  m: Parameters<typeof pushColumn>[0],
  slots: readonly PlanSlot[],
  at: CarLayout,
  rowLower: Float64Array,
  rowUpper: Float64Array,
): void {
  const car = at.car;
  if (!car) return;
  for (let t = 0; t < at.slots; t++) {
    const s = slots[t]!;
    const h = (s.end - s.start) / 3_600_000;
    // Among slots of equal price the earliest, as for the battery.
    pushColumn(m, at.col + t, h * CHARGE_TIE * t, 0, car.maxKw, [
      [t, -1],
      [at.needRow, h],
    ]);
  }
  pushColumn(m, at.col + at.slots, CAR_SHORT_PENALTY, 0, Infinity, [[at.needRow, 1]]);
  rowLower[at.needRow] = car.needKwh;
  rowUpper[at.needRow] = Infinity;
}

function readSolution(
  x: ArrayLike<number>,
  input: PlanInput,
  T: number,
  cap: number,
  car: { col: number; slots: number } | null,
): LpSolution {
  const out: LpSolution = {
    importKw: [],
    exportKw: [],
    chargeKw: [],
    dischargeKw: [],
    curtailKw: [],
    socPercent: [],
    carKw: [],
    carShortKwh: car ? Math.max(0, x[car.col + car.slots] ?? 0) : 0,
    objective: 0,
  };
  let objective = 0;
  for (let t = 0; t < T; t++) {
    const s = input.slots[t]!;
    const h = (s.end - s.start) / 3_600_000;
    const at = (j: number) => Math.max(0, x[VARS * t + j] ?? 0);
    out.importKw.push(at(IMP));
    out.exportKw.push(at(EXP));
    out.chargeKw.push(at(CH));
    out.dischargeKw.push(at(DIS));
    out.curtailKw.push(at(CURT));
    out.socPercent.push(clamp((at(SOC) / cap) * 100, 0, 100));
    out.carKw.push(car && t < car.slots ? Math.max(0, x[car.col + t] ?? 0) : 0);
    objective += h * (netGridCost(s, at(IMP) - at(EXP)) + input.params.cycleCost * at(DIS));
  }
  out.objective = objective - input.terminalValue * ((out.socPercent[T - 1]! / 100) * cap);
  return out;
}

function pushColumn(
  m: {
    colCost: Float64Array;
    colLower: Float64Array;
    colUpper: Float64Array;
    starts: Int32Array;
    indices: number[];
    values: number[];
  },
  col: number,
  cost: number,
  lo: number,
  hi: number,
  entries: Array<[number, number]>,
): void {
  m.colCost[col] = cost;
  m.colLower[col] = lo;
  m.colUpper[col] = hi;
  m.starts[col] = m.indices.length;
  for (const [row, value] of entries) {
    m.indices.push(row);
    m.values.push(value);
  }
}

/** The state of charge's bounds, kWh: at the start, in every slot, and at the horizon's end. */
function socBounds(input: PlanInput) {
  const { params } = input;
  const cap = params.capacityKwh;
  const soc0 = (clamp(input.socPercent, 0, 100) / 100) * cap;
  const socMax = Math.max((params.maxSoc / 100) * cap, soc0);
  // A battery already below the reserve is never forced up to it; it is kept where it is.
  const socMin = Math.min((params.reserveSoc / 100) * cap, soc0);
  const endMin =
    input.endSocMin === undefined ? socMin : clamp((input.endSocMin / 100) * cap, socMin, Math.min(socMax, cap));
  return { soc0, socMin, socMax, endMin };
}

/**
 * The binary columns after the slots' and their two rows each: import - Imax * y <= 0 and
 * export + Emax * y <= Emax, with the smallest bounds that hold in the slot (curtailment is
 * at most the PV): the tighter they are, the less a fractional binary gains in the relaxation.
 */
function exclusivityColumns(m: {
  input: PlanInput;
  binaryOf: Int32Array;
  exportMax: number;
  n: number;
  colUpper: Float64Array;
  rowLower: Float64Array;
  rowUpper: Float64Array;
  starts: Int32Array;
  indices: number[];
  values: number[];
}): Array<{ col: number; slot: number }> {
  const T = m.input.slots.length;
  const binaries: Array<{ col: number; slot: number }> = [];
  for (let t = 0; t < T; t++) {
    const k = m.binaryOf[t]!;
    if (k < 0) continue;
    const carMax = m.input.car && t < m.input.car.slots ? m.input.car.maxKw : 0;
    const { importMax, exportMax } = slotGridBounds(m.input.slots[t]!, m.input.params, m.exportMax, carMax);
    const impRow = 2 * T + 2 * k;
    m.rowLower[impRow] = m.rowLower[impRow + 1] = -Infinity;
    m.rowUpper[impRow] = 0;
    m.rowUpper[impRow + 1] = exportMax;
    m.starts[m.n + k] = m.indices.length;
    m.colUpper[m.n + k] = 1;
    m.indices.push(impRow, impRow + 1);
    m.values.push(-importMax, exportMax);
    binaries.push({ col: m.n + k, slot: t });
  }
  return binaries;
}

/** The largest import and export a slot can have with the two kept apart, kW. */
function slotGridBounds(s: PlanSlot, params: PlanParams, exportMax: number, carMaxKw: number) {
  return {
    importMax: Math.min(params.gridImportMaxKw, s.loadKw + params.maxChargeKw + carMaxKw),
    exportMax: Math.min(exportMax, Math.max(0, s.pvKw - s.loadKw + params.maxDischargeKw)),
  };
}

/** What a slot's net grid power costs per hour, as a meter bills it: import or export, never both. */
export function netGridCost(slot: PlanSlot, gridKw: number): number {
  return gridKw >= 0 ? slot.importPrice * gridKw : slot.exportPrice * gridKw;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
