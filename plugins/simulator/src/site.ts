/**
 * The simulated site and its time step. `step` is pure: (model, state, dt, settings) ->
 * (state, readings); the live poll, the backfill and the tests all drive the same function.
 */
import type { BatteryCommand } from '@heliograph/plugins-sdk';
import { openCircuitVoltage, terminalVoltage } from './battery.js';
import { commandedPower, type BatteryBank } from './control.js';
import type { HouseholdLoad } from './load.js';
import { clamp, roundTo } from './random.js';
import { clearSkyTiltedIrradiance, type PanelOrientation, pvYieldPerPeakWatt, sunVector } from './sun.js';
import { clearSkyFraction, expectedWeather, liveCloudCover } from './weather.js';

export const OUTPUT_SOURCE_PRIORITIES = ['Utility first', 'Solar first', 'SBU priority'] as const;
export type OutputSourcePriority = (typeof OUTPUT_SOURCE_PRIORITIES)[number];

export interface InverterSettings {
  outputSourcePriority: OutputSourcePriority;
  /** Caps the charging power this inverter puts into the battery: current x battery voltage. */
  maxChargeCurrentA: number;
}

export interface SiteModel {
  seed: number;
  latitude: number;
  longitude: number;
  panel: PanelOrientation;
  load: HouseholdLoad;
  /** `share` splits the site load and the battery's limits between inverters; shares sum to 1. */
  inverters: ReadonlyArray<{ peakW: number; share: number }>;
  /** Identical batteries forming one bank; count 0 means no battery. */
  battery: BatteryBank;
}

export interface SiteState {
  time: number;
  /** State of charge of the bank, 0..100. */
  soc: number;
  inverterTemperatureC: number[];
  batteryTemperatureC: number[];
}

export interface InverterReading {
  pvPower: number;
  loadPower: number;
  /** + import */
  gridPower: number;
  /** + charging */
  batteryPower: number;
  deviceMode: 'Solar' | 'Battery' | 'Line' | 'Standby';
  temperature: number;
}

export interface BatteryReading {
  /** + charging */
  power: number;
  stateOfCharge: number;
  voltage: number;
  current: number;
  temperature: number;
}

export interface SiteReadings {
  time: number;
  inverters: InverterReading[];
  batteries: BatteryReading[];
}

const CHARGE_EFFICIENCY = 0.96;
const DISCHARGE_EFFICIENCY = 0.96;
const INVERTER_TIME_CONSTANT_MS = 20 * 60_000;
const BATTERY_TIME_CONSTANT_MS = 60 * 60_000;
/** Above this SOC the charger tapers off linearly to zero at 100 %. */
const TAPER_FROM_SOC = 95;

/** PV watts per peak watt at `t`, for the sky the panels see. */
export function pvYieldAt(model: SiteModel, t: number, cloudCover: number, temperatureC: number): number {
  const sun = sunVector(t, model.latitude, model.longitude);
  const irradiance = clearSkyTiltedIrradiance(sun, model.panel) * clearSkyFraction(cloudCover);
  return pvYieldPerPeakWatt(irradiance, temperatureC);
}

/** Where an indoor inverter or battery sits: a room that follows the weather a little. */
function roomTemperatureC(outsideC: number): number {
  return 20 + 0.25 * (outsideC - 15);
}

export function initialState(model: SiteModel, time: number, soc: number): SiteState {
  const room = roomTemperatureC(expectedWeather(model.seed, model.latitude, model.longitude, time).temperatureC);
  return {
    time,
    soc: clamp(soc, 0, 100),
    inverterTemperatureC: model.inverters.map(() => room),
    batteryTemperatureC: Array.from({ length: model.battery.count }, () => room),
  };
}

/**
 * The battery power (+ charging) an inverter asks for under its output source priority.
 * Utility first: the grid carries the load, PV charges the battery first, the battery is
 * never discharged. Solar first: PV feeds the load, the grid the rest, only PV surplus
 * charges. SBU: PV, then battery, then grid.
 */
