/*
 * The GoodWe ET / EH (and BT/BH) hybrid's registers, as the goodwe library (`et.py`) reads
 * them: all holding registers (function 03), running data from 35100, battery (BMS) data
 * from 37000, settings at 47000.. written with function 06. GoodWe counts grid active power
 * + export and battery power and current + discharging, so those entries are inverted.
 */
import { batteryMetrics, inverterMetrics, pvStringMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap } from '@heliograph/plugins-sdk/connections';

const [pvPower1, pvVoltage1, pvCurrent1, pvPower2, pvVoltage2, pvCurrent2] = pvStringMetrics(2);
const tenths = { type: 'u16', scale: 0.1 } as const;

export const WORK_MODES = [
  { value: 0, label: 'General' },
  { value: 1, label: 'Off grid' },
  { value: 2, label: 'Backup' },
  { value: 3, label: 'Eco' },
  { value: 4, label: 'Peak shaving' },
  { value: 5, label: 'Self use' },
] as const;

export const goodweMap = defineRegisterMap({
  maxGap: 20,
  registers: [
    { ...pvVoltage1!, address: 35103, ...tenths },
    { ...pvCurrent1!, address: 35104, ...tenths },
    { ...pvPower1!, address: 35105, type: 'u32' },
    { ...pvVoltage2!, address: 35107, ...tenths },
    { ...pvCurrent2!, address: 35108, ...tenths },
    { ...pvPower2!, address: 35109, type: 'u32' },
    { ...inverterMetrics.grid_voltage, address: 35121, ...tenths },
    { ...inverterMetrics.grid_frequency, address: 35123, type: 'u16', scale: 0.01 },
    { ...inverterMetrics.output_power, address: 35138, type: 's16' },
    { ...inverterMetrics.grid_power, address: 35140, type: 's16', invert: true },
    { ...inverterMetrics.load_power, address: 35172, type: 's16' },
    { ...inverterMetrics.temperature, address: 35176, type: 's16', scale: 0.1 },
    { ...batteryMetrics.voltage, device: 'battery', address: 35180, ...tenths },
    { ...batteryMetrics.current, device: 'battery', address: 35181, type: 's16', scale: 0.1, invert: true },
    { ...batteryMetrics.power, device: 'battery', address: 35182, type: 's32', invert: true },
    { ...inverterMetrics.battery_power, address: 35182, type: 's32', invert: true },
    { ...inverterMetrics.pv_energy_today, address: 35193, type: 'u32', scale: 0.1 },
    { ...inverterMetrics.load_energy_today, address: 35205, ...tenths },
    { ...inverterMetrics.battery_charge_energy_today, address: 35208, ...tenths },
    { ...inverterMetrics.battery_discharge_energy_today, address: 35211, ...tenths },
    { ...batteryMetrics.temperature, device: 'battery', address: 37003, type: 's16', scale: 0.1 },
    { ...batteryMetrics.state_of_charge, device: 'battery', address: 37007, type: 'u16' },
    { ...batteryMetrics.state_of_health, device: 'battery', address: 37008, type: 'u16' },
    {
      name: 'work_mode',
      displayName: 'Work mode',
      address: 47000,
      type: 'u16',
      options: WORK_MODES,
      writable: true,
      writeSingle: true,
    },
    {
      name: 'grid_export_limit',
      displayName: 'Grid export limit',
      unit: 'W',
      deviceClass: 'power',
      address: 47510,
      type: 'u16',
      writable: { min: 0, max: 10_000, step: 100 },
      writeSingle: true,
    },
  ],
  derived: [{ ...inverterMetrics.pv_power, derive: { sum: ['pv_power_1', 'pv_power_2'] } }],
});
