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
import { deflateRawSync, inflateRawSync } from 'node:zlib';

export const FORMAT = 1;

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

/**
 * The writer of encodeSegment and packContainer, reused: both hand out a copy before they
 * return, so a backfill's thousands of encodes do not each grow a writer from 4 KB.
 */
function sharedWriter(): ByteWriter {
  if (shared.buf.length > 1 << 20) shared.buf = Buffer.allocUnsafe(4096);
  shared.pos = 0;
  return shared;
}
const shared = new ByteWriter();

/** Compresses a segment. `maxOff` is the largest lastOff of the tier (entry length / 10 s - 1). */
export function encodeSegment(seg: Segment, maxOff = 0): Buffer {
  const n = seg.count.length;
  const { count, sum, min, max, last, lastOff } = seg;
  const w = sharedWriter();
  w.uint(FORMAT);
  w.uint(seg.scale);
  w.uint(n);
  w.uint(lastOff ? 1 : 0);
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
  prev = 0;
  for (let i = 0; i < n; i++) {
    if (count[i] === 0) continue;
    w.int(last[i]! - prev);
    prev = last[i]!;
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
  // Small output chunks: the default 16 KB one comes out of Buffer's pool on every call.
  return deflateRawSync(w.result(), { level: 9, chunkSize: 1024 });
}

/**
 * Decodes a segment; into `scratch` when given and of the same shape (a long scan reuses
 * one segment rather than leaving hundreds of KB of garbage per day it reads).
 */
export function decodeSegment(data: Uint8Array, maxOff = 0, scratch?: Segment): Segment {
  const r = new ByteReader(inflateRawSync(data));
  const format = r.uint();
  if (format !== FORMAT) throw new Error(`history segment format ${format} is not known to this version`);
  const scale = r.uint();
  const n = r.uint();
  const withLastOff = r.uint() === 1;
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
  prev = 0;
  for (i = 0; i < n; i++) {
    if (count[i] === 0) continue;
    prev += r.int();
    last[i] = prev;
    min[i] = prev;
    max[i] = prev;
    sum[i] = prev;
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

/** The segments of one row, by their start (Unix s), each still compressed. */
export type Container = Map<number, Buffer>;

/** Packs segments into a row: a count, then (start offset in days, length) pairs, then the bytes. */
export function packContainer(rowStart: number, segments: Container): Buffer {
  const starts = [...segments.keys()].sort((a, b) => a - b);
  const w = sharedWriter();
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
