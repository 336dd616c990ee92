/**
 * What a battery does in one slot under a mode, given the PV and the load that actually
 * happen: the reference behaviour the benchmark simulates and the planner's commands assume.
 */
import type { PlanParams } from './plan-input.js';
import type { PlanMode } from './modes.js';

export interface Command {
  mode: PlanMode;
  powerW: number;
  targetSoc: number;
}

export interface StepResult {
  /** State of charge after the slot, %. */
  socPercent: number;
  /** Grid import (positive) or export (negative), kW. */
  gridKw: number;
  /** Battery discharge (positive) or charge (negative), kW. */
  batteryKw: number;
}

/**
 * normal: the battery covers the deficit and takes the surplus; hold: it takes the surplus
 * but does not discharge; charge: it charges at the command's power until the target;
 * discharge: it discharges at the command's power down to the target (the grid takes the
 * rest or the excess); at the target both hold (as the simulator's battery does). Never
 * below the minimum SOC, never above 100 %; export beyond the limit is curtailed.
 */
export function stepBattery(args: {
  command: Command;
  socPercent: number;
  pvKw: number;
  loadKw: number;
  hours: number;
  params: PlanParams;
  minSoc: number;
}): StepResult {
  const { command, pvKw, loadKw, hours: h, params } = args;
  const cap = params.capacityKwh;
  const eta = Math.sqrt(params.roundTripEfficiency);
  const soc = (args.socPercent / 100) * cap;
  const floor = (args.minSoc / 100) * cap;
  const net = loadKw - pvKw;
  const roomKw = Math.max(0, (cap - soc) / (eta * h));
  const availableKw = Math.max(0, ((soc - floor) * eta) / h);
  const targetKwh = (command.targetSoc / 100) * cap;
  const absorb = net < 0 ? -Math.min(-net, params.maxChargeKw, roomKw) : 0;
  let batteryKw = 0;
  switch (command.mode) {
    case 'normal':
      batteryKw = net > 0 ? Math.min(net, params.maxDischargeKw, availableKw) : absorb;
      break;
    case 'hold':
      batteryKw = absorb;
      break;
    case 'charge':
      // At the target the battery holds; below it, it charges at the commanded power exactly
      // (PV first, the grid for the rest; PV beyond it is exported).
      batteryKw =
        soc >= targetKwh - 1e-9
          ? absorb
          : -Math.min(command.powerW / 1000, params.maxChargeKw, roomKw, (targetKwh - soc) / (eta * h));
      break;
    case 'discharge':
      batteryKw =
        soc <= Math.max(targetKwh, floor) + 1e-9
          ? absorb
          : Math.min(
              command.powerW / 1000,
              params.maxDischargeKw,
              availableKw,
              ((soc - Math.max(targetKwh, floor)) * eta) / h,
            );
      break;
  }
  const nextSoc = batteryKw >= 0 ? soc - (batteryKw * h) / eta : soc - batteryKw * h * eta;
  let gridKw = net - batteryKw;
  const exportMax = params.exportAllowed ? params.gridExportMaxKw : 0;
  if (gridKw < -exportMax) gridKw = -exportMax;
  return { socPercent: Math.min(100, Math.max(0, (nextSoc / cap) * 100)), gridKw, batteryKw };
}
