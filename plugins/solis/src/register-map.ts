/*
 * The Solis hybrid's registers (Solis "RS485_MODBUS RTU Hybrid Inverter Protocol", as
 * ha-solarman's `solis_hybrid.yaml`, Pho3niX90/solis_modbus `sensor_data/hybrid_sensors.py`
 * (protocol Ver3.2) and wills106/homeassistant-solax-modbus `plugin_solis.py` map it): input
 * registers 33000.. (function 04) for running data, holding 43000.. (function 03) for
 * settings. 32-bit values are high word first. The battery's power and current are given
 * with a separate direction register (33135: 0 charging, 1 discharging), so the signed
 * values are derived. Grid power is the meter's total active power (33263-33264), which the
 * document counts + export (Pho3niX90's "Grid Power Net" is its negation; wills106 in
 * homeassistant-solax-modbus issue #351: "positive = export to grid, negative = import").
 */
import { batteryMetrics, inverterMetrics, pvStringMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap, type RegisterReference } from '@heliograph/plugins-sdk/connections';

const [, pvVoltage1, pvCurrent1, , pvVoltage2, pvCurrent2] = pvStringMetrics(2);
const kWhTenths = { type: 'u16', scale: 0.1 } as const;
/** + charging from a magnitude and the direction register. */
const directed = ({ magnitude, direction }: Record<string, number>) =>
  Math.abs(magnitude!) * (direction === 1 ? -1 : 1);

/**
 * The storage control switch (43110, read back at input 33132), a bit field (protocol Ver3.2
 * appendix 8: bit 0 self-use, 1 time of use / timed charge-discharge, 2 off-grid, 3 battery
 * wake-up, 4 backup, 5 grid charging allowed, 6 feed-in priority). The values and labels
 * ha-solarman's `solis_hybrid.yaml` gives ("Storage Control Mode" lookup), then the other
 * combinations SolisCloud writes, labelled as wills106 `plugin_solis.py` labels them
 * ("Energy Storage Control Switch" option_dict).
 */
export const STORAGE_MODES = [
  { value: 0x00, label: 'Disabled' },
  { value: 0x21, label: 'Self Use' },
  { value: 0x22, label: 'Optimized Revenue' },
  { value: 0x23, label: 'Time of Use' },
  { value: 0x24, label: 'Off-Grid' },
  { value: 0x28, label: 'Battery Wake-Up' },
  { value: 0x31, label: 'Backup' },
  { value: 0x33, label: 'Optimized Revenue & Backup' },
  { value: 0x60, label: 'Feed-In Priority' },
  { value: 0x01, label: 'Self-Use - No Grid Charging' },
  { value: 0x03, label: 'Timed Charge/Discharge - No Grid Charging' },
  { value: 0x11, label: 'Backup/Reserve - No Grid Charging' },
  { value: 0x2b, label: 'Battery Awaken + Timed Charge/Discharge' },
  { value: 0x40, label: 'Feed-in priority - No Grid Charging' },
  // wills106 calls 98 "Feed-in priority", too close to 0x60's label: named by its bits (6, 1, 5).
  { value: 0x62, label: 'Feed-in priority + Timed Charge/Discharge' },
] as const;

/** 43110 bit 5: the battery may be charged from the grid (set in every mode SolisCloud offers with grid charging). */
export const GRID_CHARGE_BIT = 0x20;

const HA_SOLARMAN = 'davidrapan/ha-solarman custom_components/solarman/inverter_definitions/solis_hybrid.yaml';
const PHO3NIX90 = 'Pho3niX90/solis_modbus custom_components/solis_modbus/sensor_data/hybrid_sensors.py';

