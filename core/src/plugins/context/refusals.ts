/*
 * What an instance was refused, and how much it may publish. Each refusal (its sandbox's
 * ERR_ACCESS_DENIED, a store write past its quota, publishes past its rate) is a warning in
 * the plugin's log with its code and an entry in the audit log (who `plugin:<instance>`, via
 * the plugin, result "error", the code first in its message), so the owner sees what a
 * plugin tried. A plugin that keeps trying does not flood either: the first
 * {@link AUDITED_PER_START} refusals of a start are kept one by one, later ones once a
 * minute as a count.
 */
import type { Logger } from '../../log.js';
import type { AuditLog } from '../../writes/audit.js';

export const AUDITED_PER_START = 20;
const SUMMARY_EVERY_MS = 60_000;

export interface Refused {
  /** `ERR_ACCESS_DENIED`, `STORE_QUOTA_EXCEEDED`, `PUBLISH_RATE_EXCEEDED`. */
  code: string;
  /** What was refused, as the audit's new_value: `fs.readFileSync /data/heliograph.db`. */
  what: string;
  /** The sentence for the log and the audit's message. */
  message: string;
}

export class RefusalReport {
  private audited = 0;
  private unaudited = 0;
  private summaryAt = -Infinity;

  constructor(
    private readonly options: {
      instanceId: string;
      pluginId: string;
      log: Logger;
      audit?: Pick<AuditLog, 'add'>;
      now: () => number;
    },
  ) {}

  report(refused: Refused): void {
    const { instanceId, pluginId, log, audit, now } = this.options;
    const message = refused.message.startsWith(refused.code) ? refused.message : `${refused.code}: ${refused.message}`;
    if (this.audited < AUDITED_PER_START) log.warn(message);
    if (!audit) return;
    const entry = (what: string, text: string) =>
      void audit
        .add({
          time: now(),
          who: `plugin:${instanceId}`,
          via: pluginId,
          topic: `plugins/${instanceId}`,
          oldValue: '',
          newValue: what,
          result: 'error',
          message: text,
        })
        .catch((err: unknown) => log.warn('could not audit a refusal', { err }));
    if (this.audited < AUDITED_PER_START) {
      this.audited += 1;
      entry(refused.what, message);
      return;
    }
    this.unaudited += 1;
    if (now() - this.summaryAt < SUMMARY_EVERY_MS) return;
    this.summaryAt = now();
    const count = this.unaudited;
    this.unaudited = 0;
    log.warn(`${count} more refusals of ${instanceId} not audited one by one; the last: ${message}`);
    entry(refused.what, `${refused.code}: ${count} more refusals not audited one by one; the last: ${message}`);
  }
}

/**
 * Publishes per second of one instance: a bucket of twice the rate, refilled at the rate. A
 * publish past it is dropped (a value a flood would have replaced in a moment anyway).
 */
export class PublishLimiter {
  private tokens: number;
  private at: number;
  /** Dropped since the last report. */
  dropped = 0;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number,
  ) {
    this.tokens = perSecond * 2;
    this.at = now();
  }

  take(): boolean {
    if (this.perSecond === Infinity) return true;
    const t = this.now();
    this.tokens = Math.min(this.perSecond * 2, this.tokens + ((t - this.at) / 1000) * this.perSecond);
    this.at = t;
    if (this.tokens < 1) {
      this.dropped += 1;
      return false;
    }
    this.tokens -= 1;
    return true;
  }
}
