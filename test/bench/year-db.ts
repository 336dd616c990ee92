// The year of ./gen-year.ts loaded into a history store through the recorder's folding path, as
// the history benchmarks query it: in-process (history.bench.ts) and through `heliograph serve`
// (serve-history.bench.ts, which keeps one copy under bench-data/ between runs).
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '@heliograph/core/clock';
import { HistoryStore, openDatabase, TopicRegistry, type Db, type TopicMeta } from '@heliograph/core/testing';
import { topicMeta } from '@heliograph/core/test/helpers/topics';
import { generateYear, UNITS, YEAR_START, YEAR_TOPICS, type YearSeries } from './gen-year.js';

export const HISTORY = { retentionDays: 3650, diskBudgetMb: 2048, flushIntervalMs: 5000 };
export const YEAR_END = YEAR_START + 365 * 86_400_000;
/** Readings handed to the store at once: 30 days of each topic, as a backfill would. */
const CHUNK = 8640 * 30;

export function meta(topic: string, unit = 'W'): TopicMeta {
  return topicMeta(topic, { name: topic.split('/')[1]!, unit });
}

export interface YearDb {
  file: string;
  db: Db;
  store: HistoryStore;
  registry: TopicRegistry;
  clock: ManualClock;
  readings: number;
  storeMs: number;
  generateMs: number;
  /** Bytes on disk checkpointed, before and after VACUUM. */
  loadedBytes: number;
  bytes: number;
}

/** Loads the year's `series` into a fresh `dir/heliograph.db` (the service's file name), left open. */
export async function buildYearDb(dir: string, series: readonly YearSeries[]): Promise<YearDb> {
  const file = join(dir, 'heliograph.db');
  const clock = new ManualClock(YEAR_END);
  const db = await openDatabase(file);
  const store = await HistoryStore.open({ db, clock, config: HISTORY, autoFlush: false });
  const registry = new TopicRegistry(clock);
  const metas = series.map((name) => meta(YEAR_TOPICS[name], UNITS[name]));
  for (const m of metas) registry.define(m);
  let readings = 0;
  let storeMs = 0;
  let generateMs = 0;
  const year = generateYear();
  for (let done = false; !done;) {
    const t0 = performance.now();
    const parts: Array<Array<[number, number]>> = series.map(() => []);
    for (let i = 0; i < CHUNK; i++) {
      const next = year.next();
      if (next.done) {
        done = true;
        break;
      }
      series.forEach((name, k) => parts[k]!.push([next.value.time, next.value[name]]));
    }
    generateMs += performance.now() - t0;
    if (parts[0]!.length === 0) break;
    readings += parts.length * parts[0]!.length;
    const t1 = performance.now();
    await store.recordPastSeries(metas.map((m, k) => [m, parts[k]!] as const));
    storeMs += performance.now() - t1;
  }
  // An hour later: the hourly upkeep runs (packing any day rows of past months).
  clock.advance(3_600_000);
  const t0 = performance.now();
  await store.flush();
  storeMs += performance.now() - t0;
  await db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const loadedBytes = statSync(file).size;
  await store.vacuum();
  const bytes = statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
  return { file, db, store, registry, clock, readings, storeMs, generateMs, loadedBytes, bytes };
}
