/*
 * What the owner sets on a charger (mode, currents, phases, plan target, battery to car), kept
 * in the plugin's store so a restart keeps it, and the planner's `planned_power` with its lease.
 */
import type { PluginStore } from '@heliograph/plugins-sdk';
import type { ChargerConfig } from './config.js';
import { CHARGE_MODES, type ChargeMode } from './charging-rules.js';

/** The planner's power holds this long unless written again (as battery control's lease). */
export const PLAN_LEASE_MS = 30 * 60_000;

/** Deadline options: every quarter hour of the day, local time ("07:00"). */
export const DEADLINES: readonly string[] = Array.from(
  { length: 96 },
  (_, i) => `${String(Math.floor(i / 4)).padStart(2, '0')}:${String((i % 4) * 15).padStart(2, '0')}`,
);

export type PhaseChoice = 'auto' | '1' | '3';

export interface OwnerSettings {
  mode: ChargeMode;
  minCurrentA: number;
  maxCurrentA: number;
  phases: PhaseChoice;
  /** kWh to add by the deadline (0: no energy target). */
  planEnergyKWh: number;
  /** The car's SoC (%) to reach by the deadline (0: no SoC target). */
  planSoc: number;
  planDeadline: string;
  allowBatteryToCar: boolean;
}

export function defaultSettings(config: ChargerConfig): OwnerSettings {
  return {
    mode: 'pv',
    minCurrentA: 6,
    maxCurrentA: config.maxCurrentA,
    phases: config.canSwitchPhases ? 'auto' : config.phases === 1 ? '1' : '3',
    planEnergyKWh: 0,
    planSoc: 0,
    planDeadline: '07:00',
    allowBatteryToCar: false,
  };
}

/**
 * The stored settings over the defaults (with `defaults` over the usual ones: the demo's
 * charger); what no longer fits the config (a lowered rating) is left out.
 */
export async function loadSettings(
  store: PluginStore,
  device: string,
  config: ChargerConfig,
  defaults: Partial<OwnerSettings> = {},
): Promise<OwnerSettings> {
  const settings = { ...defaultSettings(config), ...defaults };
  const stored = (await store.get<Partial<OwnerSettings>>(`settings:${device}`)) ?? {};
  if (stored.mode !== undefined && CHARGE_MODES.includes(stored.mode)) settings.mode = stored.mode;
  if (isAmps(stored.maxCurrentA, config)) settings.maxCurrentA = stored.maxCurrentA;
  if (isAmps(stored.minCurrentA, config) && stored.minCurrentA <= settings.maxCurrentA)
    settings.minCurrentA = stored.minCurrentA;
  if (config.canSwitchPhases && (stored.phases === 'auto' || stored.phases === '1' || stored.phases === '3'))
    settings.phases = stored.phases;
  if (typeof stored.planEnergyKWh === 'number') settings.planEnergyKWh = stored.planEnergyKWh;
  if (typeof stored.planSoc === 'number') settings.planSoc = stored.planSoc;
  if (typeof stored.planDeadline === 'string' && DEADLINES.includes(stored.planDeadline))
    settings.planDeadline = stored.planDeadline;
  if (typeof stored.allowBatteryToCar === 'boolean') settings.allowBatteryToCar = stored.allowBatteryToCar;
  return settings;
}

const isAmps = (v: unknown, config: ChargerConfig): v is number =>
  typeof v === 'number' && v >= 6 && v <= config.maxCurrentA;

/** The plan target in words, as the page and the planner show it: "30 kWh by 07:00". */
export function planText(s: OwnerSettings): string {
  const targets = [
    ...(s.planEnergyKWh > 0 ? [`${s.planEnergyKWh} kWh`] : []),
    ...(s.planSoc > 0 ? [`${s.planSoc} %`] : []),
  ];
  return targets.length === 0 ? 'no target' : `${targets.join(' or ')} by ${s.planDeadline}`;
}

/** The planner's power for now: what it wrote within the lease, else null (the rules fall back). */
export class PlannedPower {
  private value: number | null = null;
  private at = 0;

  set(powerW: number, now: number): void {
    this.value = powerW;
    this.at = now;
  }

  current(now: number): number | null {
    return this.value !== null && now - this.at < PLAN_LEASE_MS ? this.value : null;
  }
}
