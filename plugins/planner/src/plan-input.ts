/**
 * What the planner's linear program (lp.ts) is given and what it gives back: the battery and
 * the grid, the slots, a car, the solved schedule. Apart from lp.ts so that what reads or
 * prepares them (sign-dp.ts, modes.ts) does not import the solver's module.
 */

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

/** An electric car's energy need, as the LP sees it. */
export interface CarLoad {
  /** Largest charging power, kW. */
  maxKw: number;
  /** Energy to draw by the deadline, kWh at the charger (the car's need over its charging efficiency). */
  needKwh: number;
  /** How many slots from the first the car may charge in: those ending by its deadline. */
  slots: number;
  /** Whether the home battery may discharge into the car. */
  allowBattery: boolean;
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
  /** Lowest state of charge at the horizon's end, % (capped at what the battery may hold). */
  endSocMin?: number;
  /**
   * Count the forecast's PV surplus kept in the battery instead of exported in the plan's
   * favour (lp.ts `KEEP_PV`): the planner's plans do, a perfect-foresight reference does not.
   */
  keepPv?: boolean;
  /** Wall-clock budget of the branch and cut after the rounded plan, ms (default 80, and 200 nodes). */
  searchMs?: number;
  /** The car to charge with the house, if any. */
  car?: CarLoad;
  /**
   * Per slot, which side the last plan's net grid flow was on (true: import, false: export;
   * undefined: not planned then): a third rounding of the binaries to start from. Plans are
   * made again every quarter hour, so each search goes on from where the last one ended.
   */
  importHint?: ReadonlyArray<boolean | undefined>;
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
  /** The car's charging power per slot, kW (all 0 without a car). */
  carKw: number[];
  /** The car's energy that cannot be charged by its deadline, kWh (0: the need is met). */
  carShortKwh: number;
  /** The objective's value (cost over the horizon, less the terminal value). */
  objective: number;
}
