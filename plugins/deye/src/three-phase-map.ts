/*
 * The Deye / Sunsynk three-phase hybrids' holding registers: the low-voltage (48 V battery,
 * SG04LP3 / SG05LP3 ...) and high-voltage (SG01HP3 / SG02HP3 ...) families share one layout
 * from register 500 on, the HV units counting PV and battery power in tens of watts and
 * battery voltage in tenths of a volt. From the public definitions (kellerza/sunsynk
 * `three_phase_common.py`, `three_phase_lv.py`, `three_phase_hv.py`; ha-solarman
 * `deye_p3.yaml`), which the map carries as its reference points (`references`). Their
 * settings live at 108..143, not where the single-phase units have theirs.
 */
import { batteryMetrics, inverterMetrics, pvStringMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap, type RegisterEntry, type RegisterReference } from '@heliograph/plugins-sdk/connections';
import {
  kWhTenths,
  pvPowerSum,
  RUNNING_STATES,
  RUNNING_STATES_SOURCE,
  settingEntries,
  temperature,
  WORK_MODE_LABELS,
  WORK_MODE_LABELS_SOURCE,
} from './map-parts.js';

const [pvPower1, pvVoltage1, pvCurrent1, pvPower2, pvVoltage2, pvCurrent2] = pvStringMetrics(2);

const COMMON = 'kellerza/sunsynk src/sunsynk/definitions/three_phase_common.py:';
const LV = 'kellerza/sunsynk src/sunsynk/definitions/three_phase_lv.py:';
const HV = 'kellerza/sunsynk src/sunsynk/definitions/three_phase_hv.py:';
const SOLARMAN = 'davidrapan/ha-solarman custom_components/solarman/inverter_definitions/deye_p3.yaml:';
/** kellerza/sunsynk's factor: a negative one marks a signed register, its size is the scale. */
const signed = 'a negative factor is a signed register (sensors.py Sensor.reg_to_value)';
/**
 * A power kellerza/sunsynk reads as Sensor16((low, high)): the low word alone, signed, on the
 * units whose high word is not in use (ha-solarman: "S16bit (low 16 bits) + S16bit (high 16 bits)").
 */
const low16 = 'read as its signed low word (Sensor16 falls back to the 16-bit value)';
/**
 * Deye counts battery power and current + discharging: ha-solarman's "Power losses" adds the
 * signed battery power to the PV powers and subtracts the output power.
 */
const discharging = `+ discharging (${SOLARMAN} "Power losses" = signed 0x024E + PV1..PV4 - signed 0x027C)`;

const kWh = (name: string, address: number, label: string): RegisterReference => ({
  name,
  address,
  type: 'u16',
  scale: 0.1,
  source: `${COMMON} Sensor(${address}, "${label}", KWH, 0.1)`,
});

const tenths = (name: string, address: number, label: string, unit: 'VOLT' | 'AMPS'): RegisterReference => ({
  name,
  address,
  type: 'u16',
  scale: 0.1,
  source: `${COMMON} Sensor(${address}, "${label}", ${unit}, 0.1)`,
});

const power = (name: string, address: number, high: number, label: string, note = ''): RegisterReference => ({
  name,
  address,
  type: 's16',
  source: `${COMMON} Sensor16((${address}, ${high}), "${label}", WATT, -1), ${low16}${note}`,
});

const amps = (name: string, address: number, label: string, max: number): RegisterReference => ({
  name,
  address,
  type: 'u16',
  source: `${COMMON} NumberRWSensor(${address}, "${label}", AMPS, max=${max})`,
});

/** The battery's registers: `three_phase_lv.py` and `three_phase_hv.py` give them apart (HV: "Battery 1 ..."). */
function batteryReferences(hv: boolean): RegisterReference[] {
  const [file, one] = hv ? [HV, ' 1'] : [LV, ''];
  const batteryPower = {
    address: 590,
    type: 's16',
    scale: hv ? 10 : 1,
    opposite: true,
    source: `${file} Sensor(590, "Battery${one} power", WATT, ${hv ? -10 : -1}), ${signed}; ${discharging}`,
  } as const;
  return [
    {
      name: 'voltage',
      device: 'battery',
      address: 587,
      type: 'u16',
      scale: hv ? 0.1 : 0.01,
      source: `${file} Sensor(587, "Battery${one} voltage", VOLT, ${hv ? 0.1 : 0.01})`,
    },
    {
      name: 'state_of_charge',
      device: 'battery',
      address: 588,
      type: 'u16',
      source: `${file} Sensor(588, "Battery${one} SOC", "%")`,
    },
    { name: 'power', device: 'battery', ...batteryPower },
    {
      name: 'current',
      device: 'battery',
      address: 591,
      type: 's16',
      scale: 0.01,
      opposite: true,
      source: `${file} Sensor(591, "Battery${one} current", AMPS, -0.01), ${signed}; the direction of 590`,
    },
    { name: 'battery_power', ...batteryPower },
  ];
}

