/*
 * What a sunspec instance declares: the standard vocabulary, plus the lifetime counters
 * SunSpec devices keep (the vocabulary has only today's kWh).
 */
import { batteryMetrics, inverterMetrics, pvStringMetrics, type MetricDeclaration } from '@heliograph/plugins-sdk';

const lifetime = (name: string, displayName: string): MetricDeclaration => ({
  name,
  displayName,
  unit: 'kWh',
  deviceClass: 'energy',
  stateClass: 'total_increasing',
});

/** The inverter's metrics; `strings` MPPT inputs (model 160) add pv_power_N, pv_voltage_N, pv_current_N. */
export function inverterDeclarations(strings: number): MetricDeclaration[] {
  return [
    inverterMetrics.pv_power,
    ...pvStringMetrics(strings),
    inverterMetrics.output_power,
    inverterMetrics.grid_power,
    inverterMetrics.load_power,
    inverterMetrics.battery_power,
    inverterMetrics.grid_voltage,
    inverterMetrics.grid_frequency,
    inverterMetrics.temperature,
    inverterMetrics.device_mode,
    lifetime('ac_energy_total', 'AC energy (lifetime)'),
    lifetime('grid_import_energy_total', 'Grid import energy (lifetime)'),
    lifetime('grid_export_energy_total', 'Grid export energy (lifetime)'),
  ];
}

/** The battery's metrics (models 802 and 124). */
export const batteryDeclarations: MetricDeclaration[] = [
  batteryMetrics.state_of_charge,
  batteryMetrics.voltage,
  batteryMetrics.power,
  batteryMetrics.current,
  batteryMetrics.state_of_health,
  batteryMetrics.cycles,
  batteryMetrics.cell_voltage_max,
  batteryMetrics.cell_voltage_min,
  batteryMetrics.full_capacity,
];
