/*
 * Register words to values and back, as a register map entry describes them: integer and
 * float types with their word order, ASCII strings, scale, offset, sign and options.
 */
import type { MetricValue } from '../context.js';
import type { DerivedEntry, RegisterEntry } from './register-entries.js';

/** Registers a value of `entry` occupies. */
export function registerCount(entry: RegisterEntry): number {
  if (entry.type === 'string') return entry.length ?? 0;
  if (entry.type === 'u64' || entry.type === 's64') return 4;
  return entry.type === 'u16' || entry.type === 's16' ? 1 : 2;
}

/** The raw number (or text) in `words`, before scale, offset and sign. */
function rawValue(entry: RegisterEntry, words: readonly number[]): number | string {
  const bytes = Buffer.alloc(words.length * 2);
  const ordered = entry.wordOrder === 'low-first' && entry.type !== 'string' ? [...words].reverse() : words;
  ordered.forEach((word, i) => bytes.writeUInt16BE(word, i * 2));
  switch (entry.type) {
    case 'u16':
      return entry.mask === undefined
        ? bytes.readUInt16BE(0)
        : (bytes.readUInt16BE(0) & entry.mask) >> maskShift(entry.mask);
    case 's16':
      return bytes.readInt16BE(0);
    case 'u32':
      return bytes.readUInt32BE(0);
    case 's32':
      return bytes.readInt32BE(0);
    case 'u64':
      return Number(bytes.readBigUInt64BE(0));
    case 's64':
      return Number(bytes.readBigInt64BE(0));
    case 'f32':
      return bytes.readFloatBE(0);
    case 'string':
      return bytes.toString('latin1').replace(/[\0\s]+$/, '');
  }
}

/** The value `entry` reads as from its registers. */
export function decodeEntry(entry: RegisterEntry, words: readonly number[]): MetricValue {
  const raw = rawValue(entry, words);
  if (typeof raw === 'string') return raw;
  if (entry.options) return entry.options.find((o) => o.value === raw)?.label ?? `Unknown (${raw})`;
  const value = (raw * (entry.scale ?? 1) + (entry.offset ?? 0)) * (entry.invert ? -1 : 1);
  // Scales such as 0.1 leave float noise (234.50000000000003); -0 reads as 0.
  return Math.round(value * 1e6) / 1e6 || 0;
}

/** The register words that make `entry` read as `value` (a number, or an option's label). */
export function encodeEntry(entry: RegisterEntry, value: number | string): number[] {
  let raw: number;
  if (entry.options) {
    const option = entry.options.find((o) => o.label === value || o.value === value);
    if (!option)
      throw new RangeError(
        `${entry.name}: ${JSON.stringify(value)} is not one of ${entry.options.map((o) => o.label).join(', ')}`,
      );
    raw = option.value;
  } else {
    const number = (Number(value) * (entry.invert ? -1 : 1) - (entry.offset ?? 0)) / (entry.scale ?? 1);
    raw = entry.type === 'f32' ? number : Math.round(number);
  }
  const bytes = Buffer.alloc(registerCount(entry) * 2);
  switch (entry.type) {
    case 'u16':
    case 's16':
      bytes.writeUInt16BE(raw & 0xffff, 0);
      break;
    case 'u32':
    case 's32':
      bytes.writeUInt32BE(raw >>> 0, 0);
      break;
    case 'u64':
    case 's64':
      bytes.writeBigUInt64BE(BigInt.asUintN(64, BigInt(raw)), 0);
      break;
    case 'f32':
      bytes.writeFloatBE(raw, 0);
      break;
    case 'string':
      throw new RangeError(`${entry.name}: string registers cannot be written`);
  }
  const words = Array.from({ length: bytes.length / 2 }, (_, i) => bytes.readUInt16BE(i * 2));
  return entry.wordOrder === 'low-first' ? words.reverse() : words;
}

/** The position of the lowest set bit of `mask`. */
function maskShift(mask: number): number {
  return 31 - Math.clz32(mask & -mask);
}

/**
 * The register word after writing `value` into the bit field of `entry` (its `mask`) of a
 * register that holds `current`; the other bits stay.
 *
 * @example
 * mergeBits({ ...entry, mask: 0x1c }, 0x41, 3); // 0x4d
 */
export function mergeBits(entry: RegisterEntry, current: number, value: number | string): number {
  const mask = entry.mask ?? 0xffff;
  const [word] = encodeEntry({ ...entry, mask: undefined }, value);
  return ((current & ~mask) | ((word! << maskShift(mask)) & mask)) & 0xffff;
}

/**
 * The derived values of one device, computed in order from `values` (which they join).
 *
 * @example
 * deriveValues([{ name: 'pv_power', ..., derive: { sum: ['pv_power_1', 'pv_power_2'] } }], { pv_power_1: 1, pv_power_2: 2 });
 */
export function deriveValues(derived: readonly DerivedEntry[], values: Record<string, MetricValue>): void {
  for (const entry of derived) {
    const d = entry.derive;
    const inputs = 'sum' in d ? d.sum : 'difference' in d ? d.difference : d.of;
    const numbers = inputs.map((name) => values[name]);
    if (!numbers.every((n): n is number => typeof n === 'number')) {
      values[entry.name] = null;
      continue;
    }
    let result: number | null;
    if ('sum' in d) result = numbers.reduce((a, b) => a + b, 0);
    else if ('difference' in d) result = numbers[0]! - numbers[1]!;
    else result = d.expression(Object.fromEntries(inputs.map((name, i) => [name, numbers[i]!])));
    values[entry.name] = result === null ? null : Math.round(result * 1e6) / 1e6 || 0;
  }
}
