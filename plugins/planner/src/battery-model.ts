/**
 * What a battery does in one slot under a mode, given the PV and the load that actually
 * happen: the reference behaviour the benchmark simulates and the planner's commands assume.
 */
import type { PlanParams } from './lp.js';
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
 * but does not discharge; charge: it charges at up to the command's power (or the surplus,
 * if more) until the target; discharge: it discharges at up to the command's power down to
 * the target, exporting what the load does not take. Never below the minimum SOC, never above
 * 100 %; export beyond the limit (or when not allowed) is curtailed.
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
  let batteryKw = 0;
  switch (command.mode) {
    case 'normal':
      batteryKw =
        net > 0 ? Math.min(net, params.maxDischargeKw, availableKw) : -Math.min(-net, params.maxChargeKw, roomKw);
      break;
    case 'hold':
      batteryKw = net > 0 ? 0 : -Math.min(-net, params.maxChargeKw, roomKw);
      break;
    case 'charge': {
      const toTarget = Math.max(0, (targetKwh - soc) / (eta * h));
      const want = Math.max(Math.min(command.powerW / 1000, toTarget), -net);
      batteryKw = -Math.min(Math.max(0, want), params.maxChargeKw, roomKw);
      break;
    }
    case 'discharge': {
      const toTarget = Math.max(0, ((soc - Math.max(targetKwh, floor)) * eta) / h);
      const want = Math.min(command.powerW / 1000, toTarget);
      batteryKw = Math.min(want, params.maxDischargeKw, availableKw);
      if (net < 0 && want <= 0) batteryKw = -Math.min(-net, params.maxChargeKw, roomKw);
      break;
    }
  }
  const nextSoc = batteryKw >= 0 ? soc - (batteryKw * h) / eta : soc - batteryKw * h * eta;
  let gridKw = net - batteryKw;
  const exportMax = params.exportAllowed ? params.gridExportMaxKw : 0;
  if (gridKw < -exportMax) gridKw = -exportMax;
  return { socPercent: Math.min(100, Math.max(0, (nextSoc / cap) * 100)), gridKw, batteryKw };
}
