/*
 * The Victron GX Modbus TCP registers (victronenergy/dbus_modbustcp `attributes.csv`, the
 * source of the CCGX Modbus TCP register list): all holding registers, read per unit id.
 * A register's value is the D-Bus value × its scale factor, so the map's `scale` is its
 * inverse (factor 10 -> 0.1). Victron counts battery power + charging and grid power
 * + import, as Heliograph does.
 */
import { batteryMetrics, inverterMetrics } from '@heliograph/plugins-sdk';
import {
  defineRegisterMap,
  type RegisterEntry,
  type RegisterOption,
  type RegisterReference,
} from '@heliograph/plugins-sdk/connections';

const watts = (name: string, address: number, type: 'u16' | 's16' = 'u16'): RegisterEntry => ({
  name,
  displayName: name,
  unit: 'W',
  address,
  type,
  internal: true,
});

/** An enumeration's options from a label per raw value, as attributes.csv lists them. */
const optionsOf = (labels: Readonly<Record<number, string>>): RegisterOption[] =>
  Object.entries(labels).map(([value, label]) => ({ value: Number(value), label }));

const CSV_TYPES: Record<string, RegisterReference['type']> = {
  uint16: 'u16',
  int16: 's16',
  uint32: 'u32',
  int32: 's32',
};

/**
 * A reference read from its row of victronenergy/dbus_modbustcp attributes.csv (service, D-Bus
 * path, D-Bus type, unit or `value=label;...`, register, Modbus type, scale factor, access), so
 * the address, type, scale (the register holds value x factor) and labels are the document's.
 */
function csv(name: string, line: string, device?: 'battery'): RegisterReference {
  const [, , , unit = '', register = '', type = '', factor = ''] = line.split(',');
  const csvType = CSV_TYPES[type];
  if (!csvType || !(Number(factor) !== 0)) throw new Error(`victron register map: cannot read the row ${line}`);
  const labels = unit.includes('=')
    ? Object.fromEntries(
        unit
          .split(';')
          .map((pair) => pair.split('='))
          .map(([k, v]) => [Number(k), v ?? '']),
      )
    : undefined;
  return {
    name,
    ...(device ? { device } : {}),
    address: Number(register),
    type: csvType,
    ...(Number(factor) === 1 ? {} : { scale: 1 / Number(factor) }),
    ...(labels ? { labels } : {}),
    source: `victronenergy/dbus_modbustcp attributes.csv: ${line}`,
  };
}

// Enumerations as attributes.csv labels them (column 4 of the row named in each reference).
const ACTIVE_INPUT_SOURCE = { 0: 'Not available', 1: 'Grid', 2: 'Generator', 3: 'Shore power', 240: 'Not connected' };
const BATTERY_STATE = { 0: 'idle', 1: 'charging', 2: 'discharging' };
const ESS_STATE = {
  0: 'BL disabled',
  1: 'Restarting',
  2: 'Self-consumption',
  3: 'Self-consumption',
  4: 'Self-consumption',
  5: 'Discharge disabled',
  6: 'Force charge',
  7: 'Sustain',
  9: 'Keep batteries charged',
  10: 'BL Disabled',
  11: 'BL Disabled (Low SoC)',
};
const HUB4_MODE = {
  1: 'ESS with Phase Compensation',
  2: 'ESS without phase compensation',
  3: 'Disabled/External Control',
};
const VEBUS_STATE = {
  0: 'Off',
  1: 'Low Power',
  2: 'Fault',
  3: 'Bulk',
  4: 'Absorption',
  5: 'Float',
  6: 'Storage',
  7: 'Equalize',
  8: 'Passthru',
  9: 'Inverting',
  10: 'Power assist',
  11: 'Power supply',
  252: 'External control',
};
const VEBUS_MODE = { 1: 'Charger Only', 2: 'Inverter Only', 3: 'On', 4: 'Off' };

/** An enumerated value, read only. */
const enumeration = (
  name: string,
  displayName: string,
  address: number,
  labels: Readonly<Record<number, string>>,
  type: 'u16' | 's16' = 'u16',
): RegisterEntry => ({ name, displayName, address, type, options: optionsOf(labels) });

