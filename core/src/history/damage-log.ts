/**
 * What a store has found damaged since it opened: the count and the latest problems (for
 * status and logs), and the damaged rows waiting to be moved to history_quarantine at the
 * next commit. A read-only store (export) only reports.
 */
import { createLogger } from '../log.js';
import { REPAIR_HINT, type HistoryDamageError, type HistoryHealth } from './damage.js';
import type { Row, RowCache } from './rows.js';
import type { TopicRecord } from './topic-record.js';

const log = createLogger('history');
const PROBLEMS_KEPT = 20;

export type PendingQuarantine = Array<{ row: Row; reason: string }>;

export class DamageLog {
  private quarantined = 0;
  private readonly problems: string[] = [];
  private pending: PendingQuarantine = [];

  constructor(private readonly readOnly: boolean) {}

  report(): HistoryHealth {
    return { quarantined: this.quarantined, problems: [...this.problems] };
  }

  /** Problems found (and rows set aside) while loading. */
  loaded(quarantined: number, problems: readonly string[]): void {
    this.quarantined += quarantined;
    for (const p of problems) this.problem(p);
  }

  /**
   * Sets a damaged row aside: out of memory at once (queries then report its range as
   * unreadable), into history_quarantine and out of history_blocks at the next commit.
   */
  setAside(err: HistoryDamageError, rec: TopicRecord | undefined, cache: RowCache): void {
    const row = rec?.rows[err.tier].byStart.get(err.start);
    if (!rec || !row) return;
    cache.remove(rec.rows[err.tier], row);
    rec.damaged.push({ tier: err.tier, start: err.start, end: err.end });
    this.quarantined++;
    if (!this.readOnly) this.pending.push({ row, reason: err.message });
    const range = `${new Date(err.start * 1000).toISOString()} to ${new Date(err.end * 1000).toISOString()}`;
    this.problem(
      `${rec.topic}: ${err.message}; ${range} at ${err.tier}-s resolution is unreadable, the rest of history is served; ${REPAIR_HINT}`,
    );
  }

  /** The rows to move to history_quarantine in this commit. */
  takePending(): PendingQuarantine {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  /** A failed commit: its rows wait for the next. */
  putBack(rows: PendingQuarantine): void {
    this.pending.unshift(...rows);
  }

  private problem(text: string): void {
    log.error(text);
    this.problems.push(text);
    if (this.problems.length > PROBLEMS_KEPT) this.problems.shift();
  }
}
