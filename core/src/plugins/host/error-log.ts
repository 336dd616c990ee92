import type { Logger } from '../../log.js';

/** How long a repeated error stays quiet before a "repeated N times" summary. */
const SUMMARY_EVERY_MS = 10 * 60_000;

/**
 * Logs a plugin's errors without flooding the log during an outage: the first of a run of
 * identical errors is logged, the repeats only as a "repeated N times" summary every ten
 * minutes and when a different error (or none) follows.
 */
export class ErrorLog {
  private readonly last = new Map<string, { message: string; repeats: number; summarisedAt: number }>();

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** An error of `who` (an instance); logged unless it repeats the previous one. */
  report(who: string, message: string): void {
    const now = this.now();
    const last = this.last.get(who);
    if (last?.message === message) {
      last.repeats++;
      if (now - last.summarisedAt >= SUMMARY_EVERY_MS) this.summarise(who, last, now);
      return;
    }
    if (last) this.summarise(who, last, now);
    this.log.error(`${who}: ${message}`);
    this.last.set(who, { message, repeats: 0, summarisedAt: now });
  }

  /** `who` is fine again: the summary of its last error, if it repeated, closes the run. */
  cleared(who: string): void {
    const last = this.last.get(who);
    if (last) this.summarise(who, last, this.now());
    this.last.delete(who);
  }

  private summarise(who: string, last: { message: string; repeats: number; summarisedAt: number }, now: number): void {
    if (last.repeats > 0)
      this.log.error(`${who}: ${last.message} (repeated ${last.repeats} time${last.repeats === 1 ? '' : 's'})`);
    last.repeats = 0;
    last.summarisedAt = now;
  }
}
