/**
 * The power flows of the emulated Deye site at one moment: PV from the sun, a household
 * load, a battery and the grid, steered by the inverter's settings the way the real
 * device's energy priority, work mode and limits steer it.
 */
import { householdLoad, sunFraction } from '@heliograph/plugins-sdk/emulator';
import type { TouEffect } from './tou.js';

/** The writable settings, in the units of their registers. */
export interface DeyeSettings {
  /** 0 battery first, 1 load first. */
  energyPriority: number;
  /** 0 selling first, 1 zero export to load, 2 zero export to CT. */
  workMode: number;
  maxSellW: number;
  gridChargeA: number;
  maxChargeA: number;
  maxDischargeA: number;
}

export const DEFAULT_SETTINGS: DeyeSettings = {
  energyPriority: 1,
  workMode: 0,
  maxSellW: 5000,
  gridChargeA: 0,
  maxChargeA: 50,
  maxDischargeA: 50,
};

/** Below this the inverter stops discharging the battery. */
export const MIN_SOC = 10;

/** Power flows in W, all positive, and the battery's voltage. */
export interface Flows {
  pv1: number;
  pv2: number;
  load: number;
  charge: number;
  discharge: number;
  gridImport: number;
  gridExport: number;
  batteryVoltage: number;
}

/** The battery's voltage from its state of charge (a 16-cell LFP pack). */
export function batteryVoltage(soc: number): number {
  return 48 + 0.06 * soc;
}

/**
 * The flows at `time` for a battery at `soc` %, an array of `peakPvW`.
 *
 * @example
 * siteFlows({ time: new Date(2026, 5, 21, 12), soc: 50, settings: DEFAULT_SETTINGS, peakPvW: 6000 });
 */
export function siteFlows(options: {
  time: Date;
  soc: number;
  settings: DeyeSettings;
  peakPvW: number;
  /** The time-of-use program's effect now (tou.ts); null or absent with the timer off. */
  tou?: TouEffect | null;
}): Flows {
  const { time, soc, settings } = options;
  const tou = options.tou ?? null;
  const voltage = batteryVoltage(soc);
  const maxCharge = soc >= 100 ? 0 : settings.maxChargeA * voltage;
  const floorSoc = Math.max(MIN_SOC, tou?.floorSoc ?? 0);
  const maxDischarge = soc <= floorSoc ? 0 : Math.min(settings.maxDischargeA * voltage, tou?.maxDischargeW ?? Infinity);
  let pv = options.peakPvW * sunFraction(time);
  const load = householdLoad(time);
  let charge = 0;
  let discharge = 0;
  if (settings.energyPriority === 0) {
    // Battery first: PV charges the battery before it feeds the load; grid charging tops it up.
    charge = Math.max(Math.min(pv, maxCharge), Math.min(settings.gridChargeA * voltage, maxCharge));
  } else {
    const surplus = pv - load;
    if (surplus >= 0) charge = Math.min(surplus, maxCharge);
    else discharge = Math.min(-surplus, maxDischarge);
  }
  if (tou?.gridChargeToSoc != null && soc < tou.gridChargeToSoc) {
    // A grid-charging slot: the grid tops up what PV does not give, at the grid charge current.
    charge = Math.max(charge, Math.min(settings.gridChargeA * voltage, maxCharge));
    discharge = 0;
  } else if (tou && settings.workMode === 0 && charge === 0) {
    // Selling first on the timer: the battery discharges at the slot's power down to its SOC.
    discharge = maxDischarge;
  }
  let grid = load + charge - discharge - pv;
  // Export above what the settings allow is not produced: the inverter throttles its PV.
  const exportLimit = settings.workMode === 0 ? settings.maxSellW : 0;
  if (-grid > exportLimit) {
    pv -= -grid - exportLimit;
    grid = -exportLimit;
  }
  const share = 0.55;
  return {
    pv1: Math.round(pv * share),
    pv2: Math.round(pv * (1 - share)),
    load,
    charge: Math.round(charge),
    discharge: Math.round(discharge),
    gridImport: Math.round(Math.max(grid, 0)),
    gridExport: Math.round(Math.max(-grid, 0)),
    batteryVoltage: voltage + (charge > 0 ? 0.4 : discharge > 0 ? -0.3 : 0),
  };
}

/** A setting register's check: the value is valid for it. */
export function validSetting(address: number, value: number): boolean {
  if (address === 243) return value <= 1;
  if (address === 244) return value <= 2;
  // Checked against the rated power too; 80 kW is ha-solarman's largest (deye_p3.yaml, HV).
  if (address === 245) return value <= 80_000;
  if (address === 230 || address === 210 || address === 211) return value <= 185;
  return false;
}

/** Writes one setting register into the settings (checked with {@link validSetting} first). */
export function applySetting(settings: DeyeSettings, address: number, value: number): void {
  if (address === 243) settings.energyPriority = value;
  else if (address === 244) settings.workMode = value;
  else if (address === 245) settings.maxSellW = value;
  else if (address === 230) settings.gridChargeA = value;
  else if (address === 210) settings.maxChargeA = value;
  else if (address === 211) settings.maxDischargeA = value;
}
