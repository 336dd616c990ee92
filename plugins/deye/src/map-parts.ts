/*
 * The pieces the Deye / Sunsynk register maps share (single-phase: single-phase-map.ts,
 * three-phase: three-phase-map.ts): encodings, the running states, the writable settings every
 * model has at its own addresses, and the derived PV and grid powers.
 */
import { inverterMetrics } from '@heliograph/plugins-sdk';
import type { DerivedEntry, RegisterEntry } from '@heliograph/plugins-sdk/connections';

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

/** The running state's labels as a public library names them (the driver's labels, in other case). */
export const RUNNING_STATES_SOURCE = 'githubDante/deye-controller deye_controller/modbus/enums.py: InverterState';

/** The work mode's labels as ha-solarman first named them; value 0 is "Export First" there since its commit 2234edc. */
export const WORK_MODE_LABELS = { 0: 'Selling First', 1: 'Zero Export To Load', 2: 'Zero Export To CT' } as const;
export const WORK_MODE_LABELS_SOURCE =
  'davidrapan/ha-solarman commit af414be, deye_sg04lp3.yaml "Work Mode" 0x008E: 0 "Selling First", 1 "Zero Export To Load", 2 "Zero Export To CT"';

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
