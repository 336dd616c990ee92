/**
 * Folding readings into 10-s slots, and slots or rollup entries into query buckets.
 * Values are integers at a topic's decimal scale (52.37 V at scale 2 is 5237), so sums
 * are exact whatever order or tier they were added in.
 */
import { POW10, type Segment } from './codec.js';
import { HOUR_S, SLOT_S } from './utc-calendar.js';

export const SLOTS_PER_HOUR = HOUR_S / SLOT_S;

/** Decimal places a topic's values are kept at, at most. */
export const MAX_SCALE = 6;
/** Scaled integers stay below this, so a day of sums stays far below 2^53. */
const MAX_SCALED = 2 ** 40;

/**
 * The smallest scale >= `current` at which `value` is a whole number (up to MAX_SCALE),
 * without letting large values outgrow MAX_SCALED.
 */
export function scaleFor(value: number, current: number): number {
  let k = current;
  const abs = Math.abs(value);
  while (k < MAX_SCALE) {
    const x = value * POW10[k]!;
    if (Math.abs(x - Math.round(x)) <= 1e-9 + Math.abs(x) * 1e-13) break;
    if (abs * POW10[k + 1]! > MAX_SCALED) break;
    k++;
  }
  return k;
}

/** The columns an hour's slots and a query's buckets keep their aggregates in. */
interface AggregateColumns {
  readonly count: Float64Array;
  readonly sum: Float64Array;
  readonly min: Float64Array;
  readonly max: Float64Array;
}

/** Merges an aggregate into entry i (its count, sum, min and max); true when the entry was empty. */
function mergeAggregate(
  cols: AggregateColumns,
  i: number,
  count: number,
  sum: number,
  min: number,
  max: number,
): boolean {
  if (cols.count[i] === 0) {
    cols.count[i] = count;
    cols.sum[i] = sum;
    cols.min[i] = min;
    cols.max[i] = max;
    return true;
  }
  cols.count[i]! += count;
  cols.sum[i]! += sum;
  if (min < cols.min[i]!) cols.min[i] = min;
  if (max > cols.max[i]!) cols.max[i] = max;
  return false;
}

/** Hour buffers kept for reuse: about 1 MB, enough for a backfill call's topic-hours. */
const MAX_SPARE = 64;
const spare: HourBuffer[] = [];

/** One hour of one topic's 10-s slots not yet written to segments. */
export class HourBuffer {
  readonly count = new Float64Array(SLOTS_PER_HOUR);
  readonly sum = new Float64Array(SLOTS_PER_HOUR);
  readonly min = new Float64Array(SLOTS_PER_HOUR);
  readonly max = new Float64Array(SLOTS_PER_HOUR);
  readonly last = new Float64Array(SLOTS_PER_HOUR);
  /** Slots changed since the journal last saw them. */
  readonly dirty = new Uint8Array(SLOTS_PER_HOUR);
  anyDirty = false;
  /**
   * Slots written by a bulk write of the past (backfill, import) that replace what rows
   * hold for them when the hour is merged, so writing the same past twice stores it once.
   */
  readonly replace = new Uint8Array(SLOTS_PER_HOUR);
  anyReplace = false;
  slots = 0;
  /** Counts every change to the slots, so a reader can tell whether they changed since it looked (planner's inputsOf). */
  version = 0;

  constructor(public hour: number) {}

  /**
   * An hour buffer for `hour`, empty: one given back by {@link recycle} when there is one.
   * A backfill goes through thousands of topic-hours; seven typed arrays each would leave
   * their backing stores for the collector to find.
   */
  static take(hour: number): HourBuffer {
    const buf = spare.pop();
    if (!buf) return new HourBuffer(hour);
    buf.hour = hour;
    return buf;
  }

  /** Gives back hours merged into rows: nothing else may hold them (queries read them only synchronously). */
  static recycle(bufs: readonly HourBuffer[]): void {
    for (const buf of bufs) {
      if (spare.length >= MAX_SPARE) return;
      buf.clear();
      spare.push(buf);
    }
  }

  private clear(): void {
    this.version++; // a reused buffer is never taken for the one a reader saw
    for (const a of [this.count, this.sum, this.min, this.max, this.last, this.dirty, this.replace]) a.fill(0);
    this.anyDirty = false;
    this.anyReplace = false;
    this.slots = 0;
  }

  /** Adds one reading (or a slot's worth of aggregate) to slot i. */
  add(i: number, count: number, sum: number, min: number, max: number, last: number): void {
    this.version++;
    if (mergeAggregate(this, i, count, sum, min, max)) this.slots++;
    this.last[i] = last;
    this.dirty[i] = 1;
    this.anyDirty = true;
  }

  /** Replaces slot i (journal replay: a later record of a slot supersedes an earlier one). */
  set(i: number, count: number, sum: number, min: number, max: number, last: number): void {
    this.version++;
    if (this.count[i] === 0) this.slots++;
    this.count[i] = count;
    this.sum[i] = sum;
    this.min[i] = min;
    this.max[i] = max;
    this.last[i] = last;
  }

  /** Makes slot i hold exactly this aggregate, now and once merged into rows (bulk writes of the past). */
  put(i: number, count: number, sum: number, min: number, max: number, last: number): void {
    this.set(i, count, sum, min, max, last);
    this.dirty[i] = 1;
    this.anyDirty = true;
    this.replace[i] = 1;
    this.anyReplace = true;
  }

