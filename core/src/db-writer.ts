/**
 * The one write path to the database file. History (on its own connection), the audit, the
 * energy totals, the plugin store and auth all write through one DbWriter per server, one
 * job at a time, in order of arrival. SQLite lets one connection write at a time anyway;
 * taking turns here turns contention between the service's own writers into a queue in
 * memory instead of lock waits that end in SQLITE_BUSY after the busy timeout. A job that
 * still meets a busy database (another process holds the lock: an import, a backup) is
 * retried with back-off, never given up; the trouble is logged (at most once a minute) and
 * shown by {@link DbWriter.trouble} until a write succeeds again.
 */
import { createLogger, errorMessage } from './log.js';

const log = createLogger('database');

/** First retry after this long, doubling up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 2000;
const LOG_EVERY_MS = 60_000;

/** SQLite's answers for a lock held by another connection. */
export function isBusyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

export interface WriterTrouble {
  /** Who is waiting (`audit`, `history`, `energy totals`...). */
  what: string;
  error: string;
  /** Unix ms of the first failure since the last success. */
  since: number;
  retries: number;
}

export class DbWriter {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;
  private troubleNow: WriterTrouble | null = null;
  private loggedAt = -Infinity;
  /** Timers of back-offs in progress, cleared by close() so a stopped server exits. */
  private closed = false;

  constructor(private readonly now: () => number = Date.now) {}

  /** Jobs waiting or running. */
  get queued(): number {
    return this.pending;
  }

  /** Why writes are waiting, while a job is being retried; null when the last one succeeded. */
  get trouble(): WriterTrouble | null {
    return this.troubleNow;
  }

  /**
   * Runs `job` after every job queued before it. A busy database is retried with back-off
   * until it succeeds (or the writer is closed); any other error rejects, for the caller
   * to keep its data and try again.
   */
  run<T>(what: string, job: () => Promise<T>): Promise<T> {
    this.pending++;
    const result = this.tail.then(() => this.attempt(what, job));
    this.tail = result.catch(() => undefined).finally(() => this.pending--);
    return result;
  }

  /** Stops retrying: waiting jobs fail with the last error (the server is closing). */
  close(): void {
    this.closed = true;
  }

  private async attempt<T>(what: string, job: () => Promise<T>): Promise<T> {
    let backoff = FIRST_BACKOFF_MS;
    for (;;) {
      try {
        const value = await job();
        if (this.troubleNow) {
          log.info(`database writable again: ${this.troubleNow.what} written after ${this.troubleNow.retries} retries`);
          this.troubleNow = null;
          this.loggedAt = -Infinity;
        }
        return value;
      } catch (err) {
        if (!isBusyError(err) || this.closed) throw err;
        this.noteBusy(what, err);
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
      }
    }
  }

  private noteBusy(what: string, err: unknown): void {
    const now = this.now();
    const t = (this.troubleNow ??= { what, error: errorMessage(err), since: now, retries: 0 });
    t.what = what;
    t.error = errorMessage(err);
    t.retries++;
    if (now - this.loggedAt < LOG_EVERY_MS) return;
    this.loggedAt = now;
    log.warn(
      `the database is locked by another process (${t.error}); ${what} and ${this.pending - 1} other write(s) wait and are retried, nothing is dropped (${t.retries} retries since ${new Date(t.since).toISOString()})`,
    );
  }
}
