/**
 * Battery control on the simulated site: the command set through the capability on the
 * first inverter steers the whole bank, each inverter taking its share, as a site
 * controller would. `normal` leaves every inverter to its output source priority.
 */
import type { BatteryCommand, BatteryLimits } from '@heliograph/plugins-sdk';
import { clamp } from './random.js';

/** Identical batteries forming one bank; count 0 means no battery. */
export interface BatteryBank {
  count: number;
  capacityWh: number;
  maxChargeW: number;
  maxDischargeW: number;
  reserveSoc: number;
}

/** The bank's limits as the capability declares them; null without a battery. */
export function bankLimits(model: { battery: BatteryBank }): BatteryLimits | null {
  const bank = model.battery;
  if (bank.count === 0) return null;
  return {
    capacityKwh: (bank.count * bank.capacityWh) / 1000,
    maxChargeW: bank.count * bank.maxChargeW,
    maxDischargeW: bank.count * bank.maxDischargeW,
    minSoc: bank.reserveSoc,
    modes: ['normal', 'hold', 'charge', 'discharge'],
  };
}

/** What one inverter may do in one step: its share of the bank's limits and of the energy to the target. */
export interface ShareLimits {
  pv: number;
  load: number;
  /** W this inverter may put into the battery (its share, its charge current, the room left). */
  chargeLimit: number;
  /** W this inverter may take out of the battery (its share, the reserve). */
  dischargeLimit: number;
  /** W over the step that would bring the bank exactly to the target, this inverter's share. */
  toTargetChargeW: number;
  toTargetDischargeW: number;
  share: number;
}

/**
 * The battery power (+ charging) one inverter takes under `command`, or null for `normal`
 * (the output source priority decides). Charging and discharging stop at the target; there
 * the battery holds.
 */
export function commandedPower(command: BatteryCommand, soc: number, s: ShareLimits): number | null {
  const holdPower = clamp(s.pv - s.load, 0, s.chargeLimit);
  switch (command.mode) {
    case 'normal':
      return null;
    case 'hold':
      return holdPower;
    case 'charge':
      if (soc >= command.targetSoc) return holdPower;
      return Math.max(0, Math.min(command.powerW * s.share, s.chargeLimit, s.toTargetChargeW));
    case 'discharge':
      if (soc <= command.targetSoc) return holdPower;
      return -Math.max(0, Math.min(command.powerW * s.share, s.dischargeLimit, s.toTargetDischargeW));
  }
}
