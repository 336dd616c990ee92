/**
 * Shared pieces of the history tests: a store on a real SQLite file in a temp dir, seeded
 * random readings, and a brute-force reference that answers a query from the raw readings.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ManualClock } from '../../src/clock.js';
import type { Config } from '../../src/config/schema.js';
import { openDatabase, type Db } from '../../src/db.js';
import type { HistoryQuery } from '../../src/history/planner.js';
import type { Agg } from '../../src/history/slots.js';
import { HistoryStore, type HistoryStoreOptions } from '../../src/history/store.js';
import type { TopicMeta } from '../../src/topics/registry.js';
import { tempDir } from '../helpers/tmp.js';
import { topicMeta } from '../helpers/topics.js';

export const HISTORY_CONFIG: Config['history'] = { retentionDays: 3650, diskBudgetMb: 2048, flushIntervalMs: 5000 };

/** A recorded power reading's meta, named by the topic's field (`pv_power`). */
export function meta(topic: string, extra: Partial<TopicMeta> = {}): TopicMeta {
  return topicMeta(topic, { name: topic.split('/')[1]!, ...extra });
}

export interface OpenedStore {
  db: Db;
  store: HistoryStore;
  file: string;
  /** Flushes, closes the store and the database. */
  close(): Promise<void>;
}

export async function openStore(
  file: string,
  clock: ManualClock,
  config: Partial<Config['history']> = {},
  options: Pick<HistoryStoreOptions, 'returnFreeMemory'> = {},
): Promise<OpenedStore> {
  const db = await openDatabase(file);
  const store = await HistoryStore.open({
    db,
    clock,
    config: { ...HISTORY_CONFIG, ...config },
    autoFlush: false,
    ...options,
  });
  return {
    db,
    store,
    file,
    async close() {
      await store.close();
      await db.close();
    },
  };
}

export function tempDbFile(): string {
  return join(tempDir('heliograph-history-'), 'heliograph.db');
}

/** mulberry32: small, seeded, the same numbers on every run. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A reading as the reference keeps it: the value as an integer of `decimals` places. */
export interface Reading {
  t: number;
  units: number;
  decimals: number;
}

export function value(r: Reading): number {
  return r.units / 10 ** r.decimals;
}

/**
 * Readings from `start` to `end` (Unix ms) in bursts: stretches with several readings per
 * slot, stretches at one per 10 s, and gaps from a minute to more than a day.
 */
export function readings(rnd: () => number, start: number, end: number, decimals: (t: number) => number): Reading[] {
  const out: Reading[] = [];
  let t = start;
  let level = 5000;
  while (t < end) {
    const mode = rnd();
    const span = (mode < 0.1 ? 30 : 600 + rnd() * 30_000) * 1000;
    const stop = Math.min(end, t + span);
    const step = mode < 0.4 ? 1000 + rnd() * 4000 : mode < 0.8 ? 10_000 : 20_000 + rnd() * 60_000;
    for (; t < stop; t += step) {
      level += Math.round((rnd() - 0.5) * 200);
      const d = decimals(t);
      out.push({
        t: Math.floor(t),
        units: level * 10 ** d + Math.floor(rnd() * 10 ** d) * (rnd() < 0.5 ? -1 : 1),
        decimals: d,
      });
    }
    t += rnd() < 0.2 ? 60_000 + rnd() * 130_000_000 : 60_000 + rnd() * 3_600_000;
  }
  return out;
}

/** The exact answer from raw readings: [bucket start (Unix s), value] of every bucket with readings. */
export function reference(all: readonly Reading[], q: Omit<HistoryQuery, 'agg'>, agg: Agg): Array<[number, number]> {
  const size = q.groupMs / 1000;
  const start = Math.floor(q.fromMs / (size * 1000)) * size;
  let scale = 0;
  for (const r of all) scale = Math.max(scale, r.decimals);
  const buckets = new Map<
    number,
    { count: number; sum: number; min: number; max: number; last: number; lastT: number }
  >();
  for (const r of all) {
    const slot = Math.floor(r.t / 10_000) * 10;
    if (slot * 1000 < q.fromMs || slot * 1000 >= q.toMs) continue;
    const b = start + Math.floor((slot - start) / size) * size;
    const u = r.units * 10 ** (scale - r.decimals);
    const acc = buckets.get(b);
    if (!acc) buckets.set(b, { count: 1, sum: u, min: u, max: u, last: u, lastT: r.t });
    else {
      acc.count++;
      acc.sum += u;
      acc.min = Math.min(acc.min, u);
      acc.max = Math.max(acc.max, u);
      if (r.t >= acc.lastT) {
        acc.last = u;
        acc.lastT = r.t;
      }
    }
  }
  const p = 10 ** scale;
  return [...buckets.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([b, acc]) => [b, agg === 'mean' ? acc.sum / acc.count / p : acc[agg] / p]);
}

/** Every page of a query from the store, concatenated, checking each page's paging fields. */
export async function allPages(store: HistoryStore, topic: string, q: HistoryQuery): Promise<Array<[number, number]>> {
  const out: Array<[number, number]> = [];
  let from = q.fromMs;
  for (let pages = 0; ; pages++) {
    const page = await store.query(topic, { ...q, fromMs: from });
    const b = page.buckets;
    assert.ok(b.n <= 2000, 'a page holds at most 2000 buckets');
    for (let i = 0; i < b.n; i++) if (b.count[i]! > 0) out.push([b.start + i * b.size, b.value(i, q.agg)]);
    if (page.nextMs === undefined) {
      assert.equal(page.endMs, q.toMs, 'the last page ends at to');
      return out;
    }
    assert.equal(b.n, 2000, 'a page followed by another covers 2000 bucket intervals');
    assert.equal(page.nextMs, (b.start + 2000 * b.size) * 1000, 'next is the end of the 2000th bucket');
    assert.ok(page.nextMs < q.toMs);
    from = page.nextMs;
  }
}

/**
 * Compares an answer with the reference: sums, extremes and last exactly; means to the
 * three extra decimals they are rounded to, and never with more decimals than that.
 */
export function assertSameAnswer(
  actual: Array<[number, number]>,
  expected: Array<[number, number]>,
  agg: Agg,
  decimals: number,
  what: string,
): void {
  assert.equal(actual.length, expected.length, `${what}: number of points`);
  for (let i = 0; i < expected.length; i++) {
    const [t, v] = actual[i]!;
    const [et, ev] = expected[i]!;
    assert.equal(t, et, `${what}: time of point ${i}`);
    if (agg === 'mean') {
      assert.ok(
        Math.abs(v - ev) <= 0.5 * 10 ** -(decimals + 3) + Math.abs(ev) * 1e-12,
        `${what}: mean at ${new Date(t * 1000).toISOString()}: ${v} vs exact ${ev}`,
      );
      const places = String(v).split('.')[1]?.length ?? 0;
      assert.ok(places <= decimals + 3, `${what}: ${v} carries float noise`);
    } else {
      assert.equal(v, ev, `${what}: ${agg} at ${new Date(t * 1000).toISOString()}`);
    }
  }
}

export { ManualClock };
