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
 *             - terminalValue * soc[T-1]
 */
import type { Highs } from 'highs';

/** The battery and grid as the plan sees them. */
export interface PlanParams {
  capacityKwh: number;
  maxChargeKw: number;
  maxDischargeKw: number;
  /** Lowest planned state of charge, % (the reserve; never below the device's minimum). */
  reserveSoc: number;
  /** Highest planned state of charge, %. */
  maxSoc: number;
  /** Round-trip efficiency, 0..1 (split evenly between charging and discharging). */
  roundTripEfficiency: number;
  /** Wear cost per kWh discharged, currency. */
  cycleCost: number;
  gridImportMaxKw: number;
  gridExportMaxKw: number;
  /** Export allowed at all (else its bound is 0). */
  exportAllowed: boolean;
}

/** One slot of the plan's inputs. */
export interface PlanSlot {
  start: number;
  end: number;
  importPrice: number;
  /** Currency per kWh paid for export (0 when export is not paid). */
  exportPrice: number;
  pvKw: number;
  loadKw: number;
}

export interface PlanInput {
  params: PlanParams;
  slots: readonly PlanSlot[];
  /** State of charge now, %. */
  socPercent: number;
  /** Value of a kWh left in the battery at the horizon's end, currency. */
  terminalValue: number;
}

/** The solved schedule, per slot. */
export interface LpSolution {
  importKw: number[];
  exportKw: number[];
  chargeKw: number[];
  dischargeKw: number[];
  curtailKw: number[];
  /** State of charge at each slot's end, %. */
  socPercent: number[];
  /** The objective's value (cost over the horizon, less the terminal value). */
  objective: number;
}

export class PlanInfeasibleError extends Error {}

/** Cost per kWh of curtailed PV in the objective: far above any price. */
const CURTAIL_PENALTY = 10;

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

/** Solves the plan; throws {@link PlanInfeasibleError} when HiGHS finds no optimum. */
export function solvePlan(highs: Highs, input: PlanInput): LpSolution {
  const T = input.slots.length;
  if (T === 0) throw new PlanInfeasibleError('no slots to plan');
  const { columns, rows, matrix } = buildModel(input);
  const model = highs.createModel({
    numCols: matrix.numCols,
    numRows: matrix.numRows,
    ...columns,
    ...rows,
    matrix: { format: 'csc', ...matrix },
  });
  let x: Float64Array;
  try {
    // Dual simplex without presolve: on this small, sparse model the fastest and the most
    // even in time (benchmark: p99 a few ms for 48 h, where presolve adds outliers).
    model.options.set({ output_flag: false, solver: 'simplex', presolve: 'off' });
    model.run();
    const status = model.getModelStatus();
    if (status !== highs.constants.modelStatus.optimal)
      throw new PlanInfeasibleError(`the solver found no optimal plan (model status ${status})`);
    x = model.getSolution().colValue;
  } finally {
    model.dispose();
  }
  return readSolution(x, input, T, input.params.capacityKwh);
}

/**
 * The linear program in HiGHS's column form: per slot, the variables import, export, charge,
 * discharge, curtailment and state of charge; per slot, two rows: the power balance and the
 * battery's energy from one slot to the next.
 */
function buildModel(input: PlanInput) {
  const { params, slots } = input;
  const T = slots.length;
  const cap = params.capacityKwh;
  const etaC = Math.sqrt(params.roundTripEfficiency);
  const etaD = etaC;
  const soc0 = (clamp(input.socPercent, 0, 100) / 100) * cap;
  const socMax = Math.max((params.maxSoc / 100) * cap, soc0);
  // A battery already below the reserve is never forced up to it; it is kept where it is.
  const socMin = Math.min((params.reserveSoc / 100) * cap, soc0);

  const n = VARS * T;
  const colCost = new Float64Array(n);
  const colLower = new Float64Array(n);
  const colUpper = new Float64Array(n);
  const rowLower = new Float64Array(2 * T);
  const rowUpper = new Float64Array(2 * T);
  const starts = new Int32Array(n + 1);
  const indices: number[] = [];
  const values: number[] = [];
  const exportMax = params.exportAllowed ? params.gridExportMaxKw : 0;

  for (let t = 0; t < T; t++) {
    const s = slots[t]!;
    const h = (s.end - s.start) / 3_600_000;
    const base = VARS * t;
    const bal = t;
    const dyn = T + t;
    const net = s.loadKw - s.pvKw;
    rowLower[bal] = rowUpper[bal] = net;
    rowLower[dyn] = rowUpper[dyn] = t === 0 ? soc0 : 0;

    const column = (j: number, cost: number, lo: number, hi: number, entries: Array<[number, number]>) => {
      colCost[base + j] = cost;
      colLower[base + j] = lo;
      colUpper[base + j] = hi;
      starts[base + j] = indices.length;
      for (const [row, value] of entries) {
        indices.push(row);
        values.push(value);
      }
    };
    column(IMP, h * s.importPrice, 0, params.gridImportMaxKw, [[bal, 1]]);
    column(EXP, -h * s.exportPrice, 0, exportMax, [[bal, -1]]);
    column(CH, 0, 0, params.maxChargeKw, [
      [bal, -1],
      [dyn, -etaC * h],
    ]);
    column(DIS, h * params.cycleCost, 0, params.maxDischargeKw, [
      [bal, 1],
      [dyn, h / etaD],
    ]);
    // Curtailing PV is only a way out (export not allowed, battery full): the battery modes
    // cannot order it, so the plan must not count on it to dodge a negative export price.
    column(CURT, CURTAIL_PENALTY * h, 0, Math.max(0, s.pvKw), [[bal, -1]]);
    const socEntries: Array<[number, number]> = [[dyn, 1]];
    if (t + 1 < T) socEntries.push([dyn + 1, -1]);
    column(SOC, t === T - 1 ? -input.terminalValue : 0, socMin, socMax, socEntries);
  }
  starts[n] = indices.length;
  return {
    columns: { colCost, colLower, colUpper },
    rows: { rowLower, rowUpper },
    matrix: {
      numRows: 2 * T,
      numCols: n,
      starts,
      indices: Int32Array.from(indices),
      values: Float64Array.from(values),
    },
  };
}

function readSolution(x: ArrayLike<number>, input: PlanInput, T: number, cap: number): LpSolution {
  const out: LpSolution = {
    importKw: [],
    exportKw: [],
    chargeKw: [],
    dischargeKw: [],
    curtailKw: [],
    socPercent: [],
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
    objective += h * (s.importPrice * at(IMP) - s.exportPrice * at(EXP) + input.params.cycleCost * at(DIS));
  }
  out.objective = objective - input.terminalValue * ((out.socPercent[T - 1]! / 100) * cap);
  return out;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
