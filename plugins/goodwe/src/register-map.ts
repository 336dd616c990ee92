/*
 * The GoodWe ET / EH (and BT/BH) hybrid's registers, as the goodwe library (`et.py`) reads
 * them: all holding registers (function 03), running data from 35100, battery (BMS) data
 * from 37000, settings at 47000.. written with function 06. GoodWe counts grid active power
 * + export and battery power and current + discharging, so those entries are inverted.
 * `references` are et.py's sensor definitions (marcelblijleven/goodwe goodwe/et.py, with the
 * sensor classes' scales from goodwe/sensor.py: Voltage and Current /10, Frequency /100, Power
 * and Power4 as is, Energy and Energy4 /10, Temp /10).
 */
import { batteryMetrics, inverterMetrics, pvStringMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap } from '@heliograph/plugins-sdk/connections';

const [pvPower1, pvVoltage1, pvCurrent1, pvPower2, pvVoltage2, pvCurrent2] = pvStringMetrics(2);
const tenths = { type: 'u16', scale: 0.1 } as const;
const ET = 'marcelblijleven/goodwe goodwe/et.py:';

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
  references: [
    { name: 'pv_voltage_1', address: 35103, type: 'u16', scale: 0.1, source: `${ET} Voltage("vpv1", 35103)` },
    { name: 'pv_current_1', address: 35104, type: 'u16', scale: 0.1, source: `${ET} Current("ipv1", 35104)` },
    { name: 'pv_power_1', address: 35105, type: 'u32', source: `${ET} Power4("ppv1", 35105)` },
    { name: 'pv_voltage_2', address: 35107, type: 'u16', scale: 0.1, source: `${ET} Voltage("vpv2", 35107)` },
    { name: 'pv_current_2', address: 35108, type: 'u16', scale: 0.1, source: `${ET} Current("ipv2", 35108)` },
    { name: 'pv_power_2', address: 35109, type: 'u32', source: `${ET} Power4("ppv2", 35109)` },
    { name: 'grid_voltage', address: 35121, type: 'u16', scale: 0.1, source: `${ET} Voltage("vgrid", 35121)` },
    { name: 'grid_frequency', address: 35123, type: 'u16', scale: 0.01, source: `${ET} Frequency("fgrid", 35123)` },
    { name: 'output_power', address: 35138, type: 's16', source: `${ET} PowerS("total_inverter_power", 35138)` },
    {
      name: 'grid_power',
      address: 35140,
      type: 's16',
      opposite: true,
      source: `${ET} PowerS("active_power", 35140) (+ export: read_grid_mode, >= 90 W "Exporting")`,
    },
    { name: 'load_power', address: 35172, type: 's16', source: `${ET} PowerS("load_ptotal", 35172)` },
    { name: 'temperature', address: 35176, type: 's16', scale: 0.1, source: `${ET} Temp("temperature", 35176)` },
    {
      name: 'voltage',
      device: 'battery',
      address: 35180,
      type: 'u16',
      scale: 0.1,
      source: `${ET} Voltage("vbattery1", 35180)`,
    },
    {
      name: 'current',
      device: 'battery',
      address: 35181,
      type: 's16',
      scale: 0.1,
      opposite: true,
      source: `${ET} CurrentS("ibattery1", 35181) (+ discharging, as pbattery1)`,
    },
    {
      name: 'power',
      device: 'battery',
      address: 35182,
      type: 's32',
      opposite: true,
      source: `${ET} Power4S("pbattery1", 35182) (+ discharging: house_consumption = ppv + pbattery1 - active_power)`,
    },
    {
      name: 'battery_power',
      address: 35182,
      type: 's32',
      opposite: true,
      source: `${ET} Power4S("pbattery1", 35182) (+ discharging)`,
    },
    { name: 'pv_energy_today', address: 35193, type: 'u32', scale: 0.1, source: `${ET} Energy4("e_day", 35193)` },
    { name: 'load_energy_today', address: 35205, type: 'u16', scale: 0.1, source: `${ET} Energy("e_load_day", 35205)` },
    {
      name: 'battery_charge_energy_today',
      address: 35208,
      type: 'u16',
      scale: 0.1,
      source: `${ET} Energy("e_bat_charge_day", 35208)`,
    },
    {
      name: 'battery_discharge_energy_today',
      address: 35211,
      type: 'u16',
      scale: 0.1,
      source: `${ET} Energy("e_bat_discharge_day", 35211)`,
    },
    {
      name: 'temperature',
      device: 'battery',
      address: 37003,
      type: 's16',
      scale: 0.1,
      source: `${ET} Temp("battery_temperature", 37003)`,
    },
    {
      name: 'state_of_charge',
      device: 'battery',
      address: 37007,
      type: 'u16',
      source: `${ET} Integer("battery_soc", 37007)`,
    },
    {
      name: 'state_of_health',
      device: 'battery',
      address: 37008,
      type: 'u16',
      source: `${ET} Integer("battery_soh", 37008)`,
    },
    {
      name: 'work_mode',
      address: 47000,
      type: 'u16',
      labels: Object.fromEntries(WORK_MODES.map((m) => [m.value, m.label])),
      source: `${ET} Integer("work_mode", 47000); values as goodwe/inverter.py OperationMode GENERAL 0 .. SELF_USE 5`,
    },
    {
      name: 'grid_export_limit',
      address: 47510,
      type: 'u16',
      source: `${ET} Integer("grid_export_limit", 47510, ..., "W")`,
    },
  ],
});
