/*
 * The Huawei SUN2000 hybrid inverter's registers with its LUNA2000 battery and power meter,
 * as Huawei's "Solar Inverter Modbus Interface Definitions" give them and wlcrs/huawei-solar-lib
 * implements them (src/huawei_solar/registers.py: REGISTERS, PV_REGISTERS, BATTERY_REGISTERS,
 * METER_REGISTERS; the enumerations in register_values.py). Every register is a holding
 * register (function 03; the library reads nothing else), 32-bit values high word first, a
 * "gain" dividing the raw value (gain 10: scale 0.1).
 *
 * Signs: the power meter's active power (37113) is + feeding the grid (evcc-io/evcc
 * templates/definition/meter/huawei-sun2000-hybrid.yaml reads it with scale -1 for its
 * + import), so grid_power is inverted; the battery's charge/discharge power (37765, 37001) is
 * + charging, as Heliograph counts it (the same template reads it with scale -1 for evcc's
 * + discharging), so it is not.
 */
import { batteryMetrics, inverterMetrics, pvStringMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap } from '@heliograph/plugins-sdk/connections';
import { identityReferences, mapReferences } from './references.js';

const [pvPower1, pvVoltage1, pvCurrent1, pvPower2, pvVoltage2, pvCurrent2] = pvStringMetrics(2);
const kWhHundredths = {
  type: 'u32',
  scale: 0.01,
  unit: 'kWh',
  deviceClass: 'energy',
  stateClass: 'total_increasing',
} as const;

/** register_values.py DEVICE_STATUS_DEFINITIONS (32089), the states a running site shows. */
export const DEVICE_STATUS = [
  { value: 0x0000, label: 'Standby: initializing' },
  { value: 0x0002, label: 'Standby: detecting irradiation' },
  { value: 0x0100, label: 'Starting' },
  { value: 0x0200, label: 'On-grid' },
  { value: 0x0201, label: 'Grid Connection: power limited' },
  { value: 0x0203, label: 'Off-grid mode: running' },
  { value: 0x0300, label: 'Shutdown: fault' },
  { value: 0x0301, label: 'Shutdown: command' },
] as const;

/** register_values.py StorageStatus (37762). */
export const STORAGE_STATUS = [
  { value: 0, label: 'Offline' },
  { value: 1, label: 'Standby' },
  { value: 2, label: 'Running' },
  { value: 3, label: 'Fault' },
  { value: 4, label: 'Sleep mode' },
] as const;

/** register_values.py StorageWorkingModesC (47086, "storage working mode settings"). */
export const WORKING_MODES = [
  { value: 0, label: 'Adaptive' },
  { value: 1, label: 'Fixed charge/discharge' },
  { value: 2, label: 'Maximise self consumption' },
  { value: 3, label: 'Time of use (LG)' },
  { value: 4, label: 'Fully fed to grid' },
  { value: 5, label: 'Time of use (LUNA2000)' },
] as const;

/** register_values.py MeterStatus (37100). */
export const METER_STATUS = [
  { value: 0, label: 'Offline' },
  { value: 1, label: 'Normal' },
] as const;

/** register_values.py StorageForcibleChargeDischarge (47100). */
export const FORCIBLE_COMMANDS = [
  { value: 0, label: 'Stop' },
  { value: 1, label: 'Charge' },
  { value: 2, label: 'Discharge' },
] as const;

const ON_OFF = [
  { value: 0, label: 'Disabled' },
  { value: 1, label: 'Enabled' },
] as const;

/**
 * The registers battery control writes (registers.py BATTERY_REGISTERS), kept out of the map's
 * settings: the forcible charge/discharge command and what it runs with.
 */
