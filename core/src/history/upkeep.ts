/**
 * The history store's hourly upkeep: past months packed into month rows, retention applied,
 * then the disk budget (history.diskBudgetMb) kept by deleting the oldest 10-s history.
 */
import type { Db } from '../db.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import { createLogger } from '../log.js';
import { evictBefore, monthsToRepack, oldestRowsCutoff, repackMonth, rowsToEvict } from './compaction.js';
import type { Row, RowCache } from './rows.js';
import type { TopicRecord } from './topic-record.js';
import { DAY_S } from './utc-calendar.js';

const log = createLogger('history');

/** Topic-months packed per hourly upkeep. */
const REPACKS_PER_RUN = 64;

/** What the upkeep needs of the store. */
export interface UpkeepStore {
  records(): Iterable<TopicRecord>;
  cache: RowCache;
  /** Loads rows (decoding them with `verify`), setting damaged ones aside; false when one was. */
  loadSafely(rows: readonly Row[], verify: boolean): Promise<boolean>;
  /** Bytes of database pages in use. */
  usedBytes(): Promise<number>;
}

export class Upkeep {
  private budgetWarned = -Infinity;

  constructor(
    private readonly store: UpkeepStore,
    private readonly config: Config['history'],
    private readonly clock: Clock,
  ) {}

  /**
   * Hourly upkeep: pack past months, apply retention, then the disk budget. Packing is
   * spread over several hours when many topics have a month to pack, so a month's turn
   * with hundreds of topics neither holds them all in memory nor writes them at once.
   */
  async run(today: number): Promise<void> {
    let packed = 0;
    for (const rec of this.store.records()) {
      for (const { tier, month, rows } of monthsToRepack(rec, today)) {
        if (packed++ >= REPACKS_PER_RUN) break;
        if (!(await this.store.loadSafely(rows, false))) continue;
        if (rows.every((r) => r.loaded && !r.deleted)) repackMonth(rec, tier, month, rows, this.store.cache);
      }
    }
    await this.evictAll(today - this.config.retentionDays * DAY_S, today);
    const cutoff = await this.budgetCutoff(today);
    if (cutoff !== undefined) await this.evictAll(cutoff, today);
  }

  private async evictAll(cutoff: number, today: number): Promise<void> {
    for (const rec of this.store.records()) {
      if (cutoff <= rec.evictedBefore) continue;
      let rows = rowsToEvict(rec, cutoff);
      if (!(await this.store.loadSafely(rows, true))) continue;
      rows = rowsToEvict(rec, cutoff);
      if (rows.every((r) => r.loaded)) evictBefore(rec, cutoff, rows, this.store.cache, today);
    }
  }

  /**
   * When the database is over history.diskBudgetMb, the day before which 10-s history must
   * go, covering the excess with room to spare (the 1-min rollups that replace it take some
   * of it back). Never today or yesterday.
   */
  private async budgetCutoff(today: number): Promise<number | undefined> {
    const used = await this.store.usedBytes();
    const budget = this.config.diskBudgetMb * 1024 * 1024;
    if (used <= budget) return undefined;
    const cutoff = oldestRowsCutoff(this.store.records(), (used - budget) * 1.5, today - DAY_S);
    if (cutoff === undefined && this.clock.now() - this.budgetWarned > 86_400_000) {
      this.budgetWarned = this.clock.now();
      log.warn(
        `the database uses ${(used / 1048576).toFixed(1)} MB, over history.diskBudgetMb (${this.config.diskBudgetMb}), and no 10-s history is left to delete; raise the budget`,
      );
    }
    return cutoff;
  }
}

/** Bytes of the database's pages in use (freed pages are reused, so they do not count). */
export async function usedBytes(db: Db): Promise<number> {
  const r = await db.get<{ used: number }>(
    'SELECT (page_count - freelist_count) * page_size AS used FROM pragma_page_count, pragma_freelist_count, pragma_page_size',
  );
  return r?.used ?? 0;
}
