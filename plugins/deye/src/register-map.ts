/*
 * The Deye / Sunsynk single-phase hybrid's holding registers, as data: where each value
 * lives, how it is scaled, and which device of the instance it belongs to. Addresses, scales
 * and signs follow the public definitions (kellerza/sunsynk `single_phase.py`, ha-solarman
 * `deye_hybrid.yaml`). Signs follow Heliograph's vocabulary: the device reports battery power
 * and current + discharging, so those entries are inverted.
 */
import { batteryMetrics, inverterMetrics, pvStringMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap, type DerivedEntry, type RegisterEntry } from '@heliograph/plugins-sdk/connections';

const [pvPower1, pvVoltage1, pvCurrent1, pvPower2, pvVoltage2, pvCurrent2] = pvStringMetrics(2);

/** Temperatures are stored as tenths of a degree plus 1000: (raw − 1000) × 0.1 °C. */
export const temperature = { type: 'u16', scale: 0.1, offset: -100 } as const;
/** Today's energy counters: u16 in tenths of a kWh. */
export const kWhTenths = { type: 'u16', scale: 0.1 } as const;

/** A battery current limit in A, 0..`max`. */
export const amps = (address: number, name: string, displayName: string, max = 185): RegisterEntry => ({
  name,
  displayName,
  unit: 'A',
  address,
  type: 'u16',
  writable: { min: 0, max, step: 1 },
});

/** What the running-state register (59; 500 on three-phase units) reads as. */
export const RUNNING_STATES = [
  { value: 0, label: 'Standby' },
  { value: 1, label: 'Self-check' },
  { value: 2, label: 'Normal' },
  { value: 3, label: 'Alarm' },
  { value: 4, label: 'Fault' },
  { value: 5, label: 'Activating' },
] as const;

/** Where grid power comes from: the external CT where one is fitted, else the inverter's grid port. */
export type GridPowerSource = 'auto' | 'ct' | 'inverter';

/** The writable settings every model has, at its own addresses. */
export function settingEntries(
  at: {
    maxCharge: number;
    maxDischarge: number;
    gridCharge: number;
    priority: number;
    workMode: number;
    maxSell: number;
  },
  { ratedW, maxAmps = 185, sellScale = 1 }: { ratedW: number; maxAmps?: number; sellScale?: number },
): RegisterEntry[] {
  return [
    amps(at.maxCharge, 'max_charge_current', 'Max charge current', maxAmps),
    amps(at.maxDischarge, 'max_discharge_current', 'Max discharge current', maxAmps),
    amps(at.gridCharge, 'grid_charge_current', 'Grid charge current'),
    {
      name: 'energy_priority',
      displayName: 'Energy priority',
      address: at.priority,
      type: 'u16',
      options: [
        { value: 0, label: 'Battery first' },
        { value: 1, label: 'Load first' },
      ],
      writable: true,
    },
    {
      name: 'work_mode',
      displayName: 'Work mode',
      address: at.workMode,
      type: 'u16',
      options: [
        { value: 0, label: 'Selling first' },
        { value: 1, label: 'Zero export to load' },
        { value: 2, label: 'Zero export to CT' },
      ],
      writable: true,
    },
    {
      name: 'max_sell_power',
      displayName: 'Max sell power',
      unit: 'W',
      deviceClass: 'power',
      address: at.maxSell,
      type: 'u16',
      scale: sellScale,
      // The unit's rated power (registers 16/17, 20/21 on three-phase units) bounds it.
      writable: { min: 0, max: ratedW, step: 10 * sellScale },
    },
  ];
}

/** pv_power: the sum of the strings. */
export const pvPowerSum = (strings: number): DerivedEntry => ({
  ...inverterMetrics.pv_power,
  derive: { sum: Array.from({ length: strings }, (_, i) => `pv_power_${i + 1}`) },
});

/** Grid power from the CT (`ct`) or the grid port (`port`) as `source` says; `auto` takes the CT once it reads non-zero. */
export function gridPowerFrom(source: GridPowerSource): DerivedEntry {
  let ctSeen = source === 'ct';
  return {
    ...inverterMetrics.grid_power,
    derive: {
      of: ['grid_power_ct', 'grid_power_port'],
      expression: ({ grid_power_ct: ct, grid_power_port: port }) => {
        if (source === 'auto' && ct !== 0) ctSeen = true;
        return source !== 'inverter' && ctSeen ? ct! : port!;
      },
    },
  };
}

