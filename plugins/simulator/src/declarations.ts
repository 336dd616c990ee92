/** What each simulated device exposes, and how readings become published values. */
import type { MetricDeclaration, MetricValue } from '@heliograph/plugins-sdk';
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

export const INVERTER_METRICS: MetricDeclaration[] = [
  { name: 'pv_power', displayName: 'PV power', unit: 'W' },
  { name: 'load_power', displayName: 'Load power', unit: 'W' },
  { name: 'grid_power', displayName: 'Grid power', unit: 'W' },
  { name: 'battery_power', displayName: 'Battery power', unit: 'W' },
  { name: 'device_mode', displayName: 'Device mode', type: 'string' },
  { name: 'temperature', displayName: 'Temperature', unit: '°C' },
  { name: 'model', displayName: 'Model', type: 'string', group: 'Info' },
  { name: 'serial_number', displayName: 'Serial number', type: 'string', group: 'Info' },
  { name: 'firmware', displayName: 'Firmware', type: 'string', group: 'Info' },
];

export const BATTERY_METRICS: MetricDeclaration[] = [
  { name: 'power', displayName: 'Power', unit: 'W' },
  { name: 'state_of_charge', displayName: 'State of charge', unit: '%' },
  { name: 'voltage', displayName: 'Voltage', unit: 'V' },
  { name: 'current', displayName: 'Current', unit: 'A' },
  { name: 'temperature', displayName: 'Temperature', unit: '°C' },
];

export const MAX_CHARGE_CURRENT = { min: 10, max: 120, step: 10 } as const;

export const SETTING_NAMES = {
  outputSourcePriority: 'output_source_priority',
  maxChargeCurrent: 'max_charge_current',
} as const;

export interface InverterInfo {
  model: string;
  serial_number: string;
  firmware: string;
}

export function inverterInfo(seed: number, index: number, peakW: number): InverterInfo {
  const serial = Math.floor(hash01(seed, Channel.serial, index) * 1e10)
    .toString()
    .padStart(10, '0');
  return { model: `Heliograph Sim ${roundKw(peakW)}K`, serial_number: `HGS${serial}`, firmware: '1.0.0' };
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
    ...info,
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

export function batteryValues(reading: BatteryReading): Record<string, MetricValue> {
  return {
    power: reading.power,
    state_of_charge: reading.stateOfCharge,
    voltage: reading.voltage,
    current: reading.current,
    temperature: reading.temperature,
  };
}
