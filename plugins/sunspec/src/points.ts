/*
 * SunSpec points out of one model's data registers (the registers after ID and L), as the
 * public model definitions (sunspec/models, json/model_<ID>.json) type them. Every reader
 * returns null for the type's "not implemented" marker, and for a point past the end of a
 * block the device made shorter than the definition.
 */

/** Data registers of one model, read at `offset` (0 = the first register after L). */
export class ModelData {
  constructor(
    /** The model ID, e.g. 101. */
    readonly id: number,
    readonly words: readonly number[],
  ) {}

  /** uint16 and enum16: 0xFFFF is "not implemented". */
  u16(offset: number): number | null {
    const word = this.words[offset];
    return word === undefined || word === 0xffff ? null : word;
  }

  /** int16: 0x8000 is "not implemented". */
  s16(offset: number): number | null {
    const word = this.words[offset];
    return word === undefined || word === 0x8000 ? null : word >= 0x8000 ? word - 0x10000 : word;
  }

  /** A scale factor (sunssf, an int16 power of ten): 0x8000 is "not implemented". */
  sf(offset: number): number | null {
    return this.s16(offset);
  }

  /** uint32: 0xFFFFFFFF is "not implemented". */
  u32(offset: number): number | null {
    const value = this.uint32(offset);
    return value === 0xffffffff ? null : value;
  }

  /** acc32, an accumulator that only counts up: 0 is "not implemented". */
  acc32(offset: number): number | null {
    const value = this.uint32(offset);
    return value === 0 ? null : value;
  }

  /** float32: NaN (0x7FC00000) is "not implemented". */
  f32(offset: number): number | null {
    const [high, low] = [this.words[offset], this.words[offset + 1]];
    if (high === undefined || low === undefined) return null;
    const bytes = Buffer.alloc(4);
    bytes.writeUInt16BE(high, 0);
    bytes.writeUInt16BE(low, 2);
    const value = bytes.readFloatBE(0);
    return Number.isNaN(value) ? null : round(value);
  }

  /** A string over `length` registers; all NUL (or blank) is "not implemented". */
  string(offset: number, length: number): string | null {
    const words = this.words.slice(offset, offset + length);
    const bytes = Buffer.alloc(words.length * 2);
    words.forEach((word, i) => bytes.writeUInt16BE(word, i * 2));
    const text = bytes.toString('latin1').replace(/\0.*$/s, '').trim();
    return text === '' ? null : text;
  }

  /**
   * A point with its scale factor: raw × 10^sf, null when either is not implemented.
   *
   * @example
   * inverter.scaled(inverter.s16(12), 13); // W with W_SF
   */
  scaled(raw: number | null, sfOffset: number): number | null {
    const sf = this.sf(sfOffset);
    return raw === null || sf === null ? null : round(raw * 10 ** sf);
  }

  private uint32(offset: number): number | null {
    const [high, low] = [this.words[offset], this.words[offset + 1]];
    return high === undefined || low === undefined ? null : high * 0x10000 + low;
  }
}

/** Drops float noise such as 230.10000000000002; -0 reads as 0. */
export function round(value: number): number {
  return Math.round(value * 1e6) / 1e6 || 0;
}
