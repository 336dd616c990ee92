/*
 * `ctx.status.progress`: how far each instance's long task has got (the simulator's backfill),
 * as GET /api/v1/plugins shows it, with an estimated end, and the log lines that tell the same
 * at most every few seconds. One board per server; an instance's entry goes with its start.
 */
import { z } from 'zod';
import type { ProgressReport } from '@heliograph/plugins-sdk';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../log.js';
import { formatUtc } from '../../rfc3339.js';

/** The shortest time between two log lines of one task's progress (its start and end are always logged). */
export const PROGRESS_LOG_EVERY_MS = 5_000;
/** How long a task must have run before its end is estimated: earlier rates are mostly start-up. */
const ETA_AFTER_MS = 1_000;

/** A task's progress as GET /api/v1/plugins shows it (`progress`). */
export interface ProgressStatus {
  what: string;
  done: number;
  total: number;
  unit: string | null;
  /** When it should be done at the rate so far (RFC 3339 UTC); null until that can be told, or once done. */
  eta: string | null;
}

const reportSchema = z.object({
  what: z.string().trim().min(1).max(200),
  done: z.number().finite().min(0),
  total: z.number().finite().positive(),
  unit: z.string().trim().min(1).max(40).optional(),
});

interface Entry {
  report: ProgressReport;
  /** When this task's first report came and how much was done then: the rate's base. */
  startedAt: number;
  startDone: number;
  eta: number | null;
  loggedAt: number;
}

export class ProgressBoard {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly clock: Clock) {}

  /** Takes an instance's report (checked: a plugin in a worker sends anything); logs it when due. */
  report(instanceId: string, args: unknown, log: Logger): void {
    const parsed = reportSchema.safeParse(args);
    if (!parsed.success)
      throw new TypeError(
        `ctx.status.progress: expected { what: text, done: number from 0, total: number above 0, unit?: text }, got ${JSON.stringify(args)}`,
      );
    const report = { ...parsed.data, done: Math.min(parsed.data.done, parsed.data.total) };
    const now = this.clock.now();
    const before = this.entries.get(instanceId);
    // A new task, or the same one started over: its rate is measured afresh.
    const fresh = !before || before.report.what !== report.what || report.done < before.report.done;
    const entry: Entry = fresh
      ? { report, startedAt: now, startDone: report.done, eta: null, loggedAt: -Infinity }
      : { ...before, report };
    const finished = report.done >= report.total;
    const elapsed = now - entry.startedAt;
    const rate = elapsed >= ETA_AFTER_MS ? (report.done - entry.startDone) / elapsed : 0;
    entry.eta = !finished && rate > 0 ? now + (report.total - report.done) / rate : null;
    this.entries.set(instanceId, entry);
    const wasFinished = before !== undefined && !fresh && before.report.done >= before.report.total;
    if (fresh || (finished && !wasFinished) || now - entry.loggedAt >= PROGRESS_LOG_EVERY_MS) {
      entry.loggedAt = now;
      log.info(progressLine(report, entry.eta === null ? null : entry.eta - now), {
        done: report.done,
        total: report.total,
      });
    }
  }

  /** The instance's last report, or null when it made none in this start. */
  of(instanceId: string): ProgressStatus | null {
    const entry = this.entries.get(instanceId);
    if (!entry) return null;
    const { what, done, total, unit } = entry.report;
    return { what, done, total, unit: unit ?? null, eta: entry.eta === null ? null : formatUtc(entry.eta) };
  }

  /** The instance stopped: its task is over, finished or not. */
  clear(instanceId: string): void {
    this.entries.delete(instanceId);
  }
}

/** `Recording the demo's last 7 days: 3 of 7 days, about 40 s left`. */
export function progressLine(report: ProgressReport, leftMs: number | null): string {
  const amount = (n: number) => String(Math.round(n * 10) / 10);
  const unit = report.unit ? ` ${report.unit}` : '';
  const head = `${report.what}: ${amount(report.done)} of ${amount(report.total)}${unit}`;
  if (report.done >= report.total) return `${head}, done`;
  return leftMs === null ? head : `${head}, about ${Math.max(1, Math.round(leftMs / 1000))} s left`;
}
