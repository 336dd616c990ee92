import type { RecordedReading } from '@heliograph/plugins-sdk';
import { injectable } from '../container/di.js';
import { createLogger } from '../log.js';

const log = createLogger('integration');

type Handler = (readings: RecordedReading[]) => void;

/**
 * The readings history records, handed on to integration plugins (`ctx.integration.onRecorded`)
 * in the batches the Recorder writes them: one per registry tick, one per sampling pass.
 * The Recorder builds a batch only while someone listens, so without a mirror the hot path
 * allocates nothing more.
 */
@injectable()
export class RecordedFeed {
  private readonly handlers = new Set<Handler>();

  /** Whether anyone listens: the Recorder gathers readings only then. */
  get active(): boolean {
    return this.handlers.size > 0;
  }

  listen(handler: Handler): () => void {
    // A wrapper of its own, so the same function registered twice is two listeners.
    const entry: Handler = (readings) => handler(readings);
    this.handlers.add(entry);
    return () => this.handlers.delete(entry);
  }

  emit(readings: RecordedReading[]): void {
    if (readings.length === 0) return;
    for (const handler of this.handlers) {
      try {
        handler(readings);
      } catch (err) {
        // One failing listener must not keep the others (or the Recorder) from going on.
        log.error('an onRecorded handler threw', { err });
      }
    }
  }
}
