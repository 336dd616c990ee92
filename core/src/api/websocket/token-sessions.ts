import type { Identity } from '../../auth/types.js';
import type { Clock } from '../../clock.js';
import type { Timers } from './timers.js';

/** Close codes for sockets whose token stopped working (4000-4999 are the application's). */
export const CLOSE_TOKEN_REVOKED = 4001;
export const CLOSE_TOKEN_EXPIRED = 4002;

/** Node's timers overflow past 2^31 - 1 ms (24.8 days); longer waits are taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What the sessions need of a socket: the identity it signed in with. */
export interface TokenSession {
  readonly identity: Identity;
}

/**
 * Sockets signed in with a token, by token id, so a revoked token's sockets close at once
 * and an expiring token's sockets close when it expires, instead of streaming (and
 * accepting `set`) until they disconnect. Password sockets are not tracked.
 */
export class TokenSessions<S extends TokenSession> {
  private readonly byToken = new Map<string, Set<S>>();
  private readonly expiryTimers = new Map<S, unknown>();

  constructor(
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly close: (session: S, code: number, reason: string) => void,
  ) {}

  track(session: S): void {
    const token = session.identity.token;
    if (!token) return;
    let sessions = this.byToken.get(token.id);
    if (!sessions) this.byToken.set(token.id, (sessions = new Set()));
    sessions.add(session);
    if (token.expiresAt !== null) this.scheduleExpiry(session, token.expiresAt);
  }

  forget(session: S): void {
    const token = session.identity.token;
    if (!token) return;
    const sessions = this.byToken.get(token.id);
    sessions?.delete(session);
    if (sessions?.size === 0) this.byToken.delete(token.id);
    this.timers.clearTimeout(this.expiryTimers.get(session));
    this.expiryTimers.delete(session);
  }

  /** Closes every socket of the token (code 4001). */
  revoked(tokenId: string): void {
    for (const session of [...(this.byToken.get(tokenId) ?? [])]) {
      this.forget(session);
      this.close(session, CLOSE_TOKEN_REVOKED, 'token revoked');
    }
  }

  /** Stops every expiry timer (the endpoint is closing). */
  clear(): void {
    for (const timer of this.expiryTimers.values()) this.timers.clearTimeout(timer);
    this.expiryTimers.clear();
    this.byToken.clear();
  }

  private scheduleExpiry(session: S, expiresAt: number): void {
    const waitMs = expiresAt - this.clock.now();
    if (waitMs <= 0) {
      this.forget(session);
      this.close(session, CLOSE_TOKEN_EXPIRED, 'token expired');
      return;
    }
    this.expiryTimers.set(
      session,
      this.timers.setTimeout(() => this.scheduleExpiry(session, expiresAt), Math.min(waitMs, MAX_TIMER_MS)),
    );
  }
}
