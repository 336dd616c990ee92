/**
 * What the PI30 status replies mean: QPIGS (general status), QMOD (mode), QPIRI (rated
 * values and the current settings), as vocabulary metrics with the SDK's signs.
 */
import type { MetricValue } from '@heliograph/plugins-sdk';

/** The fields of a reply after its `(`, split on spaces. */
export function replyFields(text: string, command: string, count: number): string[] {
  const fields = text.replace(/^\(/, '').trim().split(/\s+/);
  if (!text.startsWith('(') || fields.length < count)
    throw new Error(`${command}: expected ${count} fields, got "${text}"`);
  return fields;
}

const number = (field: string | undefined): number => {
  const value = Number(field);
  return Number.isFinite(value) ? value : NaN;
};

/**
 * The QPIGS reply as metric values (all but `grid_power`: see {@link gridPower}).
 *
 * @example
 * qpigsValues('(000.0 00.0 230.0 49.9 0161 0119 003 460 57.50 012 100 0069 0014 103.8 57.45 00000 00110110 00 00 00856 010').pv_power; // 856
 */
export function qpigsValues(text: string): Record<string, MetricValue> {
  const f = replyFields(text, 'QPIGS', 21).map(number);
  const batteryVoltage = f[8]!;
  const batteryPower = Math.round(batteryVoltage * (f[9]! - f[15]!));
  const pv = f[19]!;
  const load = f[5]!;
  return {
    grid_voltage: f[0]!,
    grid_frequency: f[1]!,
    output_voltage: f[2]!,
    output_power: load,
    load_power: load,
    battery_power: batteryPower,
    temperature: f[11]!,
    pv_power: pv,
    pv_power_1: pv,
    pv_voltage_1: f[13]!,
    pv_current_1: f[12]!,
    battery_voltage: batteryVoltage,
    battery_state_of_charge: f[10]!,
  };
}

/**
 * The battery's values in a QPIGS reply, as a battery device publishes them (mpp-solar's
 * PI30 field list: 8 battery voltage, 9 charging current, 10 capacity %, 15 discharge
 * current): current and power + charging.
 *
 * @example
 * batteryValues('(000.0 00.0 230.0 49.9 0161 0119 003 460 57.50 012 100 0069 0014 103.8 57.45 00000 00110110 00 00 00856 010').current; // 12
 */
export function batteryValues(text: string): Record<string, MetricValue> {
  const f = replyFields(text, 'QPIGS', 21).map(number);
  const current = f[9]! - f[15]!;
  return {
    voltage: f[8]!,
    current,
    power: Math.round(f[8]! * current),
    state_of_charge: f[10]!,
  };
}

/**
 * The device measures no grid power. In battery mode the utility feeds nothing; otherwise
 * it covers the balance `load - pv + battery` (an off-grid inverter never exports, so
 * never below 0; the reported whole amps make it a few tens of watts coarse).
 *
 * @example
 * gridPower({ load_power: 500, pv_power: 0, battery_power: 1200 }, 'Line'); // 1700
 */
export function gridPower(values: Record<string, MetricValue>, mode: string): number {
  if (mode === MODES.B) return 0;
  return Math.max(0, Number(values.load_power) - Number(values.pv_power) + Number(values.battery_power));
}

const MODES: Record<string, string> & { B: string } = {
  P: 'Power on',
  S: 'Standby',
  L: 'Line',
  B: 'Battery',
  F: 'Fault',
  H: 'Power saving',
  D: 'Shutdown',
};

/** The QMOD letter as a device mode (`(L` -> `Line`); an unknown letter as itself. */
export function qmodMode(text: string): string {
  const letter = text.replace(/^\(/, '').trim();
  return MODES[letter] ?? letter;
}

/** The settings QPIRI reports. */
export interface QpiriSettings {
  /** Index 13: the max utility (AC) charging current, A. */
  maxUtilityChargeCurrent: number;
  /** Index 14: the max charging current, A. */
  maxChargeCurrent: number;
  /** Index 16: POP's number. */
  outputPriority: number;
  /** Index 17: PCP's number. */
  chargerPriority: number;
}

/** The settings in a QPIRI reply: indices 13, 14 (currents), 16 and 17 (priorities). */
export function qpiriSettings(text: string): QpiriSettings {
  const f = replyFields(text, 'QPIRI', 18).map(number);
  return {
    maxUtilityChargeCurrent: f[13]!,
    maxChargeCurrent: f[14]!,
    outputPriority: f[16]!,
    chargerPriority: f[17]!,
  };
}

/** The currents QMCHGCR lists (`(010 020 030` -> [10, 20, 30]). */
export function chargeCurrents(text: string): number[] {
  const currents = replyFields(text, 'QMCHGCR', 1).map(Number);
  if (currents.some((a) => !Number.isInteger(a))) throw new Error(`QMCHGCR: not a list of currents: "${text}"`);
  return currents;
}
