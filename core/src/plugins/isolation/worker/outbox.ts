/*
 * What a worker process sends, gathered so that the host applies one run's messages at once.
 * The host's registry makes one tick of everything published in one synchronous run; a
 * message per call would reach it as one run (and one update to clients, totals recomputed
 * in between) per message. So messages queue here in order and leave as one `batch`: at the
 * end of the current synchronous run, or, while a job run or write handler of the plugin is
 * under way, when one of them settles. A request that waits for its answer (record, store)
 * sends the queue first. A run that never settles holds nothing for long: what waits leaves
 * after {@link MAX_HOLD_MS} at the latest, so the other runs' replies, writes and publishes
 * reach the host while the hung run waits for its timeout.
 */
import type { WorkerPort } from './process-port.js';

/** Queued messages past this leave at once, so a long run cannot hold memory without bound. */
const MAX_QUEUED = 1000;
/** Longest a queued message waits for runs under way. */
const MAX_HOLD_MS = 250;

export class Outbox implements WorkerPort {
  private queue: unknown[] = [];
  private scheduled = false;
  /** Job runs and writes under way: their messages wait for the last to settle. */
  private running = 0;
  /** Ends a hold that lasts too long (a run that does not settle). */
  private holdTimer: NodeJS.Timeout | undefined;

  constructor(private readonly port: WorkerPort) {}

  /**
   * Queues a message; it leaves with the rest of its run. A request (a message with a `call`
   * number that is not a reply) leaves at once, after the queue: a run may await its answer.
   */
  postMessage(message: unknown): void {
    const { type, call } = message as { type?: unknown; call?: unknown };
    if (typeof call === 'number' && type !== 'reply') return this.sendNow(message);
    this.queue.push(message);
    if (this.queue.length >= MAX_QUEUED) this.flush();
    else this.schedule();
  }

  /** Sends what is queued, then `message` (one that must not wait: a request, setup's answer). */
  sendNow(message: unknown): void {
    this.flush();
    this.port.postMessage(message);
  }

  /** Runs `work` (a job run, a write) holding the queue until it, and every other, settled. */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
      // This run's messages (its reply above all) leave now, whatever else still runs.
      this.flush();
    }
  }

  flush(): void {
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    if (this.queue.length === 0) return;
    const messages = this.queue;
    this.queue = [];
    this.port.postMessage(messages.length === 1 ? messages[0] : { type: 'batch', messages });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      if (this.running === 0) this.flush();
      else if (this.queue.length > 0) this.holdTimer ??= setTimeout(() => this.flush(), MAX_HOLD_MS);
    });
  }
}
