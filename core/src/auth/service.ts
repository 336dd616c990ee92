import type { Db } from '../db.js';
import { DbWriter } from '../db-writer.js';
import type { Clock } from '../clock.js';
import { SafeEmitter } from '../events.js';
import { createLogger } from '../log.js';
import { throttleKey } from './client-key.js';
import { PASSWORD_IDENTITY, PASSWORD_IDENTITY_ONLY, PasswordStore } from './password.js';
import { migrate } from '../db.js';
import { authMigrations } from './migrations.js';
import { type CreatedToken, NO_PASSWORD_MESSAGE, type TokenInfo } from './rules.js';
import { LoginThrottle } from './throttle.js';
import { TokenStore } from './tokens.js';
import type { Authenticator, AuthOutcome, Credentials, Identity, Scope } from './types.js';
import { WorkGate } from './work-gate.js';

export { authMigrations } from './migrations.js';
export {
  AuthInputError,
  type CreatedToken,
  DEFAULT_TOKEN_SCOPE,
  NO_PASSWORD_MESSAGE,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  PASSWORD_USER,
  passwordProblem,
  type TokenInfo,
  tokenNameSchema,
} from './rules.js';

const log = createLogger('auth');

export interface AuthServiceOptions {
  /** Failed logins from one address within the window before it is throttled. */
  maxFailedLogins: number;
  failedLoginWindowMs: number;
  /** scrypt checks running at once; default 2. */
  maxConcurrentHashes?: number;
  /** scrypt checks waiting for a slot before further ones answer 503; default 16. */
  maxWaitingHashes?: number;
  /** Days unused after which an `idleExpiry` token stops working and is deleted; default 30. */
  idleTokenDays?: number;
}

const MISSING_CREDENTIALS_MESSAGE =
  'credentials required: use HTTP Basic with the device password (any user name), or "Authorization: Bearer <token>"';

/** Emitted when tokens stop working, so open WebSockets signed in with them can be closed. */
interface AuthEvents {
  revoked: (tokenId: string) => void;
}

/**
 * Who gets in: the device password (password.ts) and bearer tokens (tokens.ts), both in
 * SQLite, behind the failed-login throttle. Create with `AuthService.create`, which applies
 * the migrations (the server applies them with the core's others).
 */
export class AuthService extends SafeEmitter<AuthEvents> implements Authenticator {
  private readonly throttle: LoginThrottle;
  private readonly password: PasswordStore;
  private readonly tokens: TokenStore;
  /** Per client address, so concurrent guesses are counted one after another (see `authenticate`). */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(db: Db, clock: Clock, options: AuthServiceOptions, writer = new DbWriter(() => clock.now())) {
    super();
    const hashGate = new WorkGate(options.maxConcurrentHashes ?? 2, options.maxWaitingHashes ?? 16);
    this.password = new PasswordStore(db, clock, hashGate, writer);
    this.tokens = new TokenStore(db, clock, (options.idleTokenDays ?? 30) * 86_400_000, writer);
    this.throttle = new LoginThrottle(clock, {
      maxFailures: options.maxFailedLogins,
      windowMs: options.failedLoginWindowMs,
    });
  }

  /** Applies the auth migrations, then returns a service on `db`. */
  static async create(db: Db, clock: Clock, options: AuthServiceOptions): Promise<AuthService> {
    await migrate(db, authMigrations);
    return new AuthService(db, clock, options);
  }

  hasPassword(): Promise<boolean> {
    return this.password.exists();
  }

  /** Sets or replaces the password; throws AuthInputError when it breaks the rules. */
  setPassword(password: string): Promise<void> {
    return this.password.set(password);
  }

  /**
   * Sets the password unless it already is this one: for HELIOGRAPH_PASSWORD at every start,
   * which should neither re-hash on each start nor fail once set. Returns whether it changed.
   */
  ensurePassword(password: string): Promise<boolean> {
    return this.password.ensure(password);
  }

  /**
   * The API contract (docs/api.md, "Authentication"): throttling guards the password. A bearer token is checked at once
   * (a sha256 and an indexed lookup) and a valid one is never throttled, queued or counted,
   * so a client with a bad password on the same address cannot lock the others out. Unknown
   * tokens count as failures like wrong passwords.
   *
   * Password attempts from one address are checked one at a time: otherwise a client could
   * send a hundred guesses at once and have them all verified before the first failure is
   * counted. Different addresses do not wait for each other, but share a bounded number of
   * scrypt slots (see `PasswordStore.check`).
   */
  authenticate(credentials: Credentials | undefined, clientIp: string): Promise<AuthOutcome> {
    const address = throttleKey(clientIp);
    if (credentials?.kind === 'token') return this.checkTokenLogin(credentials.secret, address);
    if (credentials && this.isRememberedPassword(credentials.secret, address))
      return Promise.resolve(PASSWORD_IDENTITY);
    return this.oneAtATime(address, () => this.check(credentials, address));
  }

  /**
   * The identity of credentials the service has already checked, without waiting: the
   * remembered password (see isRememberedPassword), or a token found valid before and still
   * in the token cache (see `TokenStore.known`). Anything else is undefined and takes the full path,
   * where failures are counted and throttled.
   */
  knownIdentity(credentials: Credentials, clientIp: string): Identity | undefined {
    if (credentials.kind === 'token') return this.password.known ? this.tokens.known(credentials.secret) : undefined;
    return this.isRememberedPassword(credentials.secret, throttleKey(clientIp)) ? PASSWORD_IDENTITY_ONLY : undefined;
  }

