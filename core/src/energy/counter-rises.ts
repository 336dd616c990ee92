import type { HistoryStore } from '../history/store.js';

/** A counter's readings per group: how many, their least, greatest and last value (NaN-free, 0 where none). */
export interface CounterGroups {
  count: Float64Array;
  min: Float64Array;
  max: Float64Array;
  last: Float64Array;
}

/**
 * A period-to-date counter's readings in `n` groups of `groupMs` from `fromMs` (epoch-aligned,
 * as the store's buckets are), read from the coarsest of the store's tiers that answers them
 * exactly (the 1-h rollups for hour groups), page after page.
 */
export async function readCounterGroups(
  store: HistoryStore,
  topic: string,
  fromMs: number,
  n: number,
  groupMs: number,
): Promise<CounterGroups> {
  const out: CounterGroups = {
    count: new Float64Array(n),
    min: new Float64Array(n),
    max: new Float64Array(n),
    last: new Float64Array(n),
  };
  const toMs = fromMs + n * groupMs;
  for (let pageFrom = fromMs; pageFrom < toMs;) {
    const page = await store.query(topic, { fromMs: pageFrom, toMs, groupMs, agg: 'last' });
    const { buckets } = page;
    const offset = Math.round((buckets.timeMs(0) - fromMs) / groupMs);
    for (let b = 0; b < buckets.n; b++) {
      const count = buckets.count[b]!;
      if (count === 0) continue;
      const i = offset + b;
      out.count[i] = count;
      out.min[i] = buckets.value(b, 'min');
      out.max[i] = buckets.value(b, 'max');
      out.last[i] = buckets.value(b, 'last');
    }
    if (page.nextMs === undefined) break;
    pageFrom = page.nextMs;
  }
  return out;
}

/**
 * How far a period-to-date counter rose in group `i` (i >= 1), from the last reading of the
 * group before when it has one. The counter only rises within a period; a drop is a reset (a
 * new period, under whatever settings were in force), and the value after it counts from 0:
 * - the last reading below the greatest: the drop came inside the group, after its peak;
 * - a reading below the group before's last: the drop came at its start;
 * - else the plain rise.
 * Without readings in the group before (the start of history, or the service was off: the
 * counters integrate nothing over such a gap), the rise counts from the group's first reading.
 */
export function riseIn(groups: CounterGroups, i: number): number {
  const { count, min, max, last } = groups;
  if (count[i] === 0) return 0;
  const value = last[i]!;
  if (count[i - 1] === 0) return value < max[i]! ? value : value - min[i]!;
  const before = last[i - 1]!;
  if (value < max[i]!) return Math.max(0, max[i]! - before) + value;
  if (min[i]! < before) return value;
  return value - before;
}
