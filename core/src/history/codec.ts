/**
 * The on-disk form of history: compressed segments of aggregates, and containers of segments.
 *
 * A segment is one series of entries at one resolution (a day of 10-s slots, a month of
 * hours, ...). Every entry holds the same fields at every tier (count, sum, min, max, last,
 * and for rollups the slot of the last reading), as integers at the segment's decimal scale,
 * so sums stay exact. The fields are written column by column as zigzag varints of their
 * difference from a prediction, then compressed: nearly all of a day of 10-s readings is
 * "one reading per slot, close to the ones before", which this turns into runs of small
 * bytes that pack to well under a byte per reading.
 *
 * Two formats, told apart by the segment's first byte:
 * - Format 2 (written now): the byte SEGMENT_MARK = (2 << 3) | 0b110, then a brotli stream of
 *   scale, length, "has last offsets", the `last` predictor; presence runs; counts as runs of
 *   equal counts; `last` as differences from the predictor (previous value, or the floored
 *   mean of the 2 or 4 present entries before: whichever gives the fewest significant bits
 *   in the segment, so a noisy voltage or load is not charged its noise twice); then min, max,
 *   sum and last offsets as in format 1. Brotli's quality is the writer's choice (see
 *   FULL_DAY_QUALITY): a reader needs none.
 * - Format 1 (earlier versions; still read, never written): a raw deflate stream of FORMAT,
 *   scale, length, "has last offsets"; presence runs; each count as its difference from the
 *   one before; `last` as differences from the previous value; min, max, sum, last offsets.
 * A raw deflate stream starts with its first block's header in the low bits of its first
 * byte: BFINAL (bit 0) and BTYPE (bits 1-2), and BTYPE 11 is reserved, an error in every
 * inflater. So no format-1 segment starts with bits 1-2 set, and every byte with them set is
 * free to mark a newer format, its number in the bits above: a reader tells the formats
 * apart before decompressing, and a newer format it does not know is refused by number.
 */
import { brotliCompressSync, brotliDecompressSync, constants as zlib, inflateRawSync } from 'node:zlib';
import { ByteReader, ByteWriter } from './varint.js';
import {
  choosePredictor,
  PREDICT_MEAN4,
  PREDICT_PREVIOUS,
  readCountDeltas,
  readCountRuns,
  readLast,
  writeCountRuns,
  writeLast,
} from './codec-columns.js';

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

/**
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

/**
 * Compresses a segment (format 2, see the top of this file). `maxOff` is the largest lastOff of
 * the tier (entry length / 10 s - 1).
 */
export function encodeSegment(seg: Segment, maxOff = 0): Buffer {
  const n = seg.count.length;
  const { count, sum, min, max, last, lastOff } = seg;
  const predictor = choosePredictor(count, last);
  const w = sharedWriter();
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

  writeCountRuns(w, count);
  writeLast(w, predictor, count, last);
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
  let packed = brotli(raw, lastOff ? ROLLUP_QUALITY : PARTIAL_DAY_QUALITY);
  if (!lastOff && count[n - 1]! > 0) {
    const tight = brotli(raw, FULL_DAY_QUALITY);
    if (tight.length < packed.length) packed = tight;
  }
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
  // (Empty bytes read as format 1, whose inflate refuses them.)
  if ((data[0]! & 0b110) === 0b110) {
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
  const multi = legacy ? readCountDeltas(r, count) : readCountRuns(r, count);
  readLast(r, predictor, count, last);
  // Single readings: sum, min and max are the reading (absent entries are never read).
  sum.set(last);
  min.set(last);
  max.set(last);
  if (multi) {
    for (i = 0; i < n; i++) if (count[i]! > 1) min[i] = last[i]! - r.uint();
    for (i = 0; i < n; i++) if (count[i]! > 1) max[i] = last[i]! + r.uint();
    let prevMean = 0;
    for (i = 0; i < n; i++) {
      const c = count[i]!;
      if (c === 0) continue;
      if (c > 1) sum[i] = r.int() + Math.round(c * prevMean);
      prevMean = sum[i]! / c;
    }
  }
  if (lastOff) for (i = 0; i < n; i++) if (count[i]! > 0) lastOff[i] = maxOff - r.uint();
  return seg;
}

/**
 * Brotli's qualities. A 10-s day whose last slot is filled (its last write, as a rule: the
 * merge after midnight, or a backfill of whole days) is compressed at 9 and at 10 and the
 * smaller kept: 10 (context modelling) takes 10-13 % off a PV or voltage day but a few % more
 * on a slowly moving temperature or state of charge, at 3-5 ms a day against 9's 0.2-1 ms. A
 * day still filling (rewritten at every hour's merge) takes 9 alone, and so do rollups (minutes,
 * hours, days; a few % of the bytes): 10 would take 9 % off them at 8x the time, and 5, as
 * small and 5x faster to write, is a third slower to read (80 against 60 us a month of hours).
 */
const FULL_DAY_QUALITY = 10;
const PARTIAL_DAY_QUALITY = 9;
const ROLLUP_QUALITY = 9;

function brotli(raw: Uint8Array, quality: number): Buffer {
  return brotliCompressSync(raw, {
    params: {
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_GENERIC,
      [zlib.BROTLI_PARAM_QUALITY]: quality,
      [zlib.BROTLI_PARAM_LGWIN]: 16,
      [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
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
