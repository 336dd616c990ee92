/**
 * The on-disk form of history: compressed segments of aggregates, and containers of segments.
 *
 * A segment is one series of entries at one resolution (a day of 10-s slots, a month of
 * hours, ...). Every entry holds the same fields at every tier (count, sum, min, max, last,
 * and for rollups the slot of the last reading), as integers at the segment's decimal scale,
 * so sums stay exact. The fields are written column by column as zigzag varints of their
 * difference from a prediction, then deflated: nearly all of a day of 10-s readings is
 * "one reading per slot, close to the previous one", which this turns into runs of small
 * bytes that deflate packs to well under a byte per reading.
 */
import { brotliCompressSync, brotliDecompressSync, constants as zlib, inflateRawSync } from 'node:zlib';

/** The format of the journal's records, and of the first form of segments (inside their deflated bytes). */
export const FORMAT = 1;
/** The format of the segments this version writes. */
export const SEGMENT_FORMAT = 2;
/** The byte a segment of SEGMENT_FORMAT starts with: BTYPE 11, which no raw deflate stream has. */
export const SEGMENT_MARK = (SEGMENT_FORMAT << 3) | 0b110;

/** A segment in memory: entry i is absent when count[i] is 0. Values are scaled integers. */
export interface Segment {
  scale: number;
  count: Float64Array;
  sum: Float64Array;
  min: Float64Array;
  max: Float64Array;
  last: Float64Array;
  /** For rollups: 10-s slots from the entry's start to its last reading; null at the 10-s tier. */
  lastOff: Uint16Array | null;
}

export function emptySegment(n: number, scale: number, withLastOff: boolean): Segment {
  return {
    scale,
    count: new Float64Array(n),
    sum: new Float64Array(n),
    min: new Float64Array(n),
    max: new Float64Array(n),
    last: new Float64Array(n),
    lastOff: withLastOff ? new Uint16Array(n) : null,
  };
}

/** Powers of ten for decimal scales 0..12 (exact as doubles). */
export const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12];

/** Multiplies a segment's integers up to a larger scale (exact while below 2^53). */
export function rescaleSegment(seg: Segment, scale: number): void {
  if (scale === seg.scale) return;
  const f = POW10[scale - seg.scale]!;
  for (let i = 0; i < seg.count.length; i++) {
    if (seg.count[i] === 0) continue;
    seg.sum[i]! *= f;
    seg.min[i]! *= f;
    seg.max[i]! *= f;
    seg.last[i]! *= f;
  }
  seg.scale = scale;
}

/** Appends varints and bytes to a growing buffer. */
export class ByteWriter {
  buf = Buffer.allocUnsafe(4096);
  pos = 0;

  uint(v: number): void {
    if (this.pos + 10 > this.buf.length) this.grow();
    const buf = this.buf;
    while (v >= 128) {
      buf[this.pos++] = (v % 128) | 128;
      v = Math.floor(v / 128);
    }
    buf[this.pos++] = v;
  }

  int(v: number): void {
    this.uint(v >= 0 ? v * 2 : -v * 2 - 1);
  }