export const FORCIBLE = {
  /** STORAGE_FORCED_CHARGING_AND_DISCHARGING_PERIOD: U16Register("min", 1, 47083, writeable=True). */
  period: 47083,
  /** STORAGE_FORCIBLE_CHARGE_DISCHARGE_WRITE: U16Register(StorageForcibleChargeDischarge, 1, 47100, writeable=True). */
  command: 47100,
  /** STORAGE_FORCIBLE_CHARGE_DISCHARGE_SOC: U16Register("%", 10, 47101, writeable=True). */
  targetSoc: 47101,
  /** STORAGE_FORCIBLE_CHARGE_DISCHARGE_SETTING_MODE: U16Register(StorageForcibleChargeDischargeTargetMode, 1, 47246): 0 duration, 1 SOC. */
  settingMode: 47246,
  /** STORAGE_FORCIBLE_CHARGE_POWER: U32Register(None, 1, 47247, writeable=True), W. */
  chargePower: 47247,
  /** STORAGE_FORCIBLE_DISCHARGE_POWER: U32Register(None, 1, 47249, writeable=True), W. */
  dischargePower: 47249,
} as const;

/** What the driver reads once to identify the unit: model, serial and rated power. */
export const identityMap = defineRegisterMap({
  maxGap: 60,
  registers: [
    { name: 'model', displayName: 'Model', address: 30000, type: 'string', length: 15 },
    { name: 'serial', displayName: 'Serial number', address: 30015, type: 'string', length: 10 },
    { name: 'rated_power', displayName: 'Rated power', unit: 'W', address: 30073, type: 'u32' },
  ],
  references: identityReferences,
});

/**
 * One poll's registers: the PV strings, the inverter's AC side, the power meter, the battery
 * (the storage totals at 37758.., unit 1's temperature) and the battery's settings.
 */