  rescale(factor: number): void {
    this.version++;
    for (let i = 0; i < SLOTS_PER_HOUR; i++) {
      if (this.count[i] === 0) continue;
      this.sum[i]! *= factor;
      this.min[i]! *= factor;
      this.max[i]! *= factor;
      this.last[i]! *= factor;
    }
  }
}

export type Agg = 'mean' | 'max' | 'min' | 'sum' | 'last';

/**
 * Per-bucket aggregates of a query. Each bucket keeps the time of its last reading, so
 * "last" is right whichever tier or order the parts arrive in; on a tie the part folded
 * later wins, as unsaved slots are folded after stored ones.
 */
export class Buckets {
  readonly count: Float64Array;
  readonly sum: Float64Array;
  readonly min: Float64Array;
  readonly max: Float64Array;
  readonly last: Float64Array;
  readonly lastAt: Float64Array;

  constructor(
    /** Start of bucket 0, Unix s. */
    readonly start: number,
    /** Bucket size, s. */
    readonly size: number,
    readonly n: number,
    /** The scale every folded value is brought to. */
    readonly scale: number,
  ) {
    this.count = new Float64Array(n);
    this.sum = new Float64Array(n);
    this.min = new Float64Array(n);
    this.max = new Float64Array(n);
    this.last = new Float64Array(n);
    this.lastAt = new Float64Array(n).fill(-Infinity);
  }

  /** Start of bucket b, Unix ms: the time answers show for it. */
  timeMs(b: number): number {
    return (this.start + b * this.size) * 1000;
  }

  fold(b: number, count: number, sum: number, min: number, max: number, last: number, lastAt: number): void {
    mergeAggregate(this, b, count, sum, min, max);
    if (lastAt >= this.lastAt[b]!) {
      this.last[b] = last;
      this.lastAt[b] = lastAt;
    }
  }

  /**
   * Folds entries [from, to) of a segment whose entry 0 starts at `segStart` and whose
   * entries are `res` seconds long. The bucket size is a multiple of `res`.
   */
  foldSegment(seg: Segment, segStart: number, res: number, from: number, to: number): void {
    const f = seg.scale === this.scale ? 1 : POW10[this.scale - seg.scale]!;
    const { count, sum, min, max, last, lastOff } = seg;
    const i0 = Math.max(0, (from - segStart) / res);
    const i1 = Math.min(count.length, (to - segStart) / res);
    const size = this.size;
    for (let i = i0; i < i1; i++) {
      const c = count[i]!;
      if (c === 0) continue;
      const t = segStart + i * res;
      const b = Math.floor((t - this.start) / size);
      const lastAt = lastOff ? t + lastOff[i]! * SLOT_S : t;
      if (f === 1) this.fold(b, c, sum[i]!, min[i]!, max[i]!, last[i]!, lastAt);
      else this.fold(b, c, sum[i]! * f, min[i]! * f, max[i]! * f, last[i]! * f, lastAt);
    }
  }

  /** Folds the slots of an unsaved hour that fall in [from, to). */
  foldHour(buf: HourBuffer, bufScale: number, from: number, to: number): void {
    const f = bufScale === this.scale ? 1 : POW10[this.scale - bufScale]!;
    const i0 = Math.max(0, (from - buf.hour) / SLOT_S);
    const i1 = Math.min(SLOTS_PER_HOUR, (to - buf.hour) / SLOT_S);
    for (let i = i0; i < i1; i++) {
      const c = buf.count[i]!;
      if (c === 0) continue;
      const t = buf.hour + i * SLOT_S;
      const b = Math.floor((t - this.start) / this.size);
      this.fold(b, c, buf.sum[i]! * f, buf.min[i]! * f, buf.max[i]! * f, buf.last[i]! * f, t);
    }
  }

  /**
   * The value of bucket b under `agg` as a plain number without float noise: exact fields
   * at the stored scale, means rounded to three more decimals (fewer for huge values).
   */
  value(b: number, agg: Agg): number {
    const fixed = this.fixed(b, agg, SCRATCH);
    return fixed.n / POW10[fixed.k]!;
  }

  /**
   * The same value as a whole number and a count of decimals (`value` is n / 10^k), for
   * writers that print it without making a string of it (api/history/json.ts). `into` is
   * filled and returned, so a loop over the buckets allocates nothing.
   */
  fixed(b: number, agg: Agg, into: FixedValue): FixedValue {
    into.k = this.scale;
    switch (agg) {
      case 'sum':
        into.n = this.sum[b]!;
        break;
      case 'min':
        into.n = this.min[b]!;
        break;
      case 'max':
        into.n = this.max[b]!;
        break;
      case 'last':
        into.n = this.last[b]!;
        break;
      case 'mean': {
        const mean = this.sum[b]! / this.count[b]!;
        let extra = 3;
        while (extra > 0 && Math.abs(mean) * POW10[extra]! > 2 ** 51) extra--;
        into.n = Math.round(mean * POW10[extra]!);
        into.k = this.scale + extra;
      }
    }
    return into;
  }
}

/** A value as `n / 10^k` (see Buckets.fixed). */
export interface FixedValue {
  n: number;
  k: number;
}

const SCRATCH: FixedValue = { n: 0, k: 0 };
