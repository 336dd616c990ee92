/**
 * The audit's one writer. Entries queue in memory and go to the database in one multi-row
 * INSERT per batch, through the server's DbWriter (one write at a time for the whole file):
 * a burst of writes (3 000 `set` frames) is a few short statements instead of 3 000 that
 * each take the database's write lock. `push` resolves once its entry is on disk, so a
 * write is acknowledged only after its entry is durable (WAL, synchronous = NORMAL: a
 * killed process loses nothing committed). A batch that fails is kept and retried with
 * back-off, never dropped; `trouble` says why while it waits. The queue is bounded; what
 * does not fit is counted and written as one entry saying so.
 */
import type { Db } from '../db.js';
import type { DbWriter } from '../db-writer.js';
import { createLogger, errorMessage } from '../log.js';

const log = createLogger('audit');

/** Entries per INSERT: 8 parameters each, well under SQLite's 32 766 parameter limit. */
const BATCH = 500;
/** Entries waiting at most; a flood beyond this becomes one "N entries not kept" entry. */
export const AUDIT_QUEUE_LIMIT = 5000;
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5000;
const LOG_EVERY_MS = 60_000;

export type AuditRow = [
  time: number,
  who: string,
  via: string,
  topic: string,
  oldValue: string,
  newValue: string,
  result: string,
  message: string | null,
];

interface Waiting {
  row: AuditRow;
  written: () => void;
}

export class AuditQueue {
  private queue: Waiting[] = [];
  private overflow = 0;
  /** Writers waiting for the overflow entry (the entries counted in it). */
  private overflowWaiters: Array<() => void> = [];
  private writing: Promise<void> | null = null;
  private troubleNow: string | null = null;
  private loggedAt = -Infinity;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly writer: DbWriter,
    private readonly now: () => number,
  ) {}

  /** Why entries are waiting to be written, or null. */
  get trouble(): string | null {
    return this.troubleNow ?? (this.writer.trouble ? `the database is locked: ${this.writer.trouble.error}` : null);
  }

  /** Entries not yet on disk. */
  get waiting(): number {
    return this.queue.length + this.overflow;
  }

  /** Queues an entry; resolves once it (or the overflow entry counting it) is written. */
  push(row: AuditRow): Promise<void> {
    const written = new Promise<void>((resolve) => {
      if (this.queue.length >= AUDIT_QUEUE_LIMIT) {
        this.overflow++;
        this.overflowWaiters.push(resolve);
      } else this.queue.push({ row, written: resolve });
    });
    this.schedule();
    return written;
  }

  /** Resolves once every entry queued so far is written. */
  async drain(): Promise<void> {
    while (this.writing || this.queue.length > 0 || this.overflow > 0) {
      this.schedule();
      await this.writing;
    }
  }

  /** At shutdown: stops retrying after the current attempt (entries still waiting are logged). */
  close(): void {
    this.closed = true;
  }

  private schedule(): void {
    if (this.writing || this.closed) return;
    // setImmediate: entries pushed in the same turn (a burst of frames) share one statement.
    this.writing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.writeAll())
      .finally(() => {
        this.writing = null;
        // An entry pushed while the last batch was finishing found `writing` still set.
        if (this.queue.length > 0 || this.overflow > 0) this.schedule();
      });
  }

  private async writeAll(): Promise<void> {
    let retryMs = FIRST_RETRY_MS;
    while (this.queue.length > 0 || this.overflow > 0) {
      this.takeOverflow();
      const batch = this.queue.slice(0, BATCH);
      try {
        await this.writer.run('audit', () =>
          this.db.run(
            `INSERT INTO audit (time, who, via, topic, old_value, new_value, result, message) VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
            ...batch.flatMap((w) => w.row),
          ),
        );
      } catch (err) {
        if (this.closed) {
          log.error(`${this.waiting} audit entries could not be written before shutdown: ${errorMessage(err)}`);
          return;
        }
        this.noteFailure(err);
        await new Promise((resolve) => setTimeout(resolve, retryMs));
        retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
        continue;
      }
      this.queue.splice(0, batch.length);
      for (const w of batch) w.written();
      retryMs = FIRST_RETRY_MS;
      if (this.troubleNow) log.info('audit entries are written again; none was lost');
      this.troubleNow = null;
      this.loggedAt = -Infinity;
    }
  }

  /** Turns the count of entries that did not fit into one entry saying so. */
  private takeOverflow(): void {
    if (this.overflow === 0 || this.queue.length >= AUDIT_QUEUE_LIMIT) return;
    const waiters = this.overflowWaiters;
    this.queue.push({
      row: [
        this.now(),
        'system',
        'rest',
        '(audit)',
        'null',
        '',
        'error',
        `${this.overflow} write attempts arrived faster than the audit could keep them and were not recorded individually`,
      ],
      written: () => waiters.forEach((w) => w()),
    });
    this.overflow = 0;
    this.overflowWaiters = [];
  }

  private noteFailure(err: unknown): void {
    this.troubleNow = `${this.waiting} audit entries wait to be written (${errorMessage(err)}); retrying`;
    const now = this.now();
    if (now - this.loggedAt < LOG_EVERY_MS) return;
    this.loggedAt = now;
    log.error(`could not write audit entries: ${this.troubleNow}. They are kept in memory and retried, not dropped.`);
  }
}
