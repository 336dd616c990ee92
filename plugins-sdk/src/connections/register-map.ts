/*
 * Declarative Modbus register maps: a driver for a Modbus device is mostly data. Each entry
 * says where a value lives, how to decode it and what it is; defineRegisterMap checks the
 * map once and plans the reads (read-plan.ts); readRegisterMap and registerMapDeclarations
 * (register-map-io.ts) use it.
 */
import { planReads, type ReadBlock } from './read-plan.js';
import type { DerivedEntry, RegisterEntry } from './register-entries.js';
import { registerCount } from './register-values.js';

export type { DerivedEntry, RegisterEntry, RegisterOption, RegisterType } from './register-entries.js';

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
  /**
   * Where public documents put the map's registers, written from those documents and not
   * from the entries: a test reads each point from the device's emulator by it and checks
   * the driver's decoded value, so an entry and an emulator built from it cannot be wrong
   * together.
   */
  references?: readonly RegisterReference[];
}

/**
 * One register as a public document gives it: where it is, how it is encoded, and which of
 * the map's values it is.
 *
 * @example
 * { name: 'pv_power_1', address: 35105, type: 'u32', source: 'marcelblijleven/goodwe goodwe/et.py: Power4("ppv1", 35105)' }
 */
export interface RegisterReference {
  /** The map entry (metric or setting) the driver publishes from the register. */
  name: string;
  /** Whose value it is; default the inverter. */
  device?: 'inverter' | 'battery';
  address: number;
  /** Default the map's table. */
  table?: 'holding' | 'input';
  type: 'u16' | 's16' | 'u32' | 's32';
  /** For 32-bit values; default high word first. */
  wordOrder?: 'high-first' | 'low-first';
  /** Published value = raw x scale (x -1 when `opposite`); default 1. */
  scale?: number;
  /** The document counts the other direction than the vocabulary (e.g. battery + charging where Heliograph counts + discharging). */
  opposite?: boolean;
  /** For an enumeration: the document's label of each raw value, which the driver must publish as is. */
  labels?: Readonly<Record<number, string>>;
  /** The public document and its section, e.g. a library's file and the line's definition, or a PDF's table. */
  source: string;
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
  /** Where public documents put the registers (see {@link RegisterMapInput.references}). */
  readonly references: readonly RegisterReference[];
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
  const references = (input.references ?? []).map((reference) => ({ ...reference, table: reference.table ?? table }));
  for (const reference of references) {
    const key = `${reference.device ?? 'inverter'}/${reference.name}`;
    if (!registers.some((entry) => `${entry.device ?? 'inverter'}/${entry.name}` === key))
      throw new Error(
        `register map: the reference at ${reference.address} names "${key}", which the map does not read`,
      );
  }
  return { registers, derived, blocks: planReads(registers, { maxCount, maxGap, unreadable }), references };
}
