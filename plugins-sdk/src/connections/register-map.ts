/*
 * Declarative Modbus register maps: a driver for a Modbus device is mostly data. Each entry
 * says where a value lives, how to decode it and what it is; defineRegisterMap checks the
 * map once and plans the reads (read-plan.ts); readRegisterMap and registerMapDeclarations
 * (register-map-io.ts) use it.
 */
import type { DiscoveryClasses, MetricDeclaration } from '../context.js';
import { planReads, type ReadBlock } from './read-plan.js';
import { registerCount } from './register-values.js';

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

/**
 * What {@link defineRegisterMap} takes.
 *
 * @example
 * { table: 'holding', maxGap: 10, unreadable: [{ from: 200, to: 209 }], registers: [...] }
 */
export interface RegisterMapInput {
  registers: readonly RegisterEntry[];
  /** Values computed from the read ones, in order. */
  derived?: readonly DerivedEntry[];
  /** Default register table of entries; default `holding`. */
  table?: 'holding' | 'input';
  /** Largest run of unneeded registers read to save a request; default 10. */
  maxGap?: number;
  /** Most registers in one request; default (and at most) 125. */
  maxCount?: number;
  /** Inclusive address ranges the device refuses to read: no request spans them. */
  unreadable?: ReadonlyArray<{ from: number; to: number; table?: 'holding' | 'input' }>;
}

/**
 * A checked register map with its read plan.
 *
 * @example
 * map.blocks; // [{ table: 'holding', address: 59, count: 1, entries: [...] }, { address: 169, count: 23, ... }]
 */
export interface RegisterMap {
  readonly registers: readonly RegisterEntry[];
  readonly derived: readonly DerivedEntry[];
  /** The requests one full read makes, in order. */
  readonly blocks: readonly ReadBlock[];
}

/**
 * Checks a register map and plans its reads: contiguous and near entries (gaps of at most
 * `maxGap` registers) share one request of at most `maxCount` registers; no request spans
 * an `unreadable` range. Throws on a mistake in the map (duplicate names, a string without
 * length, a writable enumeration without options, an entry inside an unreadable range...).
 *
 * @example
 * export const deyeMap = defineRegisterMap({
 *   maxGap: 8,
 *   registers: [
 *     { ...inverterMetrics.pv_power, address: 186, type: 'u16' },
 *     { ...inverterMetrics.battery_power, address: 190, type: 's16', invert: true },
 *     { name: 'max_charge_current', displayName: 'Max charge current', unit: 'A', address: 108, type: 'u16', writable: { min: 0, max: 185 } },
 *   ],
 * });
 */
export function defineRegisterMap(input: RegisterMapInput): RegisterMap {
  const table = input.table ?? 'holding';
  const maxCount = input.maxCount ?? 125;
  const maxGap = input.maxGap ?? 10;
  if (!Number.isInteger(maxCount) || maxCount < 1 || maxCount > 125)
    throw new Error(`register map: maxCount must be 1..125, not ${maxCount}`);
  if (!Number.isInteger(maxGap) || maxGap < 0)
    throw new Error(`register map: maxGap must be a whole number >= 0, not ${maxGap}`);
  const unreadable = (input.unreadable ?? []).map((range) => ({ ...range, table: range.table ?? table }));
  const registers = input.registers.map((entry) => ({ ...entry, table: entry.table ?? table }));
  const seen = new Set<string>();
  for (const entry of registers) {
    const where = `register map: "${entry.name}"`;
    const key = `${entry.device ?? 'inverter'}/${entry.name}`;
    if (seen.has(key)) throw new Error(`${where} is declared twice for the ${entry.device ?? 'inverter'}`);
    seen.add(key);
    const count = registerCount(entry);
    if (count < 1 || !Number.isInteger(count)) throw new Error(`${where}: a string needs length (registers) >= 1`);
    if (count > maxCount) throw new Error(`${where} spans ${count} registers, more than maxCount ${maxCount}`);
    if (!Number.isInteger(entry.address) || entry.address < 0 || entry.address + count > 0x10000) {
      throw new Error(`${where}: address ${entry.address} is not a register address`);
    }
    if (entry.writable === true && !entry.options?.length) throw new Error(`${where}: writable: true needs options`);
    if (entry.writable && entry.type === 'string') throw new Error(`${where}: string registers cannot be written`);
    if (entry.writable && entry.table === 'input') throw new Error(`${where}: input registers cannot be written`);
    const hole = unreadable.find(
      (r) => r.table === entry.table && r.from <= entry.address + count - 1 && entry.address <= r.to,
    );
    if (hole) throw new Error(`${where} lies in the unreadable range ${hole.from}..${hole.to}`);
    if (entry.mask !== undefined && (entry.type !== 'u16' || !(entry.mask > 0 && entry.mask <= 0xffff)))
      throw new Error(`${where}: a mask needs a u16 register and a mask of 1..0xffff`);
  }
  const derived = input.derived ?? [];
  for (const entry of derived) {
    const key = `${entry.device ?? 'inverter'}/${entry.name}`;
    if (seen.has(key))
      throw new Error(`register map: "${entry.name}" is declared twice for the ${entry.device ?? 'inverter'}`);
    const d = entry.derive;
    const inputs = 'sum' in d ? d.sum : 'difference' in d ? d.difference : d.of;
    const missing = inputs.find((name) => !seen.has(`${entry.device ?? 'inverter'}/${name}`));
    if (missing !== undefined)
      throw new Error(`register map: derived "${entry.name}" needs "${missing}", not in the map before it`);
    seen.add(key);
  }
  return { registers, derived, blocks: planReads(registers, { maxCount, maxGap, unreadable }) };
}