/**
 * Everything one poll of a single-phase hybrid reads: live values, today's counters and the
 * writable settings (their current values come back with every poll). `ratedW` (registers
 * 16/17) bounds the max sell power.
 */
export function singlePhaseMap({ ratedW, gridPowerSource }: { ratedW: number; gridPowerSource: GridPowerSource }) {
  return defineRegisterMap({
    maxGap: 16,
    registers: [
      { ...inverterMetrics.device_mode, address: 59, type: 'u16', options: RUNNING_STATES },
      { ...inverterMetrics.battery_charge_energy_today, address: 70, ...kWhTenths },
      { ...inverterMetrics.battery_discharge_energy_today, address: 71, ...kWhTenths },
      { ...inverterMetrics.grid_import_energy_today, address: 76, ...kWhTenths },
      { ...inverterMetrics.grid_export_energy_today, address: 77, ...kWhTenths },
      { ...inverterMetrics.grid_frequency, address: 79, type: 'u16', scale: 0.01 },
      { ...inverterMetrics.load_energy_today, address: 84, ...kWhTenths },
      { ...inverterMetrics.temperature, address: 91, ...temperature },
      {
        name: 'environment_temperature',
        displayName: 'Environment temperature',
        unit: '°C',
        deviceClass: 'temperature',
        stateClass: 'measurement',
        address: 95,
        ...temperature,
      },
      { ...inverterMetrics.pv_energy_today, address: 108, ...kWhTenths },
      { ...pvVoltage1!, address: 109, type: 'u16', scale: 0.1 },
      { ...pvCurrent1!, address: 110, type: 'u16', scale: 0.1 },
      { ...pvVoltage2!, address: 111, type: 'u16', scale: 0.1 },
      { ...pvCurrent2!, address: 112, type: 'u16', scale: 0.1 },
      { ...inverterMetrics.grid_voltage, address: 150, type: 'u16', scale: 0.1 },
      { ...inverterMetrics.output_voltage, address: 154, type: 'u16', scale: 0.1 },
      // The device's sign is already + import, on its grid port (169) and on the external CT (172).
      { name: 'grid_power_port', displayName: 'Grid port power', address: 169, type: 's16', internal: true },
      { name: 'grid_power_ct', displayName: 'Grid CT power', address: 172, type: 's16', internal: true },
      { ...inverterMetrics.output_power, address: 175, type: 's16' },
      { ...inverterMetrics.load_power, address: 178, type: 's16' },
      { ...pvPower1!, address: 186, type: 'u16' },
      { ...pvPower2!, address: 187, type: 'u16' },
      { ...inverterMetrics.battery_power, address: 190, type: 's16', invert: true },
      {
        name: 'output_frequency',
        displayName: 'Output frequency',
        unit: 'Hz',
        deviceClass: 'frequency',
        stateClass: 'measurement',
        address: 193,
        type: 'u16',
        scale: 0.01,
      },
      {
        name: 'grid_connected',
        displayName: 'Grid connected',
        address: 194,
        type: 'u16',
        options: [
          { value: 0, label: 'No' },
          { value: 1, label: 'Yes' },
        ],
      },
      { ...batteryMetrics.temperature, device: 'battery', address: 182, ...temperature },
      { ...batteryMetrics.voltage, device: 'battery', address: 183, type: 'u16', scale: 0.01 },
      { ...batteryMetrics.state_of_charge, device: 'battery', address: 184, type: 'u16' },
      { ...batteryMetrics.power, device: 'battery', address: 190, type: 's16', invert: true },
      { ...batteryMetrics.current, device: 'battery', address: 191, type: 's16', scale: 0.01, invert: true },
      ...settingEntries(
        { maxCharge: 210, maxDischarge: 211, gridCharge: 230, priority: 243, workMode: 244, maxSell: 245 },
        { ratedW },
      ),
    ],
    derived: [pvPowerSum(2), gridPowerFrom(gridPowerSource)],
  });
}