  /**
   * The password a client already signed in with, from an address not under back-off, is
   * let through at once instead of queueing behind the address's other attempts: a client
   * polling with Basic auth over several connections (a dashboard, the official Go client)
   * would otherwise be served one request at a time. Only the remembered success is taken
   * this way, against a stored hash read within the last second; anything else queues.
   */
  private isRememberedPassword(candidate: string, address: string): boolean {
    if (this.throttle.waitMs(address) > 0) return false;
    if (!this.password.isRemembered(candidate)) return false;
    this.throttle.recordSuccess(address);
    return true;
  }

  /** Runs `attempt` after every earlier attempt from the same address has finished. */
  private oneAtATime<T>(address: string, attempt: () => Promise<T> | T): Promise<T> {
    const previous = this.queues.get(address) ?? Promise.resolve();
    const run = previous.then(attempt);
    const settled = run.catch(() => undefined);
    this.queues.set(address, settled);
    void settled.then(() => {
      if (this.queues.get(address) === settled) this.queues.delete(address);
    });
    return run;
  }

  /**
   * Checks a secret that is neither the password nor a token (the first-run setup code)
   * under the same per-address throttle: a wrong one counts as a failed login, and a
   * throttled address gets 429 without the check being made.
   */
  checkOtherSecret(
    clientIp: string,
    check: () => boolean,
    wrongMessage: string,
  ): Promise<{ ok: true } | Extract<AuthOutcome, { ok: false }>> {
    const address = throttleKey(clientIp);
    return this.oneAtATime(address, (): { ok: true } | Extract<AuthOutcome, { ok: false }> => {
      const waitMs = this.throttle.waitMs(address);
      if (waitMs > 0) {
        const retryAfterS = Math.ceil(waitMs / 1000);
        return {
          ok: false,
          status: 429,
          message: `too many failed attempts from this address: try again in ${retryAfterS} s`,
          retryAfterS,
        };
      }
      if (check()) {
        this.throttle.recordSuccess(address);
        return { ok: true };
      }
      this.recordFailure(address);
      return { ok: false, status: 401, message: wrongMessage };
    });
  }

  createToken(request: {
    name: string;
    expiresAt?: number | null;
    scope?: Scope;
    idleExpiry?: boolean;
  }): Promise<CreatedToken> {
    return this.tokens.create(request);
  }

  /**
   * Deletes idle-expiry tokens unused for longer than the idle time (at each token creation
   * and listing), so sign-ins do not pile up. Tokens with a fixed expiry stay listed.
   */
  deleteExpired(): Promise<number> {
    return this.tokens.deleteExpired();
  }

  /** Every token, expired ones included, oldest first; never the secrets. */
  listTokens(): Promise<TokenInfo[]> {
    return this.tokens.list();
  }

  /** Deletes the token, so it fails from the next request on. False when no such id. */
  async revokeToken(id: string): Promise<boolean> {
    const revoked = await this.tokens.revoke(id);
    if (revoked) this.emit('revoked', id);
    return revoked;
  }

  /** A password attempt, or a request without credentials (which is never counted). */
  private async check(credentials: Credentials | undefined, address: string): Promise<AuthOutcome> {
    // Before any hashing: a throttled address costs nothing.
    const throttled = this.throttled(address);
    if (throttled) return throttled;
    if (!(await this.hasPassword())) return { ok: false, status: 403, message: NO_PASSWORD_MESSAGE };
    if (!credentials) return { ok: false, status: 401, message: MISSING_CREDENTIALS_MESSAGE };
    const outcome = await this.password.check(credentials.secret);
    if (outcome.ok) this.throttle.recordSuccess(address);
    else if (outcome.status === 401) this.recordFailure(address);
    return outcome;
  }

  /**
   * A valid token gets in whatever the address's throttle says, and does not reset its count
   * either: a read-only token must not buy its holder fresh guesses at the admin password.
   */
  private async checkTokenLogin(secret: string, address: string): Promise<AuthOutcome> {
    if (!(await this.hasPassword())) return { ok: false, status: 403, message: NO_PASSWORD_MESSAGE };
    const outcome = await this.tokens.check(secret);
    if (outcome.ok) return outcome;
    const throttled = this.throttled(address);
    if (throttled) return throttled;
    this.recordFailure(address);
    return outcome;
  }

  /** Counts a failed login; the moment an address is locked out is logged with it (a 429 alone leaves no trace). */
  private recordFailure(address: string): void {
    const wasFree = this.throttle.waitMs(address) <= 0;
    this.throttle.recordFailure(address);
    const waitMs = this.throttle.waitMs(address);
    if (wasFree && waitMs > 0)
      log.warn(
        `too many failed logins from ${address}: refused with 429 for ${Math.ceil(waitMs / 1000)} s, longer if it goes on`,
      );
  }

  private throttled(address: string): AuthOutcome | undefined {
    const waitMs = this.throttle.waitMs(address);
    if (waitMs <= 0) return undefined;
    const retryAfterS = Math.ceil(waitMs / 1000);
    return {
      ok: false,
      status: 429,
      message: `too many failed logins from this address: try again in ${retryAfterS} s (bearer tokens still work)`,
      retryAfterS,
    };
  }
}