function dispatch(
  priority: OutputSourcePriority,
  pv: number,
  load: number,
  chargeLimit: number,
  dischargeLimit: number,
): number {
  const surplus = pv - load;
  switch (priority) {
    case 'Utility first':
      return Math.min(pv, chargeLimit);
    case 'Solar first':
      return clamp(surplus, 0, chargeLimit);
    case 'SBU priority':
      return surplus >= 0 ? Math.min(surplus, chargeLimit) : -Math.min(-surplus, dischargeLimit);
  }
}

/** The source carrying most of the load names the mode, as an inverter's display does. */
function deviceMode(pv: number, grid: number, battery: number): InverterReading['deviceMode'] {
  const fromGrid = Math.max(0, grid);
  const fromBattery = Math.max(0, -battery);
  if (pv <= 0 && fromGrid <= 0 && fromBattery <= 0) return 'Standby';
  if (fromGrid >= pv && fromGrid >= fromBattery) return 'Line';
  return fromBattery > pv ? 'Battery' : 'Solar';
}

function relax(current: number, target: number, dtMs: number, timeConstantMs: number): number {
  return target + (current - target) * Math.exp(-dtMs / timeConstantMs);
}

const NORMAL: BatteryCommand = { mode: 'normal', powerW: 0, targetSoc: 100 };

/**
 * Advances the site by `dtMs` and returns the readings at the new time. The battery power
 * chosen at the new time is held over the whole step for the SOC, and limited so the step
 * can neither overfill the battery nor take it below the reserve. A battery-control command
 * other than `normal` overrides every inverter's output source priority (control.ts).
 */
export function step(
  model: SiteModel,
  state: SiteState,
  dtMs: number,
  settings: readonly InverterSettings[],
  control: BatteryCommand = NORMAL,
): { state: SiteState; readings: SiteReadings } {
  const t = state.time + dtMs;
  const dtHours = dtMs / 3_600_000;
  const weather = expectedWeather(model.seed, model.latitude, model.longitude, t);
  const pvPerPeakWatt = pvYieldAt(model, t, liveCloudCover(model.seed, t, weather.cloudCover), weather.temperatureC);
  const siteLoad = model.load.powerAt(t);
  const room = roomTemperatureC(weather.temperatureC);

  const bank = model.battery;
  const bankCapacityWh = bank.count * bank.capacityWh;
  const { chargeLimit, dischargeLimit } = bankPowerLimits(bank, state.soc, dtHours);
  const chargerVoltage = openCircuitVoltage(state.soc);
  // The power over the step that brings the bank exactly to the commanded target.
  const toTargetWh = ((control.targetSoc - state.soc) / 100) * bankCapacityWh;
  const toTargetChargeW = dtHours > 0 ? Math.max(0, toTargetWh) / CHARGE_EFFICIENCY / dtHours : Infinity;
  const toTargetDischargeW = dtHours > 0 ? (Math.max(0, -toTargetWh) * DISCHARGE_EFFICIENCY) / dtHours : Infinity;

  const inverters: InverterReading[] = [];
  const inverterTemperatureC: number[] = [];
  let bankPower = 0;
  for (let i = 0; i < model.inverters.length; i++) {
    const { peakW, share } = model.inverters[i]!;
    const setting = settings[i]!;
    const pv = Math.round(clamp(peakW * pvPerPeakWatt, 0, peakW));
    const load = Math.round(siteLoad * share);
    const ownChargeLimit = Math.min(chargeLimit * share, setting.maxChargeCurrentA * chargerVoltage);
    // Rounded down so the published power never exceeds a limit by the rounding.
    const commanded = commandedPower(control, state.soc, {
      pv,
      load,
      chargeLimit: ownChargeLimit,
      dischargeLimit: dischargeLimit * share,
      toTargetChargeW: toTargetChargeW * share,
      toTargetDischargeW: toTargetDischargeW * share,
      share,
    });
    const battery =
      Math.trunc(
        commanded ?? dispatch(setting.outputSourcePriority, pv, load, ownChargeLimit, dischargeLimit * share),
      ) + 0;
    const grid = load - pv + battery;
    bankPower += battery;
    const throughput = (pv + load + Math.abs(battery)) / (2 * peakW);
    const temperature = relax(
      state.inverterTemperatureC[i] ?? room,
      room + 28 * throughput,
      dtMs,
      INVERTER_TIME_CONSTANT_MS,
    );
    inverterTemperatureC.push(temperature);
    inverters.push({
      pvPower: pv,
      loadPower: load,
      gridPower: grid,
      batteryPower: battery,
      deviceMode: deviceMode(pv, grid, battery),
      temperature: roundTo(temperature, 1),
    });
  }

  let soc = state.soc;
  if (bankCapacityWh > 0) {
    const storedW = bankPower > 0 ? bankPower * CHARGE_EFFICIENCY : bankPower / DISCHARGE_EFFICIENCY;
    soc = clamp(soc + ((storedW * dtHours) / bankCapacityWh) * 100, 0, 100);
  }
  const { batteries, batteryTemperatureC } = bankReadings(bank, { soc, bankPower, room, dtMs, state });

  return {
    state: { time: t, soc, inverterTemperatureC, batteryTemperatureC },
    readings: { time: t, inverters, batteries },
  };
}