export const huaweiMap = defineRegisterMap({
  // huawei-solar-lib const.py MAX_BATCHED_REGISTERS_GAP = 16; its batches are at most 64 long.
  maxGap: 16,
  maxCount: 64,
  registers: [
    { ...pvVoltage1!, address: 32016, type: 's16', scale: 0.1 },
    { ...pvCurrent1!, address: 32017, type: 's16', scale: 0.01 },
    { ...pvVoltage2!, address: 32018, type: 's16', scale: 0.1 },
    { ...pvCurrent2!, address: 32019, type: 's16', scale: 0.01 },
    { ...inverterMetrics.pv_power, address: 32064, type: 's32' },
    { ...inverterMetrics.grid_voltage, address: 32066, type: 'u16', scale: 0.1 },
    { ...inverterMetrics.output_power, address: 32080, type: 's32' },
    { ...inverterMetrics.grid_frequency, address: 32085, type: 'u16', scale: 0.01 },
    { ...inverterMetrics.temperature, address: 32087, type: 's16', scale: 0.1 },
    { ...inverterMetrics.device_mode, address: 32089, type: 'u16', options: DEVICE_STATUS },
    { name: 'pv_energy_total', displayName: 'Total yield', address: 32106, ...kWhHundredths },
    { ...inverterMetrics.pv_energy_today, address: 32114, type: 'u32', scale: 0.01 },
    { ...batteryMetrics.temperature, device: 'battery', address: 37022, type: 's16', scale: 0.1 },
    { name: 'meter_status', displayName: 'Power meter status', address: 37100, type: 'u16', options: METER_STATUS },
    {
      name: 'meter_voltage',
      displayName: 'Meter voltage',
      unit: 'V',
      deviceClass: 'voltage',
      stateClass: 'measurement',
      address: 37101,
      type: 's32',
      scale: 0.1,
    },
    { ...inverterMetrics.grid_power, address: 37113, type: 's32', invert: true },
    {
      name: 'grid_frequency_meter',
      displayName: 'Meter frequency',
      unit: 'Hz',
      deviceClass: 'frequency',
      stateClass: 'measurement',
      address: 37118,
      type: 's16',
      scale: 0.01,
    },
    {
      name: 'grid_export_energy_total',
      displayName: 'Grid export energy',
      address: 37119,
      ...kWhHundredths,
      type: 's32',
    },
    {
      name: 'grid_import_energy_total',
      displayName: 'Grid import energy',
      address: 37121,
      ...kWhHundredths,
      type: 's32',
    },
    {
      name: 'rated_capacity',
      displayName: 'Rated capacity',
      unit: 'kWh',
      group: 'Info',
      recorded: false,
      device: 'battery',
      address: 37758,
      type: 'u32',
      scale: 0.001,
    },
    { ...batteryMetrics.state_of_charge, device: 'battery', address: 37760, type: 'u16', scale: 0.1 },
    {
      name: 'battery_state_of_charge',
      displayName: 'Battery state of charge',
      unit: '%',
      address: 37760,
      type: 'u16',
      scale: 0.1,
    },
    {
      name: 'running_status',
      displayName: 'Running status',
      device: 'battery',
      address: 37762,
      type: 'u16',
      options: STORAGE_STATUS,
    },
    { ...batteryMetrics.voltage, device: 'battery', address: 37763, type: 'u16', scale: 0.1 },
    { ...batteryMetrics.current, device: 'battery', address: 37764, type: 's16', scale: 0.1 },
    { ...batteryMetrics.power, device: 'battery', address: 37765, type: 's32' },
    { ...inverterMetrics.battery_power, address: 37765, type: 's32' },
    { name: 'total_charge_energy', displayName: 'Total charge', device: 'battery', address: 37780, ...kWhHundredths },
    {
      name: 'total_discharge_energy',
      displayName: 'Total discharge',
      device: 'battery',
      address: 37782,
      ...kWhHundredths,
    },
    { ...inverterMetrics.battery_charge_energy_today, address: 37784, type: 'u32', scale: 0.01 },
    { ...inverterMetrics.battery_discharge_energy_today, address: 37786, type: 'u32', scale: 0.01 },
    {
      name: 'max_charging_power',
      displayName: 'Max charging power',
      unit: 'W',
      deviceClass: 'power',
      address: 47075,
      type: 'u32',
      writable: { min: 0, max: 25_000, step: 1 },
    },
    {
      name: 'max_discharging_power',
      displayName: 'Max discharging power',
      unit: 'W',
      deviceClass: 'power',
      address: 47077,
      type: 'u32',
      writable: { min: 0, max: 25_000, step: 1 },
    },
    {
      name: 'charging_cutoff_soc',
      displayName: 'End-of-charge SOC',
      unit: '%',
      address: 47081,
      type: 'u16',
      scale: 0.1,
      writeSingle: true,
      // The range Huawei's FusionSolar app offers (90..100 %).
      writable: { min: 90, max: 100, step: 0.1 },
    },
    {
      name: 'discharging_cutoff_soc',
      displayName: 'End-of-discharge SOC',
      unit: '%',
      address: 47082,
      type: 'u16',
      scale: 0.1,
      writeSingle: true,
      writable: { min: 0, max: 20, step: 0.1 },
    },
    {
      name: 'forcible_period',
      displayName: 'Forcible charge/discharge period',
      unit: 'min',
      address: 47083,
      type: 'u16',
    },
    {
      name: 'working_mode',
      displayName: 'Working mode',
      address: 47086,
      type: 'u16',
      options: WORKING_MODES,
      writable: true,
      writeSingle: true,
    },
    {
      name: 'charge_from_grid',
      displayName: 'Charge from grid',
      address: 47087,
      type: 'u16',
      options: ON_OFF,
      writable: true,
      writeSingle: true,
    },
    {
      name: 'forcible_command',
      displayName: 'Forcible charge/discharge',
      address: 47100,
      type: 'u16',
      options: FORCIBLE_COMMANDS,
    },
  ],
  derived: [
    {
      ...pvPower1!,
      derive: {
        of: ['pv_voltage_1', 'pv_current_1'],
        expression: (v) => Math.round(v.pv_voltage_1! * v.pv_current_1!),
      },
    },
    {
      ...pvPower2!,
      derive: {
        of: ['pv_voltage_2', 'pv_current_2'],
        expression: (v) => Math.round(v.pv_voltage_2! * v.pv_current_2!),
      },
    },
    {
      ...inverterMetrics.load_power,
      // The house: what the inverter gives on its AC side plus what the meter takes from the grid.
      derive: { of: ['output_power', 'grid_power'], expression: (v) => v.output_power! + v.grid_power! },
    },
  ],
  references: mapReferences,
});
