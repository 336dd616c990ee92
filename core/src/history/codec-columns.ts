/*
 * The columns of a segment that format 2 writes differently from format 1 (see codec.ts):
 * counts as runs, and `last` as differences from a predictor chosen per segment.
 */
import type { ByteReader, ByteWriter } from './varint.js';

/** Format 2's counts: runs of equal counts over the present entries, as (difference from the run before, length). */
export function writeCountRuns(w: ByteWriter, count: Float64Array): void {
  let value = 1;
  let run = 0;
  for (let i = 0; i < count.length; i++) {
    const c = count[i]!;
    if (c === 0) continue;
    if (c !== value && run > 0) {
      w.uint(run);
      run = 0;
    }
    if (run === 0) {
      w.int(c - value);
      value = c;
    }
    run++;
  }
  if (run > 0) w.uint(run);
}

/** Reads format 2's count runs into the present entries (marked -1); true when any count is above 1. */
export function readCountRuns(r: ByteReader, count: Float64Array): boolean {
  let value = 1;
  let left = 0;
  let multi = false;
  for (let i = 0; i < count.length; i++) {
    if (count[i] === 0) continue;
    if (left === 0) {
      value += r.int();
      left = r.uint();
      if (value > 1) multi = true;
    }
    count[i] = value;
    left--;
  }
  return multi;
}

/** Reads format 1's counts, each as its difference from the one before; true when any is above 1. */
export function readCountDeltas(r: ByteReader, count: Float64Array): boolean {
  let prev = 1;
  let multi = false;
  for (let i = 0; i < count.length; i++) {
    if (count[i] === 0) continue;
    prev += r.int();
    count[i] = prev;
    if (prev > 1) multi = true;
  }
  return multi;
}

/** Writes the present entries' `last` values as differences from `predictor`'s guesses. */
export function writeLast(w: ByteWriter, predictor: number, count: Float64Array, last: Float64Array): void {
  let k = 0;
  let x1 = 0;
  let x2 = 0;
  let x3 = 0;
  let x4 = 0;
  for (let i = 0; i < count.length; i++) {
    if (count[i] === 0) continue;
    const x = last[i]!;
    w.int(x - predict(predictor, k++, x1, x2, x3, x4));
    x4 = x3;
    x3 = x2;
    x2 = x1;
    x1 = x;
  }
}

/** Reads the present entries' `last` values, one loop per predictor (this is the hot loop of a scan). */
export function readLast(r: ByteReader, predictor: number, count: Float64Array, last: Float64Array): void {
  const n = count.length;
  let x1 = 0;
  if (predictor === PREDICT_PREVIOUS) {
    for (let i = 0; i < n; i++) if (count[i] !== 0) last[i] = x1 += r.int();
    return;
  }
  let k = 0;
  let x2 = 0;
  let x3 = 0;
  let x4 = 0;
  for (let i = 0; i < n; i++) {
    if (count[i] === 0) continue;
    const x = predict(predictor, k++, x1, x2, x3, x4) + r.int();
    last[i] = x;
    x4 = x3;
    x3 = x2;
    x2 = x1;
    x1 = x;
  }
}

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
export function choosePredictor(count: Float64Array, last: Float64Array): number {
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