  bytes(b: Uint8Array): void {
    while (this.pos + b.length > this.buf.length) this.grow();
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  result(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  private grow(): void {
    const next = Buffer.allocUnsafe(this.buf.length * 2);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
}

export class ByteReader {
  pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  uint(): number {
    const buf = this.buf;
    let b = buf[this.pos++]!;
    if (b < 128) return b;
    let v = b & 127;
    let mul = 128;
    for (;;) {
      if (this.pos >= buf.length) throw new Error('history data is truncated');
      b = buf[this.pos++]!;
      v += (b & 127) * mul;
      if (b < 128) return v;
      mul *= 128;
    }
  }

  int(): number {
    const z = this.uint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  bytes(n: number): Uint8Array {
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  get done(): boolean {
    return this.pos >= this.buf.length;
  }
}

/** Compresses a segment (format 2). `maxOff` is the largest lastOff of the tier (entry length / 10 s - 1). */
export function encodeSegment(seg: Segment, maxOff = 0): Buffer {
  const n = seg.count.length;
  const { count, sum, min, max, last, lastOff } = seg;
  const predictor = choosePredictor(count, last);
  const w = new ByteWriter();
  w.uint(seg.scale);
  w.uint(n);
  w.uint(lastOff ? 1 : 0);
  w.uint(predictor);
  // Presence as alternating runs, absent first: most segments are one long present run.
  const runs: number[] = [];
  let present = false;
  let run = 0;
  for (let i = 0; i < n; i++) {
    if (count[i]! > 0 !== present) {
      runs.push(run);
      present = !present;
      run = 0;
    }
    run++;
  }
  runs.push(run);
  w.uint(runs.length);
  for (const r of runs) w.uint(r);

  let prev = 1;
  for (let i = 0; i < n; i++) {
    const c = count[i]!;
    if (c === 0) continue;
    w.int(c - prev);
    prev = c;
  }
  let k = 0;
  let x1 = 0;
  let x2 = 0;
  let x3 = 0;
  let x4 = 0;
  for (let i = 0; i < n; i++) {
    if (count[i] === 0) continue;
    const x = last[i]!;
    w.int(x - predict(predictor, k++, x1, x2, x3, x4));
    x4 = x3;
    x3 = x2;
    x2 = x1;
    x1 = x;
  }
  for (let i = 0; i < n; i++) if (count[i]! > 1) w.uint(last[i]! - min[i]!);
  for (let i = 0; i < n; i++) if (count[i]! > 1) w.uint(max[i]! - last[i]!);
  let prevMean = 0;
  for (let i = 0; i < n; i++) {
    const c = count[i]!;
    if (c === 0) continue;
    if (c > 1) w.int(sum[i]! - Math.round(c * prevMean));
    prevMean = sum[i]! / c;
  }
  if (lastOff) for (let i = 0; i < n; i++) if (count[i]! > 0) w.uint(maxOff - lastOff[i]!);
  const raw = w.result();
  const packed = brotliCompressSync(raw, {
    params: {
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_GENERIC,
      [zlib.BROTLI_PARAM_QUALITY]: lastOff ? ROLLUP_QUALITY : SLOT_QUALITY,
      [zlib.BROTLI_PARAM_LGWIN]: 16,
      [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  // A buffer of its own (not a slice of a shared pool slab: segments are kept in caches).
  const out = Buffer.allocUnsafeSlow(packed.length + 1);
  out[0] = SEGMENT_MARK;
  out.set(packed, 1);
  return out;
}

/**
 * Decodes a segment of either format; into `scratch` when given and of the same shape (a long
 * scan reuses one segment rather than leaving hundreds of KB of garbage per day it reads).
 */
export function decodeSegment(data: Uint8Array, maxOff = 0, scratch?: Segment): Segment {
  let r: ByteReader;
  let legacy = false;
  if (data.length > 0 && (data[0]! & 0b110) === 0b110) {
    const format = data[0]! >> 3;
    if (format !== SEGMENT_FORMAT) throw new Error(`history segment format ${format} is not known to this version`);
    r = new ByteReader(brotliDecompressSync(data.subarray(1)));
  } else {
    legacy = true;
    r = new ByteReader(inflateRawSync(data));
    const format = r.uint();
    if (format !== FORMAT) throw new Error(`history segment format ${format} is not known to this version`);
  }
  const scale = r.uint();
  const n = r.uint();
  const withLastOff = r.uint() === 1;
  const predictor = legacy ? PREDICT_PREVIOUS : r.uint();
  if (predictor > PREDICT_MEAN4) throw new Error(`history segment predictor ${predictor} is not known to this version`);
  let seg: Segment;
  if (scratch && scratch.count.length === n && (scratch.lastOff !== null) === withLastOff) {
    seg = scratch;
    seg.scale = scale;
    seg.count.fill(0);
  } else seg = emptySegment(n, scale, withLastOff);
  const { count, sum, min, max, last, lastOff } = seg;
  const nRuns = r.uint();
  let i = 0;
  for (let k = 0; k < nRuns; k++) {
    const len = r.uint();
    if (k % 2 === 1) count.fill(-1, i, i + len);
    i += len;
  }
  let prev = 1;
  for (i = 0; i < n; i++) {
    if (count[i] === 0) continue;
    prev += r.int();
    count[i] = prev;
  }
  let k = 0;
  let x1 = 0;
  let x2 = 0;
  let x3 = 0;
  let x4 = 0;
  for (i = 0; i < n; i++) {
    if (count[i] === 0) continue;
    const x = predict(predictor, k++, x1, x2, x3, x4) + r.int();
    last[i] = x;
    min[i] = x;
    max[i] = x;
    sum[i] = x;
    x4 = x3;
    x3 = x2;
    x2 = x1;
    x1 = x;
  }
  for (i = 0; i < n; i++) if (count[i]! > 1) min[i] = last[i]! - r.uint();
  for (i = 0; i < n; i++) if (count[i]! > 1) max[i] = last[i]! + r.uint();
  let prevMean = 0;
  for (i = 0; i < n; i++) {
    const c = count[i]!;
    if (c === 0) continue;
    if (c > 1) sum[i] = r.int() + Math.round(c * prevMean);
    prevMean = sum[i]! / c;
  }
  if (lastOff) for (i = 0; i < n; i++) if (count[i]! > 0) lastOff[i] = maxOff - r.uint();
  return seg;
}

/**
 * Brotli's quality for 10-s days: 10 is the lowest with context modelling (about 6 % smaller
 * than 9 on these differences, at 3-4x its encoding time: a few ms per day).
 */
const SLOT_QUALITY = 10;
/**
 * For rollups (minutes, hours, days), re-encoded at every merge and a few % of the bytes: 10
 * would save 9 % of them at 8x the time.
 */
const ROLLUP_QUALITY = 9;

/** `last` of a present entry is predicted by the one before it (formats 1 and 2)... */
export const PREDICT_PREVIOUS = 0;
/** ... by the mean of the two before it, rounded down (noisy series around a slow level) ... */
export const PREDICT_MEAN2 = 1;
/** ... or by the mean of the four before it, rounded down (noisier ones). */
export const PREDICT_MEAN4 = 2;
/** Beyond this magnitude only PREDICT_PREVIOUS is used: the means' sums stay exact integers. */
const MEAN_LIMIT = 2 ** 48;

/**
 * The prediction of a present entry's `last` from the `k` present entries before it, x1 the
 * latest. Before there are enough, the previous value (0 before the first).
 */
function predict(predictor: number, k: number, x1: number, x2: number, x3: number, x4: number): number {
  if (predictor === PREDICT_MEAN4 && k >= 4) return Math.floor((x1 + x2 + x3 + x4) / 4);
  if (predictor === PREDICT_MEAN2 && k >= 2) return Math.floor((x1 + x2) / 2);
  return x1;
}

/** The predictor whose differences take the fewest significant bits in all (ties: the simpler). */
function choosePredictor(count: Float64Array, last: Float64Array): number {
  const cost = [0, 0, 0];
  for (let p = PREDICT_PREVIOUS; p <= PREDICT_MEAN4; p++) {
    let k = 0;
    let x1 = 0;
    let x2 = 0;
    let x3 = 0;
    let x4 = 0;
    let bits = 0;
    for (let i = 0; i < count.length; i++) {
      if (count[i] === 0) continue;
      const x = last[i]!;
      if (x > MEAN_LIMIT || x < -MEAN_LIMIT) return PREDICT_PREVIOUS;
      const d = Math.abs(x - predict(p, k++, x1, x2, x3, x4));
      bits += d < 2 ** 31 ? 32 - Math.clz32(d) : 32;
      x4 = x3;
      x3 = x2;
      x2 = x1;
      x1 = x;
    }
    cost[p] = bits;
  }
  let best = PREDICT_PREVIOUS;
  for (let p = PREDICT_MEAN2; p <= PREDICT_MEAN4; p++) if (cost[p]! < cost[best]!) best = p;
  return best;
}

/** The segments of one row, by their start (Unix s), each still compressed. */
export type Container = Map<number, Buffer>;

/** Packs segments into a row: a count, then (start offset in days, length) pairs, then the bytes. */
export function packContainer(rowStart: number, segments: Container): Buffer {
  const starts = [...segments.keys()].sort((a, b) => a - b);
  const w = new ByteWriter();
  w.uint(starts.length);
  for (const s of starts) {
    w.uint((s - rowStart) / 86400);
    w.uint(segments.get(s)!.length);
  }
  for (const s of starts) w.bytes(segments.get(s)!);
  return Buffer.from(w.result());
}

/**
 * The segments of a row. Throws when the bytes cannot be a container of a row spanning
 * [rowStart, rowEnd): damaged bytes must fail loudly, not read as "no segments".
 */
export function unpackContainer(rowStart: number, data: Uint8Array, rowEnd = Infinity): Container {
  const r = new ByteReader(data);
  const n = r.uint();
  if (n > 400) throw new Error(`a row holds at most 400 segments, this one claims ${n}`);
  const heads: Array<[number, number]> = [];
  let total = 0;
  for (let k = 0; k < n; k++) {
    const start = rowStart + r.uint() * 86400;
    const len = r.uint();
    if (start >= rowEnd) throw new Error(`a segment starts after the end of its row`);
    heads.push([start, len]);
    total += len;
  }
  if (r.pos + total !== data.length)
    throw new Error(`the segments' lengths (${total} bytes) do not add up to the row's ${data.length - r.pos} bytes`);
  const out: Container = new Map();
  for (const [start, len] of heads) {
    // A copy of its own: Buffer.from would put small segments into shared 8 KB pool
    // slabs, and one cached segment would then keep a whole slab (and the row) alive.
    const copy = Buffer.allocUnsafeSlow(len);
    copy.set(r.bytes(len));
    out.set(start, copy);
  }
  return out;
}