/**
 * What the bank can take and give over the step: its rated powers, charging tapered above
 * TAPER_FROM_SOC, discharging stopped at the reserve, and neither beyond what fills or
 * empties it within the step.
 */
function bankPowerLimits(
  bank: SiteModel['battery'],
  soc: number,
  dtHours: number,
): { chargeLimit: number; dischargeLimit: number } {
  if (bank.count === 0) return { chargeLimit: 0, dischargeLimit: 0 };
  const capacityWh = bank.count * bank.capacityWh;
  let chargeLimit = bank.count * bank.maxChargeW * clamp((100 - soc) / (100 - TAPER_FROM_SOC), 0, 1);
  let dischargeLimit = soc > bank.reserveSoc ? bank.count * bank.maxDischargeW : 0;
  if (dtHours > 0) {
    chargeLimit = Math.min(chargeLimit, (((100 - soc) / 100) * capacityWh) / CHARGE_EFFICIENCY / dtHours);
    dischargeLimit = Math.min(
      dischargeLimit,
      ((Math.max(0, soc - bank.reserveSoc) / 100) * capacityWh * DISCHARGE_EFFICIENCY) / dtHours,
    );
  }
  return { chargeLimit, dischargeLimit };
}

/** Each battery's reading after the step: the bank's power shared evenly, its voltage, current and warmth. */
function bankReadings(
  bank: SiteModel['battery'],
  {
    soc,
    bankPower,
    room,
    dtMs,
    state,
  }: { soc: number; bankPower: number; room: number; dtMs: number; state: SiteState },
): { batteries: BatteryReading[]; batteryTemperatureC: number[] } {
  const batteries: BatteryReading[] = [];
  const batteryTemperatureC: number[] = [];
  const perBattery = bank.count > 0 ? bankPower / bank.count : 0;
  const { voltage, current } = terminalVoltage(soc, perBattery);
  for (let b = 0; b < bank.count; b++) {
    const heating = 8 * (Math.abs(perBattery) / Math.max(bank.maxChargeW, bank.maxDischargeW, 1)) ** 2;
    const temperature = relax(state.batteryTemperatureC[b] ?? room, room + heating, dtMs, BATTERY_TIME_CONSTANT_MS);
    batteryTemperatureC.push(temperature);
    batteries.push({
      power: Math.round(perBattery),
      stateOfCharge: roundTo(soc, 1),
      voltage: roundTo(voltage, 2),
      current: roundTo(current, 1),
      temperature: roundTo(temperature, 1),
    });
  }
  return { batteries, batteryTemperatureC };
}
