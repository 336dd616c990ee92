/*
 * The standard vocabulary of device metrics: the same name, unit and Home Assistant classes
 * for the same quantity whatever the driver, so clients, totals and dashboards read every
 * inverter and battery alike. Drivers may publish extras under names of their own.
 */
import type { MetricDeclaration } from './context.js';

type Entry = Omit<MetricDeclaration, 'name'>;

const power = (displayName: string): Entry => ({
  displayName,
  unit: 'W',
  deviceClass: 'power',
  stateClass: 'measurement',
});
const voltage = (displayName: string): Entry => ({
  displayName,
  unit: 'V',
  deviceClass: 'voltage',
  stateClass: 'measurement',
});
const current = (displayName: string): Entry => ({
  displayName,
  unit: 'A',
  deviceClass: 'current',
  stateClass: 'measurement',
});
const temperature: Entry = {
  displayName: 'Temperature',
  unit: '°C',
  deviceClass: 'temperature',
  stateClass: 'measurement',
};
const energyToday = (displayName: string): Entry => ({
  displayName,
  unit: 'kWh',
  deviceClass: 'energy',
  stateClass: 'total_increasing',
});

/** Gives each entry its key as `name`, keeping the keys in the type. */
function named<K extends string>(entries: Record<K, Entry>): { readonly [N in K]: MetricDeclaration & { name: N } } {
  const out = {} as Record<string, MetricDeclaration>;
  for (const [name, entry] of Object.entries<Entry>(entries)) out[name] = { name, ...entry };
  return out as { readonly [N in K]: MetricDeclaration & { name: N } };
}

/**
 * Standard inverter metrics. Signs: `grid_power` positive = import, `battery_power`
 * positive = charging. `*_energy_today` are kWh since local midnight (total_increasing).
 * Per-string PV readings come from {@link pvStringMetrics}.
 *
 * @example
 * import { inverterMetrics } from '@heliograph/plugins-sdk';
 * ctx.topics.declare({ device: 'inverter_1', metrics: [inverterMetrics.pv_power, inverterMetrics.grid_power, { name: 'fan_speed', displayName: 'Fan speed', unit: 'rpm' }] });
 */
export const inverterMetrics = named({
  pv_power: power('PV power'),
  grid_power: power('Grid power'),
  load_power: power('Load power'),
  battery_power: power('Battery power'),
  grid_voltage: voltage('Grid voltage'),
  grid_frequency: { displayName: 'Grid frequency', unit: 'Hz', deviceClass: 'frequency', stateClass: 'measurement' },
  output_voltage: voltage('Output voltage'),
  output_power: power('Output power'),
  temperature,
  device_mode: { displayName: 'Device mode', type: 'string', deviceClass: null, stateClass: null },
  pv_energy_today: energyToday('PV energy today'),
  grid_import_energy_today: energyToday('Grid import energy today'),
  grid_export_energy_today: energyToday('Grid export energy today'),
  battery_charge_energy_today: energyToday('Battery charge energy today'),
  battery_discharge_energy_today: energyToday('Battery discharge energy today'),
  load_energy_today: energyToday('Load energy today'),
});

/**
 * Standard battery metrics. Signs: `power` and `current` positive = charging. Capacities
 * in Ah.
 *
 * @example
 * import { batteryMetrics } from '@heliograph/plugins-sdk';
 * ctx.topics.declare({ device: 'battery_1', metrics: Object.values(batteryMetrics) });
 */
export const batteryMetrics = named({
  power: power('Power'),
  voltage: voltage('Voltage'),
  current: current('Current'),
  state_of_charge: { displayName: 'State of charge', unit: '%', deviceClass: 'battery', stateClass: 'measurement' },
  temperature,
  cycles: { displayName: 'Cycles', deviceClass: null, stateClass: 'total_increasing' },
  cell_voltage_min: voltage('Lowest cell voltage'),
  cell_voltage_max: voltage('Highest cell voltage'),
  remaining_capacity: { displayName: 'Remaining capacity', unit: 'Ah', deviceClass: null, stateClass: 'measurement' },
  full_capacity: { displayName: 'Full capacity', unit: 'Ah', deviceClass: null, stateClass: 'measurement' },
  state_of_health: { displayName: 'State of health', unit: '%', deviceClass: null, stateClass: 'measurement' },
});

/**
 * A temperature in °C under a driver's own name, for the extra sensors of a device (cell
 * sensors, the BMS board or MOSFETs) beside the standard `temperature`.
 *
 * @example
 * ctx.topics.declare({ device: 'battery_1', metrics: [temperatureMetric('mos_temperature', 'MOSFET temperature')] });
 */
export function temperatureMetric(name: string, displayName: string): MetricDeclaration {
  return { name, ...temperature, displayName };
}

/**
 * What a BMS driver reads of its pack besides the extras of its model, in the order the
 * bundled BMS drivers declare them: voltage, current, power, state of charge, temperature,
 * the lowest and highest cell voltage and the remaining capacity.
 *
 * @example
 * ctx.topics.declare({ device, metrics: [...bmsPackMetrics, batteryMetrics.cycles, ...cellTemperatureMetrics] });
 */
export const bmsPackMetrics: readonly MetricDeclaration[] = [
  batteryMetrics.voltage,
  batteryMetrics.current,
  batteryMetrics.power,
  batteryMetrics.state_of_charge,
  batteryMetrics.temperature,
  batteryMetrics.cell_voltage_min,
  batteryMetrics.cell_voltage_max,
  batteryMetrics.remaining_capacity,
];

/**
 * The lowest and highest cell temperature a BMS reports (`cell_temperature_min`,
 * `cell_temperature_max`, in °C).
 *
 * @example
 * ctx.topics.declare({ device, metrics: [...bmsPackMetrics, ...cellTemperatureMetrics] });
 */
export const cellTemperatureMetrics: readonly MetricDeclaration[] = [
  temperatureMetric('cell_temperature_min', 'Lowest cell temperature'),
  temperatureMetric('cell_temperature_max', 'Highest cell temperature'),
];

/**
 * Per-string PV readings of an inverter with `count` MPPT inputs: `pv_power_N`,
 * `pv_voltage_N` and `pv_current_N` for N from 1 to `count`.
 *
 * @example
 * pvStringMetrics(2).map((m) => m.name); // ['pv_power_1', 'pv_voltage_1', 'pv_current_1', 'pv_power_2', 'pv_voltage_2', 'pv_current_2']
 */
export function pvStringMetrics(count: number): MetricDeclaration[] {
  const out: MetricDeclaration[] = [];
  for (let n = 1; n <= count; n++) {
    out.push(
      { name: `pv_power_${n}`, ...power(`PV ${n} power`) },
      { name: `pv_voltage_${n}`, ...voltage(`PV ${n} voltage`) },
      { name: `pv_current_${n}`, ...current(`PV ${n} current`) },
    );
  }
  return out;
}