/** Unit 100's points as attributes.csv gives them (register, type, scale: register = value x scale). */
const systemReferences: RegisterReference[] = [
  csv('pv_out_l1', 'com.victronenergy.system,/Ac/PvOnOutput/L1/Power,d,W,808,uint16,1,R'),
  csv('pv_out_l2', 'com.victronenergy.system,/Ac/PvOnOutput/L2/Power,d,W,809,uint16,1,R'),
  csv('pv_out_l3', 'com.victronenergy.system,/Ac/PvOnOutput/L3/Power,d,W,810,uint16,1,R'),
  csv('pv_grid_l1', 'com.victronenergy.system,/Ac/PvOnGrid/L1/Power,d,W,811,uint16,1,R'),
  csv('pv_grid_l2', 'com.victronenergy.system,/Ac/PvOnGrid/L2/Power,d,W,812,uint16,1,R'),
  csv('pv_grid_l3', 'com.victronenergy.system,/Ac/PvOnGrid/L3/Power,d,W,813,uint16,1,R'),
  csv('load_l1', 'com.victronenergy.system,/Ac/Consumption/L1/Power,d,W,817,uint16,1,R'),
  csv('load_l2', 'com.victronenergy.system,/Ac/Consumption/L2/Power,d,W,818,uint16,1,R'),
  csv('load_l3', 'com.victronenergy.system,/Ac/Consumption/L3/Power,d,W,819,uint16,1,R'),
  csv('grid_l1', 'com.victronenergy.system,/Ac/Grid/L1/Power,d,W,820,int16,1,R'),
  csv('grid_l2', 'com.victronenergy.system,/Ac/Grid/L2/Power,d,W,821,int16,1,R'),
  csv('grid_l3', 'com.victronenergy.system,/Ac/Grid/L3/Power,d,W,822,int16,1,R'),
  csv(
    'active_input_source',
    'com.victronenergy.system,/Ac/ActiveIn/Source,u,0=Not available;1=Grid;2=Generator;3=Shore power;240=Not connected,826,int16,1,R',
  ),
  csv('voltage', 'com.victronenergy.system,/Dc/Battery/Voltage,d,V DC,840,uint16,10,R', 'battery'),
  csv('current', 'com.victronenergy.system,/Dc/Battery/Current,d,A DC,841,int16,10,R', 'battery'),
  csv('battery_power', 'com.victronenergy.system,/Dc/Battery/Power,d,W,842,int16,1,R'),
  csv('power', 'com.victronenergy.system,/Dc/Battery/Power,d,W,842,int16,1,R', 'battery'),
  csv('state_of_charge', 'com.victronenergy.system,/Dc/Battery/Soc,d,%,843,uint16,1,R', 'battery'),
  csv('battery_state', 'com.victronenergy.system,/Dc/Battery/State,i,0=idle;1=charging;2=discharging,844,uint16,1,R'),
  csv('pv_dc', 'com.victronenergy.system,/Dc/Pv/Power,d,W,850,uint16,1,R'),
  csv('grid_setpoint', 'com.victronenergy.settings,/Settings/CGwacs/AcPowerSetPoint,d,W,2700,int16,1,W'),
  csv(
    'ess_state',
    'com.victronenergy.settings,/Settings/CGwacs/BatteryLife/State,i,0=BL disabled;1=Restarting;2=Self-consumption;3=Self-consumption;4=Self-consumption;5=Discharge disabled;6=Force charge;7=Sustain;9=Keep batteries charged;10=BL Disabled;11=BL Disabled (Low SoC),2900,uint16,1,W',
  ),
  csv('min_soc', 'com.victronenergy.settings,/Settings/CGwacs/BatteryLife/MinimumSocLimit,d,%,2901,uint16,10,W'),
  csv(
    'ess_mode',
    'com.victronenergy.settings,/Settings/CGwacs/Hub4Mode,i,1=ESS with Phase Compensation;2=ESS without phase compensation;3=Disabled/External Control,2902,uint16,1,W',
  ),
];

/** com.victronenergy.system and com.victronenergy.settings: unit 100 ("the system"). */
export const systemMap = defineRegisterMap({
  maxGap: 10,
  references: systemReferences,
  registers: [
    watts('pv_out_l1', 808),
    watts('pv_out_l2', 809),
    watts('pv_out_l3', 810),
    watts('pv_grid_l1', 811),
    watts('pv_grid_l2', 812),
    watts('pv_grid_l3', 813),
    watts('load_l1', 817),
    watts('load_l2', 818),
    watts('load_l3', 819),
    watts('grid_l1', 820, 's16'),
    watts('grid_l2', 821, 's16'),
    watts('grid_l3', 822, 's16'),
    enumeration('active_input_source', 'Active AC input', 826, ACTIVE_INPUT_SOURCE, 's16'),
    enumeration('battery_state', 'Battery state', 844, BATTERY_STATE),
    watts('pv_dc', 850),
    { ...inverterMetrics.battery_power, address: 842, type: 's16' },
    { ...batteryMetrics.voltage, device: 'battery', address: 840, type: 'u16', scale: 0.1 },
    { ...batteryMetrics.current, device: 'battery', address: 841, type: 's16', scale: 0.1 },
    { ...batteryMetrics.power, device: 'battery', address: 842, type: 's16' },
    { ...batteryMetrics.state_of_charge, device: 'battery', address: 843, type: 'u16' },
    {
      name: 'grid_setpoint',
      displayName: 'ESS grid setpoint',
      unit: 'W',
      deviceClass: 'power',
      address: 2700,
      type: 's16',
      writable: { min: -10_000, max: 10_000, step: 10 },
    },
    enumeration('ess_state', 'ESS state', 2900, ESS_STATE),
    {
      name: 'min_soc',
      displayName: 'ESS minimum SOC',
      unit: '%',
      address: 2901,
      type: 'u16',
      scale: 0.1,
      writable: { min: 0, max: 100, step: 1 },
    },
    enumeration('ess_mode', 'ESS mode', 2902, HUB4_MODE),
  ],
  derived: [
    {
      ...inverterMetrics.pv_power,
      derive: { sum: ['pv_out_l1', 'pv_out_l2', 'pv_out_l3', 'pv_grid_l1', 'pv_grid_l2', 'pv_grid_l3', 'pv_dc'] },
    },
    { ...inverterMetrics.load_power, derive: { sum: ['load_l1', 'load_l2', 'load_l3'] } },
    { ...inverterMetrics.grid_power, derive: { sum: ['grid_l1', 'grid_l2', 'grid_l3'] } },
  ],
});

