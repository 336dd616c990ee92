/*
 * The Growatt SPH hybrid's registers (Growatt Inverter Modbus RTU Protocol v1.20/v1.24, as
 * transcribed by public projects: OpenInverterGateway's SPH register notes and the
 * sdm_modbus-based Growatt SPH map): input registers 0..124 (PV and AC) and 1000..1124
 * (storage), holding registers for identity and settings. The device reports battery charge
 * and discharge power, and grid import and export power, in separate unsigned registers:
 * they are internal entries, and the signed standard values are derived from them.
 */
import { batteryMetrics, inverterMetrics, pvStringMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap, type RegisterEntry } from '@heliograph/plugins-sdk/connections';

const [pvPower1, pvVoltage1, pvCurrent1, pvPower2, pvVoltage2, pvCurrent2] = pvStringMetrics(2);

/** A u32 in tenths (W or kWh), high word first as Growatt sends it. */
const tenths32 = { type: 'u32', scale: 0.1 } as const;

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

export const growattMap = defineRegisterMap({
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
    { ...batteryMetrics.temperature, device: 'battery', address: 1089, type: 'u16', scale: 0.1 },
    {
      name: 'min_soc',
      displayName: 'Discharge stop SOC',
      unit: '%',
      table: 'holding',
      address: 608,
      type: 'u16',
      writable: { min: 10, max: 100, step: 1 },
    },
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
    {
      name: 'charge_stop_soc',
      displayName: 'Battery first: charge stop SOC',
      unit: '%',
      table: 'holding',
      address: 1091,
      type: 'u16',
      writable: { min: 10, max: 100, step: 1 },
    },
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
  ],
  derived: [
    // + import / + charging, from the device's separate unsigned registers.
    { ...inverterMetrics.grid_power, derive: { difference: ['import_power', 'export_power'] } },
    { ...inverterMetrics.battery_power, derive: { difference: ['charge_power', 'discharge_power'] } },
    { ...batteryMetrics.power, device: 'battery', derive: { difference: ['charge_power', 'discharge_power'] } },
  ],
});

/** Read once: the serial number (holding 23..27). */
export const identityMap = defineRegisterMap({
  registers: [{ name: 'serial', displayName: 'Serial number', address: 23, type: 'string', length: 5 }],
});