/** Where the document puts each value, written from the sources named (not from the entries below). */
const references: RegisterReference[] = [
  {
    name: 'pv_energy_today',
    address: 33035,
    table: 'input',
    type: 'u16',
    scale: 0.1,
    source: `${HA_SOLARMAN}: "Today Production", registers [33035], scale 0.1`,
  },
  {
    name: 'pv_voltage_1',
    address: 33049,
    table: 'input',
    type: 'u16',
    scale: 0.1,
    source: `${HA_SOLARMAN}: "PV1 Voltage", registers [33049], scale 0.1`,
  },
  {
    name: 'pv_current_1',
    address: 33050,
    table: 'input',
    type: 'u16',
    scale: 0.1,
    source: `${HA_SOLARMAN}: "PV1 Current", registers [33050], scale 0.1`,
  },
  {
    name: 'pv_voltage_2',
    address: 33051,
    table: 'input',
    type: 'u16',
    scale: 0.1,
    source: `${HA_SOLARMAN}: "PV2 Voltage", registers [33051], scale 0.1`,
  },
  {
    name: 'pv_current_2',
    address: 33052,
    table: 'input',
    type: 'u16',
    scale: 0.1,
    source: `${HA_SOLARMAN}: "PV2 Current", registers [33052], scale 0.1`,
  },
  {
    name: 'pv_power',
    address: 33057,
    table: 'input',
    type: 'u32',
    source: `${HA_SOLARMAN}: "Inverter DC Power", registers [33058, 33057], rule 3 (u32)`,
  },
  {
    name: 'grid_voltage',
    address: 33073,
    table: 'input',
    type: 'u16',
    scale: 0.1,
    source: `${HA_SOLARMAN}: "Inverter Voltage", registers [33073], scale 0.1`,
  },
  {
    name: 'output_power',
    address: 33079,
    table: 'input',
    type: 's32',
    source: `${HA_SOLARMAN}: "Inverter Active Power", registers [33080, 33079], rule 4 (s32)`,
  },
  {
    name: 'temperature',
    address: 33093,
    table: 'input',
    type: 's16',
    scale: 0.1,
    source: `${HA_SOLARMAN}: "Temperature", registers [33093], rule 2 (s16), scale 0.1`,
  },
  {
    name: 'grid_frequency',
    address: 33094,
    table: 'input',
    type: 'u16',
    scale: 0.01,
    source: `${HA_SOLARMAN}: "Inverter Frequency", registers [33094], scale 0.01`,
  },
  {
    name: 'voltage',
    device: 'battery',
    address: 33133,
    table: 'input',
    type: 'u16',
    scale: 0.1,
    source: `${HA_SOLARMAN}: "Battery Voltage", registers [33133], scale 0.1`,
  },
  {
    name: 'current_magnitude',
    device: 'battery',
    address: 33134,
    table: 'input',
    type: 's16',
    scale: 0.1,
    source: `${HA_SOLARMAN}: "Battery Current", registers [33134], rule 2 (s16), scale 0.1`,
  },
  {
    name: 'direction',
    device: 'battery',
    address: 33135,
    table: 'input',
    type: 'u16',
    source: `${HA_SOLARMAN}: "Battery State", registers [33135]: 0 charging, 1 discharging`,
  },
  {
    name: 'direction',
    address: 33135,
    table: 'input',
    type: 'u16',
    source: `${HA_SOLARMAN}: "Battery State", registers [33135]: 0 charging, 1 discharging`,
  },
  {
    name: 'state_of_charge',
    device: 'battery',
    address: 33139,
    table: 'input',
    type: 'u16',
    source: `${HA_SOLARMAN}: "Battery", registers [33139], %`,
  },
  {
    name: 'state_of_health',
    device: 'battery',
    address: 33140,
    table: 'input',
    type: 'u16',
    source: `${HA_SOLARMAN}: "Battery SOH", registers [33140], %`,
  },
  {
    name: 'load_power',
    address: 33147,
    table: 'input',
    type: 'u16',
    source: `${HA_SOLARMAN}: "House Load Power", registers [33147], W`,
  },
  {
    name: 'power_magnitude',
    device: 'battery',
    address: 33149,
    table: 'input',
    type: 's32',
    source: `${HA_SOLARMAN}: "Battery Power", registers [33150, 33149], rule 4 (s32)`,
  },
  {
    name: 'power_magnitude',
    address: 33149,
    table: 'input',
    type: 's32',
    source: `${HA_SOLARMAN}: "Battery Power", registers [33150, 33149], rule 4 (s32)`,
  },
  {
    name: 'battery_charge_energy_today',
    address: 33163,
    table: 'input',
    type: 'u16',
    scale: 0.1,
    source: `${HA_SOLARMAN}: "Today Battery Charge", registers [33163], scale 0.1`,
  },
  {
    name: 'battery_discharge_energy_today',
    address: 33167,
    table: 'input',
    type: 'u16',
    scale: 0.1,
    source: `${HA_SOLARMAN}: "Today Battery Discharge", registers [33167], scale 0.1`,
  },
  {
    name: 'grid_import_energy_today',
    address: 33171,
    table: 'input',
    type: 'u16',
    scale: 0.1,
    source: `${HA_SOLARMAN}: "Today Energy Import", registers [33171], scale 0.1`,
  },
  {
    name: 'grid_export_energy_today',
    address: 33175,
    table: 'input',
    type: 'u16',
    scale: 0.1,
    source: `${HA_SOLARMAN}: "Today Energy Export", registers [33175], scale 0.1`,
  },
  {
    name: 'load_energy_today',
    address: 33179,
    table: 'input',
    type: 'u16',
    scale: 0.1,
    source: `${HA_SOLARMAN}: "Today Load Consumption", registers [33179], scale 0.1`,
  },
  {
    name: 'grid_power',
    address: 33263,
    table: 'input',
    type: 's32',
    opposite: true,
    source: `${PHO3NIX90}: "Meter Total Active Power", registers 33263-33264, and "Grid Power Net" = its negation (sensors/solis_derived_sensor.py); wills106/homeassistant-solax-modbus plugin_solis.py "Meter Active Power Total", 33263, REGISTER_S32, input`,
  },
  {
    name: 'storage_mode',
    address: 43110,
    table: 'holding',
    type: 'u16',
    labels: {
      0x00: 'Disabled',
      0x21: 'Self Use',
      0x22: 'Optimized Revenue',
      0x23: 'Time of Use',
      0x24: 'Off-Grid',
      0x28: 'Battery Wake-Up',
      0x31: 'Backup',
      0x33: 'Optimized Revenue & Backup',
      0x60: 'Feed-In Priority',
    },
    source: `${HA_SOLARMAN}: "Storage Control Mode", registers [43110], code read 0x03 / write 0x06, lookup`,
  },
];