/** The system's serial number (unit 100, 800..805). */
export const identityMap = defineRegisterMap({
  registers: [{ name: 'serial', displayName: 'Serial', address: 800, type: 'string', length: 6 }],
});

/** com.victronenergy.battery: a BMV / SmartShunt or a CAN-bus BMS on its own unit id. */
export const batteryMap = defineRegisterMap({
  maxGap: 10,
  references: [
    csv('power', 'com.victronenergy.battery,/Dc/0/Power,i,W,258,int16,1,R', 'battery'),
    csv('voltage', 'com.victronenergy.battery,/Dc/0/Voltage,d,V DC,259,uint16,100,R', 'battery'),
    csv('current', 'com.victronenergy.battery,/Dc/0/Current,d,A DC,261,int16,10,R', 'battery'),
    csv('temperature', 'com.victronenergy.battery,/Dc/0/Temperature,d,Degrees celsius,262,int16,10,R', 'battery'),
    csv('state_of_charge', 'com.victronenergy.battery,/Soc,y,%,266,uint16,10,R', 'battery'),
    csv('cycles', 'com.victronenergy.battery,/History/ChargeCycles,i,count,284,uint16,1,R', 'battery'),
    csv('state_of_health', 'com.victronenergy.battery,/Soh,y,%,304,uint16,10,R', 'battery'),
  ],
  registers: [
    { ...batteryMetrics.power, device: 'battery', address: 258, type: 's16' },
    { ...batteryMetrics.voltage, device: 'battery', address: 259, type: 'u16', scale: 0.01 },
    { ...batteryMetrics.current, device: 'battery', address: 261, type: 's16', scale: 0.1 },
    { ...batteryMetrics.temperature, device: 'battery', address: 262, type: 's16', scale: 0.1 },
    { ...batteryMetrics.state_of_charge, device: 'battery', address: 266, type: 'u16', scale: 0.1 },
    { ...batteryMetrics.cycles, device: 'battery', address: 284, type: 'u16' },
    { ...batteryMetrics.state_of_health, device: 'battery', address: 304, type: 'u16', scale: 0.1 },
  ],
});

/** com.victronenergy.vebus: the Multi / Quattro inverter-charger on its own unit id. */
export const vebusMap = defineRegisterMap({
  maxGap: 10,
  references: [
    csv('grid_voltage', 'com.victronenergy.vebus,/Ac/ActiveIn/L1/V,d,V AC,3,uint16,10,R'),
    csv('output_power', 'com.victronenergy.vebus,/Ac/Out/L1/P,i,W,23,int16,0.1,R'),
    csv(
      'device_mode',
      'com.victronenergy.vebus,/State,u,0=Off;1=Low Power;2=Fault;3=Bulk;4=Absorption;5=Float;6=Storage;7=Equalize;8=Passthru;9=Inverting;10=Power assist;11=Power supply;252=External control,31,uint16,1,R',
    ),
    csv('switch_mode', 'com.victronenergy.vebus,/Mode,u,1=Charger Only;2=Inverter Only;3=On;4=Off,33,uint16,1,W'),
  ],
  registers: [
    { ...inverterMetrics.grid_voltage, address: 3, type: 'u16', scale: 0.1 },
    { ...inverterMetrics.output_power, address: 23, type: 's16', scale: 10 },
    { ...inverterMetrics.device_mode, address: 31, type: 'u16', options: optionsOf(VEBUS_STATE) },
    {
      name: 'switch_mode',
      displayName: 'Inverter/charger mode',
      address: 33,
      type: 'u16',
      options: optionsOf(VEBUS_MODE),
      writable: true,
    },
  ],
});
