/*
 * The entries of a register map: what one register (or a value derived from others) is.
 * Kept apart from register-map.ts so that the reads' planning and the value codecs, which
 * register-map.ts uses, import these types without importing it.
 */
import type { DiscoveryClasses, MetricDeclaration } from '../context.js';

/**
 * How a value is stored: 16/32/64-bit integers, an IEEE 754 float, or ASCII over `length`
 * registers. 64-bit values above 2^53 lose precision (they are read as JavaScript numbers).
 */
export type RegisterType = 'u16' | 's16' | 'u32' | 's32' | 'u64' | 's64' | 'f32' | 'string';

/** One value of an enumerated register: the register value and the label clients show. */
export interface RegisterOption {
  value: number;
  label: string;
}

/**
 * One value in a register map. The metric fields (`name`, `displayName`, `unit`, classes)
 * are those of a MetricDeclaration, so a vocabulary entry can be spread in:
 * `{ ...inverterMetrics.pv_power, address: 186, type: 'u16' }`.
 *
 * Reading: value = raw × `scale` + `offset`, negated when `invert` is set (for sign
 * conventions: a device reporting battery power + discharging, where Heliograph wants
 * + charging). With `options`, the value is the label of the raw value.
 *
 * @example
 * { name: 'grid_power', displayName: 'Grid power', unit: 'W', address: 169, type: 's16', invert: true }
 * { name: 'pv_energy_today', displayName: 'PV energy today', unit: 'kWh', address: 108, type: 'u16', scale: 0.1 }
 * { name: 'battery_voltage', displayName: 'Voltage', unit: 'V', device: 'battery', address: 183, type: 'u16', scale: 0.01 }
 * { name: 'energy_priority', displayName: 'Energy priority', address: 243, type: 'u16',
 *   options: [{ value: 0, label: 'Battery first' }, { value: 1, label: 'Load first' }], writable: true }
 * { name: 'max_sell_power', displayName: 'Max sell power', unit: 'W', address: 143, type: 'u16', writable: { min: 0, max: 8000, step: 100 } }
 */
export interface RegisterEntry extends DiscoveryClasses {
  /** Metric or setting name under the device prefix, from the standard vocabulary where one fits. */
  name: string;
  displayName: string;
  unit?: string;
  group?: MetricDeclaration['group'];
  recorded?: boolean;
  /** First register (0-based protocol address). */
  address: number;
  type: RegisterType;
  /** Registers of a `string` value (two ASCII characters each). */
  length?: number;
  /** Word order of 32- and 64-bit values: `high-first` (the Modbus norm, default) or `low-first`. */
  wordOrder?: 'high-first' | 'low-first';
  /**
   * A bit field of a 16-bit register: the value is `(raw & mask) >> shift` of the lowest set
   * bit of `mask`. Writing one reads the register and changes only these bits.
   *
   * @example
   * { name: 'tou_enabled', displayName: 'Time of use', address: 146, type: 'u16', mask: 0x0001 } // three-phase Deye
   */
  mask?: number;
  /** Read (for derived entries and the driver) but not published nor declared. */
  internal?: boolean;
  /** Write a one-register setting with function 0x06 instead of 0x10 (devices that only take 0x06 for it). */
  writeSingle?: boolean;
  /** Multiplier applied to the raw value; default 1. */
  scale?: number;
  /** Added after scaling; default 0. */
  offset?: number;
  /** Negate the value (device sign convention is the opposite of Heliograph's). */
  invert?: boolean;
  /** Enumerated values: the value reads as the option's label. */
  options?: readonly RegisterOption[];
  /** Which device of the instance the value belongs to; default `inverter`. */
  device?: 'inverter' | 'battery';
  /** Register table; default the map's `table`. */
  table?: 'holding' | 'input';
  /**
   * A writable setting: `true` for an enumerated one (with `options`), or the allowed range
   * in the value's unit (after scale, offset and invert). Writes are checked by reading the
   * register back.
   */
  writable?: true | { min: number; max: number; step?: number };
}

/**
 * A value computed from other entries of the same device after each read (read or internal
 * ones, or earlier derived ones): the sum of several, the difference of two (e.g. a signed
 * battery power from separate charge and discharge registers), or an expression. Null when
 * an input is not a number.
 *
 * @example
 * { name: 'pv_power', displayName: 'PV power', unit: 'W', derive: { sum: ['pv_power_1', 'pv_power_2'] } }
 * { name: 'power', displayName: 'Power', unit: 'W', device: 'battery', derive: { difference: ['charge_w', 'discharge_w'] } }
 * { name: 'grid_power', displayName: 'Grid power', unit: 'W', derive: { of: ['ct', 'port'], expression: (v) => v.ct || v.port } }
 */
export interface DerivedEntry extends DiscoveryClasses {
  name: string;
  displayName: string;
  unit?: string;
  group?: MetricDeclaration['group'];
  recorded?: boolean;
  device?: 'inverter' | 'battery';
  internal?: boolean;
  derive:
    | { sum: readonly string[] }
    | { difference: readonly [string, string] }
    | { of: readonly string[]; expression: (values: Record<string, number>) => number | null };
}