export const solisMap = defineRegisterMap({
  table: 'input',
  maxGap: 12,
  registers: [
    { ...inverterMetrics.pv_energy_today, address: 33035, ...kWhTenths },
    { ...pvVoltage1!, address: 33049, type: 'u16', scale: 0.1 },
    { ...pvCurrent1!, address: 33050, type: 'u16', scale: 0.1 },
    { ...pvVoltage2!, address: 33051, type: 'u16', scale: 0.1 },
    { ...pvCurrent2!, address: 33052, type: 'u16', scale: 0.1 },
    { ...inverterMetrics.pv_power, address: 33057, type: 'u32' },
    { ...inverterMetrics.grid_voltage, address: 33073, type: 'u16', scale: 0.1 },
    { ...inverterMetrics.output_power, address: 33079, type: 's32' },
    { ...inverterMetrics.temperature, address: 33093, type: 's16', scale: 0.1 },
    { ...inverterMetrics.grid_frequency, address: 33094, type: 'u16', scale: 0.01 },
    { ...batteryMetrics.voltage, device: 'battery', address: 33133, type: 'u16', scale: 0.1 },
    {
      name: 'current_magnitude',
      displayName: 'Battery current',
      address: 33134,
      type: 's16',
      scale: 0.1,
      device: 'battery',
      internal: true,
    },
    {
      name: 'direction',
      displayName: 'Battery direction',
      address: 33135,
      type: 'u16',
      device: 'battery',
      internal: true,
    },
    { name: 'direction', displayName: 'Battery direction', address: 33135, type: 'u16', internal: true },
    { ...batteryMetrics.state_of_charge, device: 'battery', address: 33139, type: 'u16' },
    { ...batteryMetrics.state_of_health, device: 'battery', address: 33140, type: 'u16' },
    { ...inverterMetrics.load_power, address: 33147, type: 'u16' },
    {
      name: 'power_magnitude',
      displayName: 'Battery power',
      address: 33149,
      type: 's32',
      device: 'battery',
      internal: true,
    },
    { name: 'power_magnitude', displayName: 'Battery power', address: 33149, type: 's32', internal: true },
    { ...inverterMetrics.battery_charge_energy_today, address: 33163, ...kWhTenths },
    { ...inverterMetrics.battery_discharge_energy_today, address: 33167, ...kWhTenths },
    { ...inverterMetrics.grid_import_energy_today, address: 33171, ...kWhTenths },
    { ...inverterMetrics.grid_export_energy_today, address: 33175, ...kWhTenths },
    { ...inverterMetrics.load_energy_today, address: 33179, ...kWhTenths },
    // + import: the document counts the meter + export.
    { ...inverterMetrics.grid_power, address: 33263, type: 's32', invert: true },
    {
      name: 'storage_mode',
      displayName: 'Storage control mode',
      table: 'holding',
      address: 43110,
      type: 'u16',
      options: STORAGE_MODES,
      writable: true,
      writeSingle: true, // ha-solarman writes it with function 0x06
    },
  ],
  derived: [
    {
      ...batteryMetrics.power,
      device: 'battery',
      derive: {
        of: ['power_magnitude', 'direction'],
        expression: (v) => directed({ magnitude: v.power_magnitude!, direction: v.direction! }),
      },
    },
    {
      ...batteryMetrics.current,
      device: 'battery',
      derive: {
        of: ['current_magnitude', 'direction'],
        expression: (v) => directed({ magnitude: v.current_magnitude!, direction: v.direction! }),
      },
    },
    {
      ...inverterMetrics.battery_power,
      derive: {
        of: ['power_magnitude', 'direction'],
        expression: (v) => directed({ magnitude: v.power_magnitude!, direction: v.direction! }),
      },
    },
  ],
  references,
});
