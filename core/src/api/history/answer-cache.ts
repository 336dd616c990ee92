import type { Clock } from '../../clock.js';
import { RELEASE_IDLE_MS } from '../../history/store.js';
import type { StoredMeta } from '../../history/topic-record.js';

/** Bytes of answers kept at most: a few dozen pages of 2 000 points. */
const LIMIT_BYTES = 1 << 20;

interface Entry {
  group: string;
  name: string;
  unit: string;
  inputs: readonly number[];
  bytes: Buffer;
}

/**
 * Recent history answers, reused only when they are exactly what reading again would give.
 * A dashboard asks the same pages again and again (each chart on every refresh), and
 * building a page's JSON costs more than the rest of the request.
 *
 * An answer is kept with what it was computed from: the request after its defaults (the
 * key), the topic's name, unit and group, and the page's inputs (HistoryPage.inputs: the
 * identity of every stored segment it read, the version of every unsaved hour it folded,
 * the topic's scale, evicted range and damaged rows). It is reused only when all of these
 * are equal now (HistoryStore.pageInputs), so any write to the topic within the page's
 * range (a live reading, a backfill, an import, an hour merged, retention, a damaged row
 * set aside) or a renamed topic makes the next request read again. A page whose rows have
 * left memory is read again too. The kept bytes are dropped once no history request has
 * come for RELEASE_IDLE_MS, as the store drops its rows.
 */
export class HistoryAnswers {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private lastUsed = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly limitBytes = LIMIT_BYTES,
  ) {}

  /** The kept answer to `key`, when it was computed from exactly `meta` and `inputs`. */
  get(key: string, meta: StoredMeta, inputs: readonly number[]): Buffer | undefined {
    this.lastUsed = this.clock.now();
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (
      entry.group !== meta.group ||
      entry.name !== meta.name ||
      entry.unit !== meta.unit ||
      !same(entry.inputs, inputs)
    )
      return undefined;
    // Most recently used last: the first entries are the ones dropped.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.bytes;
  }

  /** Keeps an answer (replacing any older one to the same key), dropping the least recently used beyond the limit. */
  put(key: string, meta: StoredMeta, inputs: readonly number[], bytes: Buffer): void {
    if (bytes.length > this.limitBytes / 4) return;
    this.lastUsed = this.clock.now();
    this.drop(key);
    // A copy of its own size: the answer is a view of a writer's larger buffer.
    const kept = Buffer.allocUnsafeSlow(bytes.length);
    bytes.copy(kept);
    this.entries.set(key, { group: meta.group, name: meta.name, unit: meta.unit, inputs, bytes: kept });
    this.bytes += bytes.length;
    for (const first of this.entries.keys()) {
      if (this.bytes <= this.limitBytes) break;
      this.drop(first);
    }
    this.timer ??= setTimeout(() => this.releaseIfIdle(), RELEASE_IDLE_MS).unref();
  }

  /** Bytes of answers kept. */
  get heldBytes(): number {
    return this.bytes;
  }

  /** Drops every kept answer once none has been asked for or kept for RELEASE_IDLE_MS; else looks again later. */
  releaseIfIdle(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const idle = this.clock.now() - this.lastUsed;
    if (idle >= RELEASE_IDLE_MS) {
      this.entries.clear();
      this.bytes = 0;
    } else if (this.entries.size > 0) {
      this.timer = setTimeout(() => this.releaseIfIdle(), RELEASE_IDLE_MS - idle).unref();
    }
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes.length;
  }
}

function same(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
