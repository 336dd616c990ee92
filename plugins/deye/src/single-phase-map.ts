/*
 * The Deye / Sunsynk single-phase hybrid's holding registers, as data: where each value
 * lives, how it is scaled, and which device of the instance it belongs to. Addresses, scales
 * and signs follow the public definitions (kellerza/sunsynk `single_phase.py`, ha-solarman
 * `deye_hybrid.yaml`), and the map carries them as its reference points (`references`), each
 * written from those documents. Signs follow Heliograph's vocabulary: the device reports
 * battery power and current + discharging, so those entries are inverted.
 */
import { batteryMetrics, inverterMetrics, pvStringMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap, type RegisterReference } from '@heliograph/plugins-sdk/connections';
import {
  gridPowerFrom,
  kWhTenths,
  pvPowerSum,
  RUNNING_STATES,
  RUNNING_STATES_SOURCE,
  settingEntries,
  temperature,
  WORK_MODE_LABELS,
  WORK_MODE_LABELS_SOURCE,
  type GridPowerSource,
} from './map-parts.js';

const [pvPower1, pvVoltage1, pvCurrent1, pvPower2, pvVoltage2, pvCurrent2] = pvStringMetrics(2);

const SUNSYNK = 'kellerza/sunsynk src/sunsynk/definitions/single_phase.py:';
const SOLARMAN = 'davidrapan/ha-solarman custom_components/solarman/inverter_definitions/deye_hybrid.yaml:';
/** kellerza/sunsynk's factor: a negative one marks a signed register, its size is the scale. */
const signed = 'a negative factor is a signed register (sensors.py Sensor.reg_to_value)';
/**
 * Deye counts battery power and current + discharging: ha-solarman's "Power losses" adds the
 * signed battery power (0x00BE) to the PV powers and subtracts the output power (0x00AF).
 */
const discharging = `+ discharging (${SOLARMAN} "Power losses" = PV1 + PV2 + signed 0x00BE - signed 0x00AF)`;

/**
 * The single-phase registers as the public documents give them. Not here: the temperatures
 * (91, 95, 182: raw x 0.1 - 100, TempSensor), which a reference cannot express (it has no offset).
 */
