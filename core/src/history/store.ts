/**
 * HistoryStore: metric history in the one SQLite database, small, exact and fast.
 *
 * Readings are folded into 10-s slots (count, sum, min, max, last) in memory, one
 * {@link HourBuffer} per topic and hour. Every flush (history.flushIntervalMs) appends the
 * slots changed since the last one to a journal row, so a crash loses at most one flush
 * interval. Once an hour is over, its slots are merged into compressed rows: the 10-s tier
 * (a segment per day; day rows packed into one row per month once the month is over), and
 * the 1-h (row per month) and 1-d (row per year) rollups; the journal then starts afresh.
 * 1-min rollups are written for days whose 10-s history retention or the disk budget
 * deleted; until then the 10-s slots answer 1-min questions exactly, at no extra space.
 *
 * The store only ever runs one transaction at a time, from its flush. Give it a connection
 * of its own to the database file: a transaction on a connection shared with code that
 * runs its own transactions would take in (or be rolled back by) theirs.
 */
import type { Clock } from '../clock.js';
import { migrate, type Db } from '../db.js';
import type { Config } from '../config/schema.js';
import { createLogger, errorMessage } from '../log.js';
import type { HistorySink, PastReadings } from '../topics/sinks.js';
import type { TopicMeta } from '../topics/registry.js';
import { addImportedSlot, addPastSlot, addReading, scaledReading, type SlotAggregate } from './fold.js';
import { TopicIndex } from './topic-index.js';
import { HourBuffer } from './slots.js';
import { HistoryDamageError, quarantineMigrations, type HistoryHealth } from './damage.js';
import { DamageLog } from './damage-log.js';
import { commitChanges, writeBatch } from './batch.js';
import { loadHistory } from './load.js';
import { mergeHours, rowsForMerge } from './compaction.js';
import { Upkeep, usedBytes } from './upkeep.js';
import { historyMigrations } from './migrations.js';
import { claimHistory, releaseHistory } from './owner.js';
import { DbWriter } from '../db-writer.js';
import { collectPiledUpBuffers, returnFreeMemory } from '../system/free-memory.js';
import { PastMarks } from './past-marks.js';
import { pageInputs, runQuery, type HistoryPage, type HistoryQuery } from './planner.js';
import { RowCache, type Row } from './rows.js';
import { DAY_S, floorTo, HOUR_S } from './utc-calendar.js';
import { isRecorded, type TopicRecord, type StoredMeta } from './topic-record.js';

const log = createLogger('history');

/** Unsaved hours (all topics) after which bulk recording flushes before going on. */
const BULK_FLUSH_HOURS = 1000;

export interface HistoryStoreOptions {
  db: Db;
  clock: Clock;
  config: Config['history'];
  /** Flush every config.flushIntervalMs on a timer (default true; tests flush by hand). */
  autoFlush?: boolean;
  /** Only read (export): writes nothing, not even at close, and needs no ownership. */
  readOnly?: boolean;
  /** The server's one write path (db-writer.ts); the CLI's stores get one of their own. */
  writer?: DbWriter;
  /** Gives free memory back to the system at each release (default: system/free-memory.ts). */
  returnFreeMemory?: () => unknown;
}

/** A topic's place in the store, for the recorder's hot path (see {@link HistoryStore.topic}). */
export type TopicHandle = TopicRecord;

export type { SlotAggregate } from './fold.js';

/** Idle time after which the store drops what queries and bulk writes loaded (see releaseWhenIdle). */
export const RELEASE_IDLE_MS = 20_000;

export class HistoryStore implements HistorySink {
  private readonly byTopic = new TopicIndex();
  private readonly cache: RowCache;
  private journalReset = false;
  private lastMaintenanceHour = -Infinity;
  private running: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readOnly = false;
  private writer!: DbWriter;
  private damage!: DamageLog;
  /** When the store opened, last answered a query or took a bulk write, ms; undefined once released. */
  private busyAt: number | undefined;
  private readonly upkeep: Upkeep;
  private returnFreeMemory!: () => unknown;

