import { randomBytes } from 'node:crypto';
import type { RecordedReading } from '@heliograph/plugins-sdk';
import { createLogger } from '../../log.js';

const log = createLogger('integration');

type Handler = (readings: RecordedReading[], position: string) => void;

/** Readings kept for listeners that start (or start again) later: minutes of a large site, about 2 MB. */
export const KEEP_READINGS = 20_000;

/**
 * The readings history records, handed on to integration plugins (`ctx.integration.onRecorded`)
 * in the batches the Recorder writes them: one per registry tick, one per sampling pass.
 *
 * Every batch has a position (`<boot>:<n>`, this process's id and the batch's number), and
 * the latest KEEP_READINGS readings since the start are kept, so a listener that starts
 * after the Recorder (plugins start after the server listens, past its first slot) or
 * starts again (its config changed) is handed what it missed first: everything kept since
 * the start when it names no position or one of an earlier process, else the batches after
 * the one it names. A mirror that stores the position of the last batch it queued thus
 * gets every reading once.
 */
export class RecordedFeed {
  private readonly handlers = new Set<Handler>();
  private readonly boot = randomBytes(4).toString('hex');
  private seq = 0;
  private readonly kept: Array<{ seq: number; readings: RecordedReading[] }> = [];
  private keptReadings = 0;
  /** Batches dropped from the start of what is kept. */
  private evicted = false;

  /** The Recorder gathers readings always: a listener may start later and ask for them. */
  get active(): boolean {
    return true;
  }

  /**
   * Listens from the batch after `after` (a position this feed handed out), or from the
   * first batch kept when `after` is absent or from an earlier process; the batches missed
   * are handed to `handler` before this returns.
   */
  listen(handler: Handler, after?: string | null): () => void {
    // A wrapper of its own, so the same function registered twice is two listeners.
    const entry: Handler = (readings, position) => handler(readings, position);
    const [boot, n] = (after ?? '').split(':');
    const from = boot === this.boot && Number.isInteger(Number(n)) ? Number(n) : 0;
    const missed = this.kept.filter((b) => b.seq > from);
    if ((missed[0]?.seq ?? this.seq + 1) > from + 1 && (from > 0 || this.evicted))
      log.warn(
        `a listener asked for recorded readings from batch ${from + 1}, but only those from batch ${missed[0]?.seq ?? this.seq + 1} are kept; the ones before are missing`,
      );
    for (const batch of missed) this.call(entry, batch.readings, batch.seq);
    this.handlers.add(entry);
    return () => this.handlers.delete(entry);
  }

  emit(readings: RecordedReading[]): void {
    if (readings.length === 0) return;
    const seq = ++this.seq;
    this.kept.push({ seq, readings });
    this.keptReadings += readings.length;
    while (this.keptReadings > KEEP_READINGS && this.kept.length > 1) {
      this.keptReadings -= this.kept.shift()!.readings.length;
      this.evicted = true;
    }
    for (const handler of this.handlers) this.call(handler, readings, seq);
  }

  private call(handler: Handler, readings: RecordedReading[], seq: number): void {
    try {
      handler(readings, `${this.boot}:${seq}`);
    } catch (err) {
      // One failing listener must not keep the others (or the Recorder) from going on.
      log.error('an onRecorded handler threw', { err });
    }
  }
}