/** PV power: signed watts on LV units (`three_phase_common.py`), tens of watts on HV units (`three_phase_hv.py`). */
const pvPower = (n: number, address: number, hv: boolean): RegisterReference =>
  hv
    ? {
        name: `pv_power_${n}`,
        address,
        type: 'u16',
        scale: 10,
        source: `${HV} Sensor(${address}, "PV${n} power", WATT, 10)`,
      }
    : {
        name: `pv_power_${n}`,
        address,
        type: 's16',
        source: `${COMMON} Sensor(${address}, "PV${n} power", WATT, -1), ${signed}`,
      };

/** The settings the driver writes; the export limit in tens of watts on HV units. */
function settingReferences(hv: boolean): RegisterReference[] {
  return [
    amps('max_charge_current', 108, 'Battery Max Charge current', 240),
    amps('max_discharge_current', 109, 'Battery Max Discharge current', 240),
    amps('grid_charge_current', 128, 'Grid Charge Battery current', 185),
    {
      name: 'energy_priority',
      address: 141,
      type: 'u16',
      labels: { 0: 'Battery First', 1: 'Load First' },
      source: `${SOLARMAN} "Energy Pattern" 0x008D (${COMMON} SwitchRWSensor(141, "Priority Load"))`,
    },
    {
      name: 'work_mode',
      address: 142,
      type: 'u16',
      labels: WORK_MODE_LABELS,
      source: `${WORK_MODE_LABELS_SOURCE} (now deye_p3.yaml; ${COMMON} SelectRWSensor(142, "Load Limit"))`,
    },
    {
      name: 'max_sell_power',
      address: 143,
      type: 'u16',
      scale: hv ? 10 : 1,
      source: hv
        ? `${HV} NumberRWSensor(143, "Export Limit power", WATT, 10, max=RATED_POWER)`
        : `${COMMON} NumberRWSensor(143, "Export Limit power", WATT, max=RATED_POWER)`,
    },
  ];
}

/**
 * The three-phase registers as the public documents give them (`hv`: the high-voltage units'
 * scales). Not here: the temperatures (541, 586: raw x 0.1 - 100, TempSensor), which a
 * reference cannot express (it has no offset).
 */
export function threePhaseReferences(hv: boolean): RegisterReference[] {
  return [
    {
      name: 'device_mode',
      address: 500,
      type: 'u16',
      labels: { 0: 'StandBy', 1: 'SelfCheck', 2: 'Normal', 3: 'Alarm', 4: 'Fault' },
      source: `${SOLARMAN} "Device State" 0x01F4; ${RUNNING_STATES_SOURCE}`,
    },
    kWh('battery_charge_energy_today', 514, 'Day Battery Charge'),
    kWh('battery_discharge_energy_today', 515, 'Day Battery discharge'),
    kWh('grid_import_energy_today', 520, 'Day Grid Import'),
    kWh('grid_export_energy_today', 521, 'Day Grid Export'),
    kWh('load_energy_today', 526, 'Day Load Energy'),
    kWh('pv_energy_today', 529, 'Day PV Energy'),
    ...batteryReferences(hv),
    tenths('grid_voltage', 598, 'Grid L1 voltage', 'VOLT'),
    tenths('grid_voltage_l2', 599, 'Grid L2 voltage', 'VOLT'),
    tenths('grid_voltage_l3', 600, 'Grid L3 voltage', 'VOLT'),
    {
      name: 'grid_frequency',
      address: 609,
      type: 'u16',
      scale: 0.01,
      source: `${COMMON} Sensor(609, "Grid frequency", HZ, 0.01)`,
    },
    power('grid_power_l1', 622, 687, 'Grid L1 power'),
    power('grid_power_l2', 623, 688, 'Grid L2 power'),
    power('grid_power_l3', 624, 689, 'Grid L3 power'),
    power(
      'grid_power',
      625,
      690,
      'Grid power',
      `; + import as the external CT's (${SOLARMAN} "Load Power" = 0x027C + 0x026B)`,
    ),
    tenths('output_voltage', 627, 'Inverter L1 voltage', 'VOLT'),
    power('output_power', 636, 694, 'Inverter power'),
    power('load_power', 653, 659, 'Load power'),
    pvPower(1, 672, hv),
    pvPower(2, 673, hv),
    tenths('pv_voltage_1', 676, 'PV1 voltage', 'VOLT'),
    tenths('pv_current_1', 677, 'PV1 current', 'AMPS'),
    tenths('pv_voltage_2', 678, 'PV2 voltage', 'VOLT'),
    tenths('pv_current_2', 679, 'PV2 current', 'AMPS'),
    ...settingReferences(hv),
  ];
}