  private constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: Config['history'],
  ) {
    this.cache = new RowCache(db);
    this.upkeep = new Upkeep(
      {
        records: () => this.byTopic.values(),
        cache: this.cache,
        loadSafely: (rows, verify) => this.loadSafely(rows, verify),
        usedBytes: () => this.usedBytes(),
      },
      config,
      clock,
    );
  }

  /** Applies the history migrations, loads what is known about topics and rows, replays the journal. */
  static async open(options: HistoryStoreOptions): Promise<HistoryStore> {
    await migrate(options.db, [...historyMigrations, ...quarantineMigrations]);
    const store = new HistoryStore(options.db, options.clock, options.config);
    store.readOnly = options.readOnly ?? false;
    store.writer = options.writer ?? new DbWriter(() => options.clock.now());
    store.damage = new DamageLog(store.readOnly);
    store.returnFreeMemory = options.returnFreeMemory ?? returnFreeMemory;
    if (!store.readOnly) await claimHistory(store.db);
    await store.load();
    // What opening read, and the process's start around it, is released like a query's.
    store.busyAt = options.clock.now();
    if (!store.readOnly && (options.autoFlush ?? true)) {
      store.timer = setInterval(() => {
        store.flush().catch((err) => log.error('history flush failed', { err: errorMessage(err) }));
      }, options.config.flushIntervalMs);
      store.timer.unref();
    }
    return store;
  }

  private async load(): Promise<void> {
    const loaded = await loadHistory(this.db, this.readOnly);
    this.byTopic.loaded(loaded.records, loaded.nextId);
    // Replayed slots are saved already; the next commit writes the journal afresh anyway.
    this.journalReset = loaded.journalReplayed;
    this.damage.loaded(loaded.quarantined, loaded.problems);
  }

  /** What was found damaged since the store opened (GET /api/v1/plugins shows it). */
  get healthReport(): HistoryHealth {
    return this.damage.report();
  }

  /** Sets a damaged row aside (see DamageLog.setAside). */
  private quarantine(err: HistoryDamageError): void {
    this.damage.setAside(err, this.byTopic.withId(err.topicId), this.cache);
  }

  /**
   * Loads rows (and with `verify` decodes every segment), quarantining damaged ones; false
   * when one was, so the caller works out its rows again.
   */
  private async loadSafely(rows: readonly Row[], verify: boolean): Promise<boolean> {
    try {
      await this.cache.load(rows);
      if (verify) for (const row of rows) if (row.loaded) this.cache.verify(row);
      return true;
    } catch (err) {
      if (!(err instanceof HistoryDamageError)) throw err;
      this.quarantine(err);
      return false;
    }
  }

  /** The store's record of a topic, created on first use; the meta is kept up to date. */
  topic(meta: StoredMeta & { topic: string }): TopicHandle {
    return this.byTopic.ensure(meta);
  }

  /** What the store knows of a topic it holds history for (also after it left the registry). */
  describe(topic: string): StoredMeta | undefined {
    return this.byTopic.get(topic)?.meta;
  }

  /** Unix ms of the start of the earliest row or unsaved hour of a topic: where its history begins. */
  firstTime(topic: string): number | undefined {
    return this.byTopic.firstTime(topic);
  }

  /**
   * Reads every stored row and decodes every segment, setting damaged ones aside (the
   * repair command); rows leave memory again as it goes. Returns how many were set aside.
   */
  async scrub(onProgress?: (rows: number) => void): Promise<number> {
    const before = this.damage.report().quarantined;
    let n = 0;
    for (const rec of this.byTopic.values()) {
      for (const tier of [10, 60, 3600, 86400] as const) {
        for (const row of [...rec.rows[tier].byStart.values()]) {
          await this.loadSafely([row], true);
          this.cache.trim();
          if (++n % 1000 === 0) onProgress?.(n);
        }
      }
    }
    await this.flush();
    return this.damage.report().quarantined - before;
  }

  /** Every topic with history, by name. */
  topics(): string[] {
    return this.byTopic.names();
  }

  /** Folds one reading into its 10-s slot. The hot path of live recording: no allocation. */
  record(rec: TopicHandle, timeMs: number, value: number): void {
    if (!Number.isFinite(value)) return;
    const r = scaledReading(rec, value);
    addReading(rec, timeMs, r);
  }

  /** One past reading of a bulk write (the import command's `value` lines). */
  recordPastReading(rec: TopicHandle, marks: PastMarks, timeMs: number, value: number): void {
    if (!Number.isFinite(value)) return;
    const r = scaledReading(rec, value);
    addPastSlot(rec, marks, timeMs, 1, r, r, r, r);
  }

  /** Flushes when a bulk write holds many unsaved hours, so memory stays bounded. */
  async flushIfFull(): Promise<void> {
    if (this.byTopic.pendingHours() > BULK_FLUSH_HOURS) await this.flush();
  }

  /** Readings of one topic in the past: see {@link recordPastSeries}. */
  recordPast(meta: TopicMeta, readings: PastReadings): Promise<void> {
    return this.recordPastSeries([[meta, readings]]);
  }

  /**
   * Readings of the past (backfill, `ctx.topics.record`): folded like live ones, except that
   * a slot this call writes replaces what history held for it, so a backfill resumed after a
   * crash stores its overlap once (see PastMarks). A bulk write is its own batch, whatever
   * the number of topics: it flushes every ~1000 topic-hours to bound memory, and once at the
   * end, so the readings are on disk when the promise resolves.
   */
  recordPastSeries(series: Iterable<readonly [TopicMeta, PastReadings]>): Promise<void> {
    // The series are folded before the flush starts, and not held while it awaits the
    // database: a backfill's arrays are then garbage while still young.
    return this.foldPast(series).then(async (folded) => {
      if (folded === 0) return;
      await this.flush();
      this.busyAt = this.clock.now();
    });
  }

  /** Folds bulk readings into unsaved hours (flushing when they get many); how many were folded. */
  private async foldPast(series: Iterable<readonly [TopicMeta, PastReadings]>): Promise<number> {
    let folded = 0;
    const marks = new PastMarks();
    for (const [meta, readings] of series) {
      if (!isRecorded(meta)) continue;
      const rec = this.topic(meta);
      const columns = 'times' in readings;
      const n = columns ? readings.times.length : readings.length;
      for (let i = 0; i < n; i++) {
        if (columns) this.recordPastReading(rec, marks, readings.times[i]!, readings.values[i]!);
        else this.recordPastReading(rec, marks, readings[i]![0], readings[i]![1]);
        if ((++folded & 0xfff) === 0 && this.byTopic.pendingHours() > BULK_FLUSH_HOURS) await this.flush();
      }
    }
    return folded;
  }

  /** Slot aggregates from an export (the import command); `marks` spans the whole import. */
  async importSlots(
    meta: StoredMeta & { topic: string },
    slots: readonly SlotAggregate[],
    marks: PastMarks,
  ): Promise<void> {
    const rec = this.topic(meta);
    for (const s of slots) {
      addImportedSlot(rec, marks, s);
      if (this.byTopic.pendingHours() > BULK_FLUSH_HOURS) await this.flush();
    }
  }

  /** One page of history of a topic (with no points when the store has none for it). */
  async query(topic: string, q: HistoryQuery): Promise<HistoryPage> {
    for (let attempt = 0; ; attempt++) {
      try {
        const page = await runQuery(this.byTopic.get(topic), q, this.cache);
        this.cache.trim();
        // What the page decoded and read is garbage now; see collectPiledUpBuffers.
        collectPiledUpBuffers();
        this.busyAt = this.clock.now();
        return page;
      } catch (err) {
        // A damaged row is set aside and the query asked again: the answer then says which
        // range was unreadable (page.unreadable) instead of failing or reading as empty.
        if (!(err instanceof HistoryDamageError) || attempt >= 50) throw err;
        this.quarantine(err);
      }
    }
  }

  /** What a page of `q` would be read from now (HistoryPage.inputs); undefined while a row it needs is unloaded. */
  pageInputs(topic: string, q: HistoryQuery): readonly number[] | undefined {
    return pageInputs(this.byTopic.get(topic), q);
  }

  /**
   * Writes what was recorded since the last flush in one transaction: merges hours that are
   * over into rows, does the hourly upkeep, and journals the open hour. Calls made while a
   * flush runs share the one after it.
   */
  flush(): Promise<void> {
    if (this.readOnly) return Promise.resolve();
    if (this.queued) return this.queued;
    const next = this.running.then(() => {
      this.queued = null;
      return this.runFlush();
    });
    this.queued = next;
    this.running = next.catch(() => undefined);
    return next;
  }

  /** Bytes of stored rows and decoded segments the store holds in memory (an estimate). */
  get cachedBytes(): number {
    return this.cache.heldBytes;
  }

  /** What the store holds in memory, by kind (see RowCache.status): for tests and diagnosis. */
  get memoryStatus(): RowCache['status'] {
    return this.cache.status;
  }

  /**
   * RELEASE_IDLE_MS after the store opened, and after queries and bulk writes have stopped
   * for as long, the rows and segments they loaded are dropped, SQLite is asked to free its
   * page cache (PRAGMA shrink_memory), and V8 and the C allocator to return what they hold
   * free (system/free-memory.ts). A backfill or a burst of year-long answers then costs
   * memory only while it runs. The next query reads what it needs again (a few ms for a year
   * at 1 h).
   */
  private async releaseWhenIdle(): Promise<void> {
    if (this.busyAt === undefined || this.clock.now() - this.busyAt < RELEASE_IDLE_MS) return;
    this.busyAt = undefined;
    this.cache.release();
    await this.db.exec('PRAGMA shrink_memory');
    await this.returnFreeMemory();
  }

  /** Stops the timer and writes everything recorded. The database stays open (the caller owns it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.readOnly) return;
    await this.flush();
    await releaseHistory(this.db);
  }

  private async runFlush(): Promise<void> {
    const now = Math.floor(this.clock.now() / 1000);
    const currentHour = floorTo(now, HOUR_S);
    const today = floorTo(now, DAY_S);
    for (const rec of this.byTopic.values()) rec.closeHoursBefore(currentHour);
    for (const rec of this.byTopic.values()) {
      if (rec.compacting.length === 0) continue;
      // Between the last check and the end of the block nothing awaits: a query sees either
      // the hours or the rows they were merged into, never both or neither.
      for (let attempt = 0; ; attempt++) {
        const rows = rowsForMerge(rec, rec.compacting);
        // Rows merged into are decoded first: a damaged one is set aside (a new row takes
        // its place) rather than failing every flush from now on.
        const sound = await this.loadSafely(rows, true);
        if (attempt > 50) throw new Error(`history rows of ${rec.topic} keep failing to load; the flush is retried`);
        if (sound && rows.every((r) => r.loaded)) break;
      }
      mergeHours(rec, rec.compacting, this.cache, today);
      HourBuffer.recycle(rec.compacting);
      rec.compacting = [];
      this.journalReset = true;
    }
    if (currentHour > this.lastMaintenanceHour) {
      await this.upkeep.run(today);
      this.lastMaintenanceHour = currentHour;
    }
    await this.commit();
    this.cache.trim();
    // Live recording merges each topic once an hour: nothing to keep decoded for the next.
    if (this.busyAt === undefined) this.cache.endEdits();
    await this.releaseWhenIdle();
  }

  /**
   * Flushes, then rebuilds the database file without its free pages and empties the WAL:
   * for a backup or a measurement. Pages freed by rewritten rows are otherwise reused, so
   * the file needs this only to shrink, never to stay small.
   */
  async vacuum(): Promise<void> {
    await this.flush();
    await this.running;
    await this.db.exec('VACUUM');
    await this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }

  /** Bytes of database pages in use (freed pages are reused, so they do not count). */
  usedBytes(): Promise<number> {
    return usedBytes(this.db);
  }

  /** Writes what changed (see commitChanges); on failure all of it, the journal in full, waits for the next flush. */
  private async commit(): Promise<void> {
    const reset = this.journalReset;
    try {
      const changes = { records: this.byTopic.values(), cache: this.cache, damage: this.damage, reset };
      await commitChanges(changes, (batch) =>
        this.writer.run('history', () => writeBatch(this.db, batch, this.clock.now())),
      );
    } catch (err) {
      this.journalReset = true;
      throw err;
    }
    if (reset) this.journalReset = false;
  }
}