export const SINGLE_PHASE_REFERENCES: readonly RegisterReference[] = [
  {
    name: 'device_mode',
    address: 59,
    type: 'u16',
    labels: { 0: 'StandBy', 1: 'SelfCheck', 2: 'Normal', 3: 'Alarm', 4: 'Fault' },
    source: `${SOLARMAN} "Device State" 0x003B; ${RUNNING_STATES_SOURCE}`,
  },
  {
    name: 'battery_charge_energy_today',
    address: 70,
    type: 'u16',
    scale: 0.1,
    source: `${SUNSYNK} Sensor(70, "Day battery charge", KWH, 0.1)`,
  },
  {
    name: 'battery_discharge_energy_today',
    address: 71,
    type: 'u16',
    scale: 0.1,
    source: `${SUNSYNK} Sensor(71, "Day battery Discharge", KWH, 0.1)`,
  },
  {
    name: 'grid_import_energy_today',
    address: 76,
    type: 'u16',
    scale: 0.1,
    source: `${SUNSYNK} Sensor(76, "Day grid import", KWH, 0.1)`,
  },
  {
    name: 'grid_export_energy_today',
    address: 77,
    type: 'u16',
    scale: 0.1,
    source: `${SUNSYNK} Sensor(77, "Day grid export", KWH, 0.1)`,
  },
  {
    name: 'grid_frequency',
    address: 79,
    type: 'u16',
    scale: 0.01,
    source: `${SUNSYNK} Sensor(79, "Grid frequency", HZ, 0.01)`,
  },
  {
    name: 'load_energy_today',
    address: 84,
    type: 'u16',
    scale: 0.1,
    source: `${SUNSYNK} Sensor(84, "Day load energy", KWH, 0.1)`,
  },
  {
    name: 'pv_energy_today',
    address: 108,
    type: 'u16',
    scale: 0.1,
    source: `${SUNSYNK} Sensor(108, "Day PV energy", KWH, 0.1)`,
  },
  {
    name: 'pv_voltage_1',
    address: 109,
    type: 'u16',
    scale: 0.1,
    source: `${SUNSYNK} Sensor(109, "PV1 voltage", VOLT, 0.1)`,
  },
  {
    name: 'pv_current_1',
    address: 110,
    type: 'u16',
    scale: 0.1,
    source: `${SUNSYNK} Sensor(110, "PV1 current", AMPS, 0.1)`,
  },
  {
    name: 'pv_voltage_2',
    address: 111,
    type: 'u16',
    scale: 0.1,
    source: `${SUNSYNK} Sensor(111, "PV2 voltage", VOLT, 0.1)`,
  },
  {
    name: 'pv_current_2',
    address: 112,
    type: 'u16',
    scale: 0.1,
    source: `${SUNSYNK} Sensor(112, "PV2 current", AMPS, 0.1)`,
  },
  {
    name: 'grid_voltage',
    address: 150,
    type: 'u16',
    scale: 0.1,
    source: `${SUNSYNK} Sensor(150, "Grid voltage", VOLT, 0.1)`,
  },
  {
    name: 'output_voltage',
    address: 154,
    type: 'u16',
    scale: 0.1,
    source: `${SUNSYNK} Sensor(154, "Inverter voltage", VOLT, 0.1)`,
  },
  {
    name: 'grid_power_port',
    address: 169,
    type: 's16',
    source: `${SUNSYNK} Sensor(169, "Grid power", WATT, -1), ${signed}; + import: "Essential power" = 175 + 169 - 166`,
  },
  {
    name: 'grid_power_ct',
    address: 172,
    type: 's16',
    source: `${SUNSYNK} Sensor(172, "Grid CT power", WATT, -1), ${signed}; + import as 169`,
  },
  {
    name: 'output_power',
    address: 175,
    type: 's16',
    source: `${SUNSYNK} Sensor(175, "Inverter power", WATT, -1), ${signed}`,
  },
  {
    name: 'load_power',
    address: 178,
    type: 's16',
    source: `${SUNSYNK} Sensor(178, "Load power", WATT, -1), ${signed}`,
  },
  {
    name: 'pv_power_1',
    address: 186,
    type: 's16',
    source: `${SUNSYNK} Sensor(186, "PV1 power", WATT, -1), ${signed}`,
  },
  {
    name: 'pv_power_2',
    address: 187,
    type: 's16',
    source: `${SUNSYNK} Sensor(187, "PV2 power", WATT, -1), ${signed}`,
  },
  {
    name: 'battery_power',
    address: 190,
    type: 's16',
    opposite: true,
    source: `${SUNSYNK} Sensor(190, "Battery power", WATT, -1), ${signed}; ${discharging}`,
  },
  {
    name: 'output_frequency',
    address: 193,
    type: 'u16',
    scale: 0.01,
    source: `${SUNSYNK} Sensor(193, "Inverter frequency", HZ, 0.01)`,
  },
  {
    name: 'grid_connected',
    address: 194,
    type: 'u16',
    labels: { 0: 'No', 1: 'Yes' },
    source: `${SUNSYNK} BinarySensor(194, "Grid connected"): 0 off, on otherwise (${SOLARMAN} "Grid" 0x00C2)`,
  },
  {
    name: 'voltage',
    device: 'battery',
    address: 183,
    type: 'u16',
    scale: 0.01,
    source: `${SUNSYNK} Sensor(183, "Battery voltage", VOLT, 0.01)`,
  },
  {
    name: 'state_of_charge',
    device: 'battery',
    address: 184,
    type: 'u16',
    source: `${SUNSYNK} Sensor(184, "Battery SOC", "%")`,
  },
  {
    name: 'power',
    device: 'battery',
    address: 190,
    type: 's16',
    opposite: true,
    source: `${SUNSYNK} Sensor(190, "Battery power", WATT, -1), ${signed}; ${discharging}`,
  },
  {
    name: 'current',
    device: 'battery',
    address: 191,
    type: 's16',
    scale: 0.01,
    opposite: true,
    source: `${SUNSYNK} Sensor(191, "Battery current", AMPS, -0.01), ${signed}; the direction of 190`,
  },
  {
    name: 'max_charge_current',
    address: 210,
    type: 'u16',
    source: `${SUNSYNK} NumberRWSensor(210, "Battery Max Charge current", AMPS, min=0, max=185)`,
  },
  {
    name: 'max_discharge_current',
    address: 211,
    type: 'u16',
    source: `${SUNSYNK} NumberRWSensor(211, "Battery Max Discharge current", AMPS, min=0, max=185)`,
  },
  {
    name: 'grid_charge_current',
    address: 230,
    type: 'u16',
    source: `${SUNSYNK} NumberRWSensor(230, "Grid Charge Battery current", AMPS, min=0, max=185)`,
  },
  {
    name: 'energy_priority',
    address: 243,
    type: 'u16',
    labels: { 0: 'Battery First', 1: 'Load First' },
    source: `${SOLARMAN} "Energy Pattern" 0x00F3 (${SUNSYNK} SwitchRWSensor(243, "Priority Load"): 0 battery first, 1 load first)`,
  },
  {
    name: 'work_mode',
    address: 244,
    type: 'u16',
    labels: WORK_MODE_LABELS,
    source: `${SOLARMAN} "Work Mode" 0x00F4 (${SUNSYNK} SelectRWSensor(244, "Load Limit")); labels: ${WORK_MODE_LABELS_SOURCE}`,
  },
  {
    name: 'max_sell_power',
    address: 245,
    type: 'u16',
    source: `${SUNSYNK} NumberRWSensor(245, "Max Sell power", WATT, 1, min=0, max=RATED_POWER)`,
  },
];

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
      // Signed, as kellerza/sunsynk reads them (ha-solarman reads them unsigned): a unit that
      // reports a few watts below zero at dusk reads -3 W, not 65533 W.
      { ...pvPower1!, address: 186, type: 's16' },
      { ...pvPower2!, address: 187, type: 's16' },
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
    references: SINGLE_PHASE_REFERENCES,
  });
}
