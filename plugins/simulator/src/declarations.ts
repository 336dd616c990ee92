/** What each simulated device exposes, and how readings become published values. */
import {
  batteryMetrics,
  inverterMetrics,
  type DeviceIdentity,
  type MetricDeclaration,
  type MetricValue,
} from '@heliograph/plugins-sdk';
import { Channel, hash01 } from './random.js';
import type { BatteryReading, InverterReading, InverterSettings } from './site.js';

/** The numeric inverter readings history records; the backfill writes exactly these. */
export const RECORDED_INVERTER_METRICS = [
  'pv_power',
  'load_power',
  'grid_power',
  'battery_power',
  'temperature',
] as const;

/**
 * The standard vocabulary's names, units and classes, plus the firmware as an Info row of
 * its own: the simulator's topics predate the identity rows, whose firmware row would be
 * `firmware_version` (model and serial come as identity, under the same topic names).
 */
export const INVERTER_METRICS: MetricDeclaration[] = [
  inverterMetrics.pv_power,
  inverterMetrics.load_power,
  inverterMetrics.grid_power,
  inverterMetrics.battery_power,
  inverterMetrics.device_mode,
  inverterMetrics.temperature,
  { name: 'firmware', displayName: 'Firmware', type: 'string', group: 'Info' },
];

export const BATTERY_METRICS: MetricDeclaration[] = [
  batteryMetrics.power,
  batteryMetrics.state_of_charge,
  batteryMetrics.voltage,
  batteryMetrics.current,
  batteryMetrics.temperature,
];

export const MAX_CHARGE_CURRENT = { min: 10, max: 120, step: 10 } as const;

export const SETTING_NAMES = {
  outputSourcePriority: 'output_source_priority',
  maxChargeCurrent: 'max_charge_current',
} as const;

/** What an inverter says it is: model and serial as its identity (Info rows `model`, `serial_number`), and its firmware. */
export interface InverterInfo {
  identity: Required<Pick<DeviceIdentity, 'model' | 'serial'>>;
  firmware: string;
}

export function inverterInfo(seed: number, index: number, peakW: number): InverterInfo {
  const serial = Math.floor(hash01(seed, Channel.serial, index) * 1e10)
    .toString()
    .padStart(10, '0');
  return { identity: { model: `Heliograph Sim ${roundKw(peakW)}K`, serial: `HGS${serial}` }, firmware: '1.0.0' };
}

function roundKw(watts: number): string {
  return String(Math.round(watts / 100) / 10);
}

export function inverterValues(
  reading: InverterReading,
  setting: InverterSettings,
  info: InverterInfo,
): Record<string, MetricValue> {
  return {
    pv_power: reading.pvPower,
    load_power: reading.loadPower,
    grid_power: reading.gridPower,
    battery_power: reading.batteryPower,
    device_mode: reading.deviceMode,
    temperature: reading.temperature,
    firmware: info.firmware,
    [SETTING_NAMES.outputSourcePriority]: setting.outputSourcePriority,
    [SETTING_NAMES.maxChargeCurrent]: setting.maxChargeCurrentA,
  };
}

/** The recorded subset, for history backfill. */
export function recordedInverterValues(
  reading: InverterReading,
): Record<(typeof RECORDED_INVERTER_METRICS)[number], number> {
  return {
    pv_power: reading.pvPower,
    load_power: reading.loadPower,
    grid_power: reading.gridPower,
    battery_power: reading.batteryPower,
    temperature: reading.temperature,
  };
}

/** A battery's recorded values, for history backfill: all of them are numbers. */
export function recordedBatteryValues(reading: BatteryReading): Record<string, number> {
  return {
    power: reading.power,
    state_of_charge: reading.stateOfCharge,
    voltage: reading.voltage,
    current: reading.current,
    temperature: reading.temperature,
  };
}

export function batteryValues(reading: BatteryReading): Record<string, MetricValue> {
  return recordedBatteryValues(reading);
}
