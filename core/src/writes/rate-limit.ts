/**
 * Writes per client, as a token bucket: a client may send WRITE_BURST writes at once and
 * WRITE_RATE per second after that. Writes past it are refused before validation, audit
 * or any device is involved, so one runaway client (3 000 `set` frames) costs almost
 * nothing and cannot stall the others. A client is who wrote: `admin` or the token's name.
 *
 * Hand-written rather than a library: it must run on the service's Clock (tests drive it
 * with a manual one), and a bucket is a few lines.
 */
import type { Clock } from '../clock.js';

export const WRITE_BURST = 20;
export const WRITE_RATE = 5;
/** Buckets kept at most; full ones are dropped first (they hold nothing to remember). */
const MAX_CLIENTS = 1000;

interface Bucket {
  tokens: number;
  at: number;
}

export class WriteRateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly clock: Clock,
    private readonly burst = WRITE_BURST,
    private readonly perSecond = WRITE_RATE,
  ) {}

  /** Takes one write from the client's bucket: 0 when allowed, else seconds until one is. */
  take(client: string): number {
    const now = this.clock.now();
    let bucket = this.buckets.get(client);
    if (!bucket) {
      if (this.buckets.size >= MAX_CLIENTS) this.forgetFull(now);
      this.buckets.set(client, (bucket = { tokens: this.burst, at: now }));
    }
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }

  private forgetFull(now: number): void {
    for (const [client, b] of this.buckets)
      if (b.tokens + ((now - b.at) / 1000) * this.perSecond >= this.burst) this.buckets.delete(client);
  }
}
