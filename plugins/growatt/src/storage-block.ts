/*
 * What both Growatt storage families share (Growatt Inverter Modbus RTU Protocol v1.24): the
 * storage block (input 1000..1124), the priority in force and the battery-first settings, the
 * signed flows derived from the device's unsigned registers, and the document's reference rows
 * for them. `register-map.ts` (SPH) and `spa-map.ts` (SPA) build their maps from it.
 */
import { batteryMetrics, inverterMetrics } from '@heliograph/plugins-sdk';
import type { DerivedEntry, RegisterEntry, RegisterReference } from '@heliograph/plugins-sdk/connections';

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

/**
 * Input 0 (SPH) and 2000 (SPA), "Inverter Status": the v1.24 table gives 0 waiting, 1 normal,
 * 3 fault. SPH units also report the system work modes of input 1000 (uwSysWorkMode: 4 flash,
 * 5 PV and battery online, 6 battery online, 7 PV offline, 8 battery offline; "0x05|0x06|0x07|0x08:
 * normal"), e.g. an SPH 4600 reporting 6 in bat on-grid operation (0xAHA/Growatt_ModbusTCP
 * issue #363): without their labels such a unit showed no mode at all.
 */
export const INVERTER_STATES = [
  { value: 0, label: 'Waiting' },
  { value: 1, label: 'Normal' },
  { value: 3, label: 'Fault' },
  { value: 4, label: 'Updating firmware' },
  { value: 5, label: 'PV and battery online' },
  { value: 6, label: 'Battery online' },
  { value: 7, label: 'PV offline (backup)' },
  { value: 8, label: 'Battery offline (backup)' },
] as const;

/** The public document the references quote: the v1.24 protocol as Growatt_ModbusTCP publishes it. */
export const V124 =
  'Growatt Inverter Modbus RTU Protocol V1.24 (0xAHA/Growatt_ModbusTCP Protocols/Growatt-Inverter-Modbus-RTU-Protocol-II-V1-24-English-new.xlsx)';

/** The labels of the options, as references carry them. */
export const labelsOf = (options: ReadonlyArray<{ value: number; label: string }>): Record<number, string> =>
  Object.fromEntries(options.map((o) => [o.value, o.label]));

/** A percentage setting in one holding word, `min`..100 %: a power rate (of the rated power), a stop SOC. */
export const percentSetting = (name: string, displayName: string, address: number, min = 0): RegisterEntry => ({
  name,
  displayName,
  unit: '%',
  table: 'holding',
  address,
  type: 'u16',
  writable: { min, max: 100, step: 1 },
});

/** A stop SOC of 10..100 % (the floor keeps a write from emptying the battery). */
export const socSetting = (name: string, displayName: string, address: number): RegisterEntry =>
  percentSetting(name, displayName, address, 10);

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
  // Signed: a battery below 0 °C reads 0xFFxx (Growatt_ModbusTCP profiles/sph.py and spa.py: 1040 'signed': True).
  { ...batteryMetrics.temperature, device: 'battery', address: 1040, type: 's16', scale: 0.1 },
  { ...inverterMetrics.grid_import_energy_today, address: 1044, ...tenths32 },
  { ...inverterMetrics.grid_export_energy_today, address: 1048, ...tenths32 },
  { ...inverterMetrics.battery_discharge_energy_today, address: 1052, ...tenths32 },
  { ...inverterMetrics.battery_charge_energy_today, address: 1056, ...tenths32 },
  { ...inverterMetrics.load_energy_today, address: 1060, ...tenths32 },
];

export const PRIORITIES = [
  { value: 0, label: 'Load first' },
  { value: 1, label: 'Battery first' },
  { value: 2, label: 'Grid first' },
] as const;
export const OFF_ON = [
  { value: 0, label: 'Off' },
  { value: 1, label: 'On' },
] as const;

/**
 * The priority in force (holding 1044, read-only: "1044 Priority ... R, 0.Load(default)/
 * 1.Battery/2.Grid"; the time slots decide it) and the battery-first settings both families
 * take (holding 1091, 1092).
 */
