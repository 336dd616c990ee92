/*
 * The Deye / Sunsynk single-phase hybrid's holding registers (wire format in
 * shared/reference/providers.md), as data: where each value lives, how it is scaled, and
 * which device of the instance it belongs to. Signs follow Heliograph's vocabulary: the
 * device reports battery power and current + discharging, so those entries are inverted.
 */
import { batteryMetrics, inverterMetrics, pvStringMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap, type RegisterEntry } from '@heliograph/plugins-sdk/connections';

const [pvPower1, pvVoltage1, pvCurrent1, pvPower2, pvVoltage2, pvCurrent2] = pvStringMetrics(2);

/** Temperatures are stored as tenths of a degree plus 1000: (raw − 1000) × 0.1 °C. */
const temperature = { type: 'u16', scale: 0.1, offset: -100 } as const;
/** Today's energy counters: u16 in tenths of a kWh. */
const kWhTenths = { type: 'u16', scale: 0.1 } as const;
/** Current limits in A; the device takes 0..185. */
const amps = (address: number, name: string, displayName: string): RegisterEntry => ({
  name,
  displayName,
  unit: 'A',
  address,
  type: 'u16',
  writable: { min: 0, max: 185, step: 1 },
});

/** What the running-state register (59) reads as. */
export const RUNNING_STATES = [
  { value: 0, label: 'Standby' },
  { value: 1, label: 'Self-check' },
  { value: 2, label: 'Normal' },
  { value: 3, label: 'Alarm' },
  { value: 4, label: 'Fault' },
] as const;

/**
 * Everything one poll reads: live values, today's counters and the writable settings (their
 * current values come back with every poll).
 */
export const deyeMap = defineRegisterMap({
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
    { ...inverterMetrics.pv_energy_today, address: 108, ...kWhTenths },
    { ...pvVoltage1!, address: 109, type: 'u16', scale: 0.1 },
    { ...pvCurrent1!, address: 110, type: 'u16', scale: 0.1 },
    { ...pvVoltage2!, address: 111, type: 'u16', scale: 0.1 },
    { ...pvCurrent2!, address: 112, type: 'u16', scale: 0.1 },
    { ...inverterMetrics.grid_voltage, address: 150, type: 'u16', scale: 0.1 },
    { ...inverterMetrics.grid_power, address: 169, type: 's16' }, // the device's sign is already + import
    { ...inverterMetrics.output_power, address: 175, type: 's16' },
    { ...inverterMetrics.load_power, address: 178, type: 'u16' },
    { ...pvPower1!, address: 186, type: 'u16' },
    { ...pvPower2!, address: 187, type: 'u16' },
    { ...inverterMetrics.battery_power, address: 190, type: 's16', invert: true },
    { ...batteryMetrics.temperature, device: 'battery', address: 182, ...temperature },
    { ...batteryMetrics.voltage, device: 'battery', address: 183, type: 'u16', scale: 0.01 },
    { ...batteryMetrics.state_of_charge, device: 'battery', address: 184, type: 'u16' },
    { ...batteryMetrics.power, device: 'battery', address: 190, type: 's16', invert: true },
    { ...batteryMetrics.current, device: 'battery', address: 191, type: 's16', scale: 0.01, invert: true },
    amps(210, 'max_charge_current', 'Max charge current'),
    amps(211, 'max_discharge_current', 'Max discharge current'),
    amps(230, 'grid_charge_current', 'Grid charge current'),
    {
      name: 'energy_priority',
      displayName: 'Energy priority',
      address: 243,
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
      address: 244,
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
      address: 245,
      type: 'u16',
      writable: { min: 0, max: 12000, step: 10 },
    },
  ],
});

/** Read once per connection: the device type (register 0) and the serial number (3..7). */
export const identityMap = defineRegisterMap({
  registers: [
    {
      name: 'model',
      displayName: 'Model',
      address: 0,
      type: 'u16',
      options: [
        { value: 2, label: 'String inverter' },
        { value: 3, label: 'Single-phase hybrid' },
        { value: 4, label: 'Microinverter' },
        { value: 5, label: 'Three-phase hybrid (LV)' },
        { value: 6, label: 'Three-phase hybrid (HV)' },
      ],
    },
    { name: 'serial', displayName: 'Serial number', address: 3, type: 'string', length: 5 },
  ],
});