const phaseVoltage = (n: number, address: number): RegisterEntry => ({
  name: `grid_voltage_l${n}`,
  displayName: `Grid voltage L${n}`,
  unit: 'V',
  deviceClass: 'voltage',
  stateClass: 'measurement',
  address,
  type: 'u16',
  scale: 0.1,
});

const phasePower = (n: number, address: number): RegisterEntry => ({
  name: `grid_power_l${n}`,
  displayName: `Grid power L${n}`,
  unit: 'W',
  deviceClass: 'power',
  stateClass: 'measurement',
  address,
  type: 's16',
});

/** One poll of a three-phase hybrid; `hv` for the high-voltage family. `ratedW` (registers 20/21) bounds the max sell power. */
export function threePhaseMap({ hv, ratedW }: { hv: boolean; ratedW: number }) {
  const tens = hv ? 10 : 1;
  return defineRegisterMap({
    maxGap: 16,
    registers: [
      { ...inverterMetrics.device_mode, address: 500, type: 'u16', options: RUNNING_STATES },
      { ...inverterMetrics.battery_charge_energy_today, address: 514, ...kWhTenths },
      { ...inverterMetrics.battery_discharge_energy_today, address: 515, ...kWhTenths },
      { ...inverterMetrics.grid_import_energy_today, address: 520, ...kWhTenths },
      { ...inverterMetrics.grid_export_energy_today, address: 521, ...kWhTenths },
      { ...inverterMetrics.load_energy_today, address: 526, ...kWhTenths },
      { ...inverterMetrics.pv_energy_today, address: 529, ...kWhTenths },
      { ...inverterMetrics.temperature, address: 541, ...temperature },
      { ...batteryMetrics.temperature, device: 'battery', address: 586, ...temperature },
      { ...batteryMetrics.voltage, device: 'battery', address: 587, type: 'u16', scale: hv ? 0.1 : 0.01 },
      { ...batteryMetrics.state_of_charge, device: 'battery', address: 588, type: 'u16' },
      { ...batteryMetrics.power, device: 'battery', address: 590, type: 's16', scale: tens, invert: true },
      { ...batteryMetrics.current, device: 'battery', address: 591, type: 's16', scale: 0.01, invert: true },
      { ...inverterMetrics.battery_power, address: 590, type: 's16', scale: tens, invert: true },
      { ...inverterMetrics.grid_voltage, address: 598, type: 'u16', scale: 0.1 },
      phaseVoltage(2, 599),
      phaseVoltage(3, 600),
      { ...inverterMetrics.grid_frequency, address: 609, type: 'u16', scale: 0.01 },
      phasePower(1, 622),
      phasePower(2, 623),
      phasePower(3, 624),
      { ...inverterMetrics.grid_power, address: 625, type: 's16' }, // + import
      { ...inverterMetrics.output_voltage, address: 627, type: 'u16', scale: 0.1 },
      { ...inverterMetrics.output_power, address: 636, type: 's16' },
      { ...inverterMetrics.load_power, address: 653, type: 's16' },
      // Signed on LV units (three_phase_common.py), unsigned tens of watts on HV units (three_phase_hv.py).
      { ...pvPower1!, address: 672, type: hv ? 'u16' : 's16', scale: tens },
      { ...pvPower2!, address: 673, type: hv ? 'u16' : 's16', scale: tens },
      { ...pvVoltage1!, address: 676, type: 'u16', scale: 0.1 },
      { ...pvCurrent1!, address: 677, type: 'u16', scale: 0.1 },
      { ...pvVoltage2!, address: 678, type: 'u16', scale: 0.1 },
      { ...pvCurrent2!, address: 679, type: 'u16', scale: 0.1 },
      ...settingEntries(
        { maxCharge: 108, maxDischarge: 109, gridCharge: 128, priority: 141, workMode: 142, maxSell: 143 },
        { ratedW, maxAmps: 240, sellScale: tens },
      ),
    ],
    derived: [pvPowerSum(2)],
    references: threePhaseReferences(hv),
  });
}