export const prioritySettings: readonly RegisterEntry[] = [
  {
    name: 'energy_priority',
    displayName: 'Energy priority in force',
    table: 'holding',
    address: 1044,
    type: 'u16',
    options: PRIORITIES,
  },
  socSetting('charge_stop_soc', 'Battery first: charge stop SOC', 1091),
  {
    name: 'grid_charge',
    displayName: 'Battery first: charge from the grid',
    table: 'holding',
    address: 1092,
    type: 'u16',
    options: OFF_ON,
    writable: true,
  },
];

/** A reference to the v1.24 document: `section` names its table and row. */
export const ref = (reference: Omit<RegisterReference, 'source'>, section: string): RegisterReference => ({
  ...reference,
  source: `${V124}, ${section}`,
});
const STORAGE_INPUT = 'input registers, "Ninth group for Storage power" (1000..1124)';
const power = (name: string, address: number, row: string, device?: 'battery'): RegisterReference =>
  ref(
    { name, address, type: 'u32', scale: 0.1, ...(device && { device }) },
    `${STORAGE_INPUT}: ${address} ${row} (0.1 W)`,
  );
const energy = (name: string, address: number, row: string): RegisterReference =>
  ref({ name, address, type: 'u32', scale: 0.1 }, `${STORAGE_INPUT}: ${address} ${row} (0.1 kWh)`);

/** The storage block's rows and the holding settings both families share, from the document. */
export const storageReferences: readonly RegisterReference[] = [
  power('discharge_power', 1009, 'Pdischarge1 H/L'),
  power('charge_power', 1011, 'Pcharge1 H/L'),
  power('discharge_power', 1009, 'Pdischarge1 H/L', 'battery'),
  power('charge_power', 1011, 'Pcharge1 H/L', 'battery'),
  ref(
    { name: 'voltage', device: 'battery', address: 1013, type: 'u16', scale: 0.1 },
    `${STORAGE_INPUT}: 1013 Vbat (0.1 V)`,
  ),
  ref({ name: 'state_of_charge', device: 'battery', address: 1014, type: 'u16' }, `${STORAGE_INPUT}: 1014 SOC (0-100)`),
  power('import_power', 1021, 'PactouserTotal H/L, AC power to user total'),
  power('export_power', 1029, 'Pactogrid total H/L'),
  power('load_power', 1037, 'PLocalLoad total H/L'),
  ref(
    { name: 'temperature', device: 'battery', address: 1040, type: 's16', scale: 0.1 },
    `${STORAGE_INPUT}: 1040 Battery Temperature (0.1 °C; signed as Growatt_ModbusTCP profiles/sph.py and spa.py read it)`,
  ),
  energy('grid_import_energy_today', 1044, 'Etouser_today H/L'),
  energy('grid_export_energy_today', 1048, 'Etogrid_today H/L'),
  energy('battery_discharge_energy_today', 1052, 'Edischarge1_today H/L'),
  energy('battery_charge_energy_today', 1056, 'Echarge1_today H/L'),
  energy('load_energy_today', 1060, 'ELocalLoad_Today H/L'),
  ref(
    { name: 'energy_priority', address: 1044, table: 'holding', type: 'u16', labels: labelsOf(PRIORITIES) },
    'holding registers, "Six group for Storage Power": 1044 Priority (R; 0 load, 1 battery, 2 grid first)',
  ),
  ref(
    { name: 'charge_stop_soc', address: 1091, table: 'holding', type: 'u16' },
    'holding registers, "Priority set": 1091 wBatFirst stop SOC (0-100)',
  ),
  ref(
    { name: 'grid_charge', address: 1092, table: 'holding', type: 'u16', labels: labelsOf(OFF_ON) },
    'holding registers, "Priority set": 1092 AC charge Switch (Enable 1, Disable 0)',
  ),
];

/** + import / + charging, from the device's separate unsigned registers. */
export const signedFlows: readonly DerivedEntry[] = [
  { ...inverterMetrics.grid_power, derive: { difference: ['import_power', 'export_power'] } },
  { ...inverterMetrics.battery_power, derive: { difference: ['charge_power', 'discharge_power'] } },
  { ...batteryMetrics.power, device: 'battery', derive: { difference: ['charge_power', 'discharge_power'] } },
];
