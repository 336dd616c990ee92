/**
 * The audit's one writer. Entries queue in memory and go to the database in one multi-row
 * INSERT per batch, at most one statement at a time: a burst of refused writes (3 000
 * `set` frames) is a few short statements instead of 3 000 that each take the database's
 * write lock and starve the history writer into SQLITE_BUSY. The queue is bounded; what
 * does not fit is counted and written as one entry saying so, never dropped silently.
 */
import type { Db } from '../db.js';
import { createLogger, errorMessage } from '../log.js';

const log = createLogger('audit');

/** Entries per INSERT: 9 parameters each, well under SQLite's 32 766 parameter limit. */
const BATCH = 500;
/** Entries waiting at most; a flood beyond this becomes one "N entries not kept" entry. */
export const AUDIT_QUEUE_LIMIT = 5000;

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

export class AuditQueue {
  private queue: AuditRow[] = [];
  private overflow = 0;
  private writing: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  push(row: AuditRow): void {
    if (this.queue.length >= AUDIT_QUEUE_LIMIT) this.overflow++;
    else this.queue.push(row);
    this.schedule();
  }

  /** Resolves once every entry queued so far is written (or its write failed and was logged). */
  async drain(): Promise<void> {
    while (this.writing || this.queue.length > 0 || this.overflow > 0) {
      this.schedule();
      await this.writing;
    }
  }

  private schedule(): void {
    if (this.writing) return;
    // setImmediate: entries pushed in the same turn (a burst of frames) share one statement.
    this.writing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.writeAll())
      .finally(() => (this.writing = null));
  }

  private async writeAll(): Promise<void> {
    while (this.queue.length > 0 || this.overflow > 0) {
      if (this.overflow > 0 && this.queue.length < AUDIT_QUEUE_LIMIT) {
        this.queue.push([
          this.now(),
          'system',
          'rest',
          '(audit)',
          'null',
          '',
          'error',
          `${this.overflow} write attempts arrived faster than the audit could keep them and were not recorded individually`,
        ]);
        this.overflow = 0;
      }
      const batch = this.queue.splice(0, BATCH);
      try {
        await this.db.run(
          `INSERT INTO audit (time, who, via, topic, old_value, new_value, result, message) VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          ...batch.flat(),
        );
      } catch (err) {
        log.error(`could not write ${batch.length} audit entries; they are lost`, { err: errorMessage(err) });
      }
    }
  }
}
