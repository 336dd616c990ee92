/*
 * The Growatt storage inverters' registers (Growatt Inverter Modbus RTU Protocol v1.20/v1.24).
 * Both families share the storage block (input 1000..1124: battery, grid and load flows and
 * today's energy) and the priority settings (holding 1044, 1091, 1092); they differ in where
 * the inverter's own values live. The SPH hybrid answers input 0..124 (PV and AC, as
 * OpenInverterGateway's SPH register notes and the sdm_modbus-based Growatt SPH map transcribe
 * it); the SPA (AC-coupled, no PV inputs) answers 2000..2124 instead (`spa-map.ts`). The
 * device reports battery charge and discharge power, and grid import and export power, in
 * separate unsigned registers: they are internal entries, and the signed standard values are
 * derived from them.
 */
import { batteryMetrics, inverterMetrics, pvStringMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap, type DerivedEntry, type RegisterEntry } from '@heliograph/plugins-sdk/connections';

const [pvPower1, pvVoltage1, pvCurrent1, pvPower2, pvVoltage2, pvCurrent2] = pvStringMetrics(2);

/** A u32 in tenths (W or kWh), high word first as Growatt sends it. */
export const tenths32 = { type: 'u32', scale: 0.1 } as const;

/** Internal power registers (W, u32 in tenths) on one device. */
const internalPower = (name: string, address: number, device: 'inverter' | 'battery'): RegisterEntry => ({
  name,
  displayName: name,
  unit: 'W',
  address,
  device,
  internal: true,
  ...tenths32,
});

export const INVERTER_STATES = [
  { value: 0, label: 'Waiting' },
  { value: 1, label: 'Normal' },
  { value: 3, label: 'Fault' },
] as const;

/** A percentage setting of 10..100 % (the floor keeps a write from emptying the battery). */
export const socSetting = (name: string, displayName: string, address: number): RegisterEntry => ({
  name,
  displayName,
  unit: '%',
  table: 'holding',
  address,
  type: 'u16',
  writable: { min: 10, max: 100, step: 1 },
});

/**
 * The storage block both families answer (input 1009..1060, protocol v1.24): Pdischarge1
 * 1009, Pcharge1 1011, Vbat 1013, SOC 1014, Pactouser total 1021, Pactogrid total 1029,
 * PLocalLoad total 1037 (u32 in 0.1 W) and today's energy 1044..1060 (u32 in 0.1 kWh).
 */
export const storageRegisters: readonly RegisterEntry[] = [
  internalPower('discharge_power', 1009, 'inverter'),
  internalPower('charge_power', 1011, 'inverter'),
  internalPower('discharge_power', 1009, 'battery'),
  internalPower('charge_power', 1011, 'battery'),
  { ...batteryMetrics.voltage, device: 'battery', address: 1013, type: 'u16', scale: 0.1 },
  { ...batteryMetrics.state_of_charge, device: 'battery', address: 1014, type: 'u16' },
  internalPower('import_power', 1021, 'inverter'),
  internalPower('export_power', 1029, 'inverter'),
  { ...inverterMetrics.load_power, address: 1037, ...tenths32 },
  { ...inverterMetrics.grid_import_energy_today, address: 1044, ...tenths32 },
  { ...inverterMetrics.grid_export_energy_today, address: 1048, ...tenths32 },
  { ...inverterMetrics.battery_discharge_energy_today, address: 1052, ...tenths32 },
  { ...inverterMetrics.battery_charge_energy_today, address: 1056, ...tenths32 },
  { ...inverterMetrics.load_energy_today, address: 1060, ...tenths32 },
];

/** The priority settings both families take (holding 1044, 1091, 1092). */
export const prioritySettings: readonly RegisterEntry[] = [
  {
    name: 'energy_priority',
    displayName: 'Energy priority',
    table: 'holding',
    address: 1044,
    type: 'u16',
    options: [
      { value: 0, label: 'Load first' },
      { value: 1, label: 'Battery first' },
      { value: 2, label: 'Grid first' },
    ],
    writable: true,
  },
  socSetting('charge_stop_soc', 'Battery first: charge stop SOC', 1091),
  {
    name: 'grid_charge',
    displayName: 'Battery first: charge from the grid',
    table: 'holding',
    address: 1092,
    type: 'u16',
    options: [
      { value: 0, label: 'Off' },
      { value: 1, label: 'On' },
    ],
    writable: true,
  },
];

/** + import / + charging, from the device's separate unsigned registers. */
export const signedFlows: readonly DerivedEntry[] = [
  { ...inverterMetrics.grid_power, derive: { difference: ['import_power', 'export_power'] } },
  { ...inverterMetrics.battery_power, derive: { difference: ['charge_power', 'discharge_power'] } },
  { ...batteryMetrics.power, device: 'battery', derive: { difference: ['charge_power', 'discharge_power'] } },
];

/** The SPH hybrid: PV and AC in input 0..124, the storage block, the SOC floor at holding 608. */
export const sphMap = defineRegisterMap({
  table: 'input',
  maxGap: 12,
  registers: [
    { ...inverterMetrics.device_mode, address: 0, type: 'u16', options: INVERTER_STATES },
    { ...inverterMetrics.pv_power, address: 1, ...tenths32 },
    { ...pvVoltage1!, address: 3, type: 'u16', scale: 0.1 },
    { ...pvCurrent1!, address: 4, type: 'u16', scale: 0.1 },
    { ...pvPower1!, address: 5, ...tenths32 },
    { ...pvVoltage2!, address: 7, type: 'u16', scale: 0.1 },
    { ...pvCurrent2!, address: 8, type: 'u16', scale: 0.1 },
    { ...pvPower2!, address: 9, ...tenths32 },
    { ...inverterMetrics.output_power, address: 35, ...tenths32 },
    { ...inverterMetrics.grid_frequency, address: 37, type: 'u16', scale: 0.01 },
    { ...inverterMetrics.grid_voltage, address: 38, type: 'u16', scale: 0.1 },
    { ...inverterMetrics.temperature, address: 93, type: 'u16', scale: 0.1 },
    ...storageRegisters,
    { ...batteryMetrics.temperature, device: 'battery', address: 1089, type: 'u16', scale: 0.1 },
    socSetting('min_soc', 'Discharge stop SOC', 608),
    ...prioritySettings,
  ],
  derived: [...signedFlows],
});

/** Read once: the serial number (holding 23..27) and the device type code (DTC, holding 43). */
export const identityMap = defineRegisterMap({
  registers: [
    { name: 'serial', displayName: 'Serial number', address: 23, type: 'string', length: 5 },
    { name: 'device_type', displayName: 'Device type code', address: 43, type: 'u16' },
  ],
});
