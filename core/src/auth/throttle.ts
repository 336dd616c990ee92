import type { Clock } from '../clock.js';

/** The longest back-off, whatever the number of failures. */
export const MAX_BACKOFF_MS = 15 * 60_000;
const FIRST_BACKOFF_MS = 1000;

export interface ThrottleOptions {
  /** Failed logins within the window that start the back-off (the API contract: 5). */
  maxFailures: number;
  /** Window in which failures are counted (the API contract: 15 minutes). */
  windowMs: number;
  /**
   * Addresses remembered at most. Over it, expired records go first, then the least recently
   * failing addresses that are not under back-off; an address under back-off goes only when
   * every remembered address is, so failing once from many addresses cannot flush it.
   */
  maxAddresses?: number;
}

interface AddressRecord {
  /** Times of recent failures while below the threshold (a sliding window). */
  recent: number[];
  /** Failures counted toward the back-off once throttled; 0 while below the threshold. */
  streak: number;
  blockedUntil: number;
}

/**
 * Failed-login counting per client address, as the API contract lays it out (docs/api.md,
 * "Authentication"): `maxFailures`
 * failures within `windowMs` start a back-off of 1 s that doubles with every further failure
 * up to 15 minutes; while it runs every request from the address is refused. A success
 * (which can only happen outside the back-off) forgets the address.
 *
 * Once throttled, an address stays on its doubling streak until it stays quiet (no failure)
 * for a whole window after its back-off ended. Measuring from the last failure instead would
 * forget the streak exactly when a 15-minute back-off ends and hand a guesser five fresh
 * tries every quarter hour.
 *
 * The state lives in memory. A restart forgets it, but restarts are rare and slow next to a
 * guesser's budget, and keeping it out of the database spares the SD card a write per failed
 * request. Memory stays bounded by `maxAddresses`: expired records are swept first, then the
 * least recently failing addresses below the threshold, and only then throttled ones.
 */
export class LoginThrottle {
  private readonly records = new Map<string, AddressRecord>();
  private readonly maxAddresses: number;

  constructor(
    private readonly clock: Clock,
    private readonly options: ThrottleOptions,
  ) {
    this.maxAddresses = options.maxAddresses ?? 10_000;
  }

  /** Milliseconds the address must still wait; 0 when it may try. */
  waitMs(address: string): number {
    const now = this.clock.now();
    const record = this.current(address, now);
    return record && record.blockedUntil > now ? record.blockedUntil - now : 0;
  }

  recordFailure(address: string): void {
    const now = this.clock.now();
    const record = this.current(address, now) ?? { recent: [], streak: 0, blockedUntil: 0 };
    if (record.streak > 0) {
      record.streak += 1;
    } else {
      record.recent = record.recent.filter((time) => now - time < this.options.windowMs);
      record.recent.push(now);
      if (record.recent.length >= this.options.maxFailures) {
        record.streak = record.recent.length;
        record.recent = [];
      }
    }
    if (record.streak > 0) record.blockedUntil = now + backoffMs(record.streak - this.options.maxFailures);
    // Re-inserting keeps the map ordered by last failure, so eviction drops the stalest.
    this.records.delete(address);
    this.records.set(address, record);
    if (this.records.size > this.maxAddresses) this.prune(now);
  }

  recordSuccess(address: string): void {
    this.records.delete(address);
  }

  /** Addresses with a live record (for tests of the memory bound). */
  get size(): number {
    return this.records.size;
  }

  private current(address: string, now: number): AddressRecord | undefined {
    const record = this.records.get(address);
    if (record && this.expired(record, now)) {
      this.records.delete(address);
      return undefined;
    }
    return record;
  }

  private expired(record: AddressRecord, now: number): boolean {
    if (record.streak > 0) return now >= record.blockedUntil + this.options.windowMs;
    return record.recent.every((time) => now - time >= this.options.windowMs);
  }

  /** Makes room down to 90 % of the bound, so the sweep runs once per many failures, not each. */
  private prune(now: number): void {
    const target = Math.floor(this.maxAddresses * 0.9);
    for (const [address, record] of this.records) {
      if (this.expired(record, now)) this.records.delete(address);
    }
    for (const [address, record] of this.records) {
      if (this.records.size <= target) return;
      if (record.streak === 0) this.records.delete(address);
    }
    for (const address of this.records.keys()) {
      if (this.records.size <= target) return;
      this.records.delete(address);
    }
  }
}

/** 1 s after the failure that reached the threshold, doubling per further failure, capped. */
function backoffMs(failuresPastThreshold: number): number {
  return Math.min(FIRST_BACKOFF_MS * 2 ** Math.min(failuresPastThreshold, 30), MAX_BACKOFF_MS);
}
