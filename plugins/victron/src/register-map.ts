/*
 * The Victron GX Modbus TCP registers (victronenergy/dbus_modbustcp `attributes.csv`, the
 * source of the CCGX Modbus TCP register list): all holding registers, read per unit id.
 * A register's value is the D-Bus value × its scale factor, so the map's `scale` is its
 * inverse (factor 10 -> 0.1). Victron counts battery power + charging and grid power
 * + import, as Heliograph does.
 */
import { batteryMetrics, inverterMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap, type RegisterEntry } from '@heliograph/plugins-sdk/connections';

const watts = (name: string, address: number, type: 'u16' | 's16' = 'u16'): RegisterEntry => ({
  name,
  displayName: name,
  unit: 'W',
  address,
  type,
  internal: true,
});

/** com.victronenergy.system and com.victronenergy.settings: unit 100 ("the system"). */
export const systemMap = defineRegisterMap({
  maxGap: 10,
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
    {
      name: 'min_soc',
      displayName: 'ESS minimum SOC',
      unit: '%',
      address: 2901,
      type: 'u16',
      scale: 0.1,
      writable: { min: 0, max: 100, step: 1 },
    },
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
  registers: [
    { ...inverterMetrics.grid_voltage, address: 3, type: 'u16', scale: 0.1 },
    { ...inverterMetrics.output_power, address: 23, type: 's16', scale: 10 },
    {
      ...inverterMetrics.device_mode,
      address: 31,
      type: 'u16',
      options: [
        { value: 0, label: 'Off' },
        { value: 1, label: 'Low power' },
        { value: 2, label: 'Fault' },
        { value: 3, label: 'Bulk' },
        { value: 4, label: 'Absorption' },
        { value: 5, label: 'Float' },
        { value: 6, label: 'Storage' },
        { value: 7, label: 'Equalize' },
        { value: 8, label: 'Passthru' },
        { value: 9, label: 'Inverting' },
        { value: 10, label: 'Power assist' },
        { value: 11, label: 'Power supply' },
        { value: 252, label: 'External control' },
      ],
    },
    {
      name: 'switch_mode',
      displayName: 'Inverter/charger mode',
      address: 33,
      type: 'u16',
      options: [
        { value: 1, label: 'Charger only' },
        { value: 2, label: 'Inverter only' },
        { value: 3, label: 'On' },
        { value: 4, label: 'Off' },
      ],
      writable: true,
    },
  ],
});
