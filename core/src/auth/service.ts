import { formatZodIssue } from '@heliograph/plugins-sdk';
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { migrate, type Db, type Migration } from '../db.js';
import { formatUtc } from '../rfc3339.js';
import { SafeEmitter } from '../events.js';
import { throttleKey } from './client-key.js';
import { hashPassword, verifyPassword } from './password-hash.js';
import { scopeSchema } from './scopes.js';
import { LoginThrottle } from './throttle.js';
import type { Authenticator, AuthOutcome, Credentials, Identity, Scope } from './types.js';
import { WorkGate } from './work-gate.js';
import { createLogger } from '../log.js';

const log = createLogger('auth');

export const authMigrations: Migration[] = [
  {
    id: 'auth:1',
    sql: `CREATE TABLE auth_password (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      hash TEXT NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE TABLE auth_tokens (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      secret_hash BLOB NOT NULL UNIQUE,
      created_at INTEGER NOT NULL,
      expires_at INTEGER
    );`,
  },
  {
    // Tokens made before scopes existed could do everything; they keep doing so.
    id: 'auth:2',
    sql: `ALTER TABLE auth_tokens ADD COLUMN scope TEXT NOT NULL DEFAULT 'admin';`,
  },
  {
    // Sign-in tokens (the settings page's) expire after an idle time instead of piling up.
    id: 'auth:3',
    sql: `ALTER TABLE auth_tokens ADD COLUMN idle_expiry INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE auth_tokens ADD COLUMN last_used_at INTEGER;`,
  },
];

/**
 * **Choice**: a token created without `"scope"` gets `write`: what the official clients
 * need (readings, the stream, writes), but it cannot mint or revoke tokens, change plugins
 * or read the audit log.
 */
export const DEFAULT_TOKEN_SCOPE: Scope = 'write';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;
/** The `who` of a password login; token names may not take it. */
export const PASSWORD_USER = 'admin';

/** A password or token request that cannot be carried out; `reason` picks the HTTP status. */
export class AuthInputError extends Error {
  constructor(
    message: string,
    readonly reason: 'invalid' | 'conflict' = 'invalid',
  ) {
    super(message);
  }
}

/** Token names as they appear in the audit log's `who`. */
export const tokenNameSchema = z
  .string({ error: 'name is required and must be a string' })
  .trim()
  .min(1, 'name must not be empty')
  .max(64, 'name must be at most 64 characters')
  .refine((name) => !/\p{Cc}/u.test(name), 'name must not contain control characters')
  .refine(
    (name) => name !== PASSWORD_USER,
    `name "${PASSWORD_USER}" is reserved for the password login: choose another`,
  );

/** A token as the API lists it (RFC 3339 UTC times, second precision). */
export interface TokenInfo {
  id: string;
  name: string;
  created_at: string;
  expires_at: string | null;
  scope: Scope;
  /** Stops working after auth.idleTokenDays unused (a sign-in's token). */
  idle_expiry: boolean;
}

/** A token just created: the only time its secret is shown. */
export interface CreatedToken extends TokenInfo {
  token: string;
}

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

/** How often a token's last use is written: a dashboard's every call costs no database write. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** How to set a password, for every answer that says none is set. */
export const NO_PASSWORD_MESSAGE =
  "no password is set yet: set one with `heliograph password set` on the device, in the settings page with the setup code from the service's log, or start the service with the HELIOGRAPH_PASSWORD environment variable";
const MISSING_CREDENTIALS_MESSAGE =
  'credentials required: use HTTP Basic with the device password (any user name), or "Authorization: Bearer <token>"';
const WRONG_PASSWORD_MESSAGE = 'wrong password';
const BUSY_MESSAGE =
  'too many password checks are running right now: try again in a second (bearer tokens are not affected)';
const UNKNOWN_TOKEN_MESSAGE = 'unknown or revoked token: create a new one with POST /api/v1/tokens';

const TOKEN_PREFIX = 'hg_';
const TOKEN_SHAPE = /^hg_[A-Za-z0-9_-]{43}$/;
/** How long a successful password check is remembered (see `checkPassword`). */
const STORED_HASH_TTL_MS = 1000;
const VERIFIED_PASSWORD_TTL_MS = 10 * 60_000;

interface TokenRow {
  id: string;
  name: string;
  created_at: number;
  expires_at: number | null;
  scope: Scope;
  idle_expiry: number;
}

interface TokenRecord {
  id: string;
  name: string;
  expires_at: number | null;
  scope: Scope;
  idle_expiry: number;
  last_used_at: number | null;
  created_at: number;
}

/** Emitted when tokens stop working, so open WebSockets signed in with them can be closed. */
interface AuthEvents {
  revoked: (tokenId: string) => void;
}

/**
 * The device password (scrypt hash) and bearer tokens (sha256 hashes), both in SQLite, and
 * the failed-login throttle. Create with `AuthService.create`, which applies the migrations.
 */
export class AuthService extends SafeEmitter<AuthEvents> implements Authenticator {
  private readonly throttle: LoginThrottle;
  private readonly hashGate: WorkGate;
  /** Per client address, so concurrent guesses are counted one after another (see `authenticate`). */
  private readonly queues = new Map<string, Promise<unknown>>();
  private passwordSeen = false;
  private verifiedPassword: { storedHash: string; candidateDigest: Buffer; until: number } | undefined;
  private storedHashCache: { hash: string | undefined; readAt: number } | undefined;
  private storedHashRead: Promise<string | undefined> | undefined;
  /** Valid tokens by digest; revoking clears it, so a revoked token fails at once. */
  private readonly tokenCache = new Map<string, TokenRecord>();
  private readonly idleMs: number;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    options: AuthServiceOptions,
  ) {
    super();
    this.idleMs = (options.idleTokenDays ?? 30) * 86_400_000;
    this.hashGate = new WorkGate(options.maxConcurrentHashes ?? 2, options.maxWaitingHashes ?? 16);
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

  async hasPassword(): Promise<boolean> {
    // No API removes the password, so once seen it stays; until then the row is read each
    // time, so a password set by another process (the CLI) takes effect at once.
    if (!this.passwordSeen) this.passwordSeen = (await this.storedHash()) !== undefined;
    return this.passwordSeen;
  }

  /** Sets or replaces the password; throws AuthInputError when it breaks the rules. */
  async setPassword(password: string): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw new AuthInputError(problem);
    const hash = await hashPassword(password);
    await this.db.run(
      'INSERT INTO auth_password (id, hash, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at',
      hash,
      this.clock.now(),
    );
    // Whoever set it knows it: their first request need not pay a scrypt for it.
    this.rememberVerified(password, hash);
    this.storedHashCache = undefined;
    this.storedHashRead = undefined;
    this.passwordSeen = true;
  }

  /**
   * Sets the password unless it already is this one: for HELIOGRAPH_PASSWORD at every start,
   * which should neither re-hash on each start nor fail once set. Returns whether it changed.
   */
  async ensurePassword(password: string): Promise<boolean> {
    const stored = await this.storedHash();
    if (stored !== undefined && (await verifyPassword(password, stored))) {
      // Verified just now: the first request with it answers without a second scrypt, which
      // is most of the time from start to first answer (~65 ms on a desktop, more on a Pi).
      this.rememberVerified(password, stored);
      return false;
    }
    await this.setPassword(password);
    return true;
  }

  /** Remembers a password known to match `storedHash` (see `checkPassword`). */
  private rememberVerified(password: string, storedHash: string): void {
    this.verifiedPassword = {
      storedHash,
      candidateDigest: sha256(password),
      until: this.clock.now() + VERIFIED_PASSWORD_TTL_MS,
    };
  }

  /**
   * decisions.md, Errors: throttling guards the password. A bearer token is checked at once
   * (a sha256 and an indexed lookup) and a valid one is never throttled, queued or counted,
   * so a client with a bad password on the same address cannot lock the others out. Unknown
   * tokens count as failures like wrong passwords.
   *
   * Password attempts from one address are checked one at a time: otherwise a client could
   * send a hundred guesses at once and have them all verified before the first failure is
   * counted. Different addresses do not wait for each other, but share a bounded number of
   * scrypt slots (see `checkPassword`).
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
   * in the token cache (see knownToken). Anything else is undefined and takes the full path,
   * where failures are counted and throttled.
   */
  knownIdentity(credentials: Credentials, clientIp: string): Identity | undefined {
    if (credentials.kind === 'token') return this.knownToken(credentials.secret);
    return this.isRememberedPassword(credentials.secret, throttleKey(clientIp)) ? PASSWORD_IDENTITY_ONLY : undefined;
  }

  /**
   * A token the database vouched for earlier and that is still valid now. Revoking clears the
   * cache, so a revoked token is never known; the expiry is checked against the clock here.
   * A token the cache does not hold is not known (the full check reads and caches it), nor is
   * an idle-expiring one whose last use is older than the resolution its use is recorded at:
   * the full check then records this use, so a token polled only here never looks idle.
   */
  private knownToken(secret: string): Identity | undefined {
    if (!this.passwordSeen) return undefined;
    const row = this.tokenCache.get(tokenDigest(secret).toString('hex'));
    const now = this.clock.now();
    if (!row || (row.expires_at !== null && now >= row.expires_at)) return undefined;
    if (row.idle_expiry && now - (row.last_used_at ?? row.created_at) >= LAST_USED_RESOLUTION_MS) return undefined;
    return { who: row.name, scope: row.scope, token: { id: row.id, expiresAt: row.expires_at } };
  }

  /**
   * The password a client already signed in with, from an address not under back-off, is
   * let through at once instead of queueing behind the address's other attempts: a client
   * polling with Basic auth over several connections (a dashboard, the official Go client)
   * would otherwise be served one request at a time. Only the remembered success is taken
   * this way, against a stored hash read within the last second; anything else queues.
   */
  private isRememberedPassword(candidate: string, address: string): boolean {
    const remembered = this.verifiedPassword;
    const stored = this.storedHashCache;
    const now = this.clock.now();
    if (!remembered || !stored || stored.hash !== remembered.storedHash || now >= remembered.until) return false;
    if (now < stored.readAt || now - stored.readAt >= STORED_HASH_TTL_MS) return false;
    if (this.throttle.waitMs(address) > 0) return false;
    if (!timingSafeEqual(remembered.candidateDigest, sha256(candidate))) return false;
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

  async createToken(request: {
    name: string;
    expiresAt?: number | null;
    scope?: Scope;
    idleExpiry?: boolean;
  }): Promise<CreatedToken> {
    const scope = scopeSchema.safeParse(request.scope ?? DEFAULT_TOKEN_SCOPE);
    if (!scope.success) throw new AuthInputError(scope.error.issues[0]!.message);
    const parsedName = tokenNameSchema.safeParse(request.name);
    if (!parsedName.success) throw new AuthInputError(formatZodIssue(parsedName.error.issues[0]!));
    const name = parsedName.data;
    const now = this.clock.now();
    // Whole seconds, as the API shows them, so the shown expiry is the real one.
    const expiresAt = request.expiresAt == null ? null : Math.floor(request.expiresAt / 1000) * 1000;
    if (expiresAt !== null && expiresAt <= now) {
      throw new AuthInputError(`expires_at ${formatUtc(expiresAt)} is not in the future (now is ${formatUtc(now)})`);
    }
    const id = randomBytes(8).toString('hex');
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    await this.deleteExpired();
    try {
      await this.db.run(
        'INSERT INTO auth_tokens (id, name, secret_hash, created_at, expires_at, scope, idle_expiry, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        id,
        name,
        tokenDigest(token),
        now,
        expiresAt,
        scope.data,
        request.idleExpiry ? 1 : 0,
        now,
      );
    } catch (err) {
      if (String((err as Error).message).includes('auth_tokens.name')) {
        throw new AuthInputError(
          `a token named "${name}" already exists: choose another name or revoke that token first`,
          'conflict',
        );
      }
      throw err;
    }
    return {
      id,
      name,
      token,
      ...tokenTimes({ created_at: now, expires_at: expiresAt }),
      scope: scope.data,
      idle_expiry: request.idleExpiry ?? false,
    };
  }

  /**
   * Deletes idle-expiry tokens unused for longer than the idle time (at each token creation
   * and listing), so sign-ins do not pile up. Tokens with a fixed expiry stay listed.
   */
  async deleteExpired(): Promise<number> {
    const result = await this.db.run(
      'DELETE FROM auth_tokens WHERE idle_expiry = 1 AND COALESCE(last_used_at, created_at) <= ?',
      this.clock.now() - this.idleMs,
    );
    const deleted = result.changes ?? 0;
    if (deleted > 0) this.tokenCache.clear();
    return deleted;
  }

  /** Every token, expired ones included, oldest first; never the secrets. */
  async listTokens(): Promise<TokenInfo[]> {
    await this.deleteExpired();
    const rows = await this.db.all<TokenRow[]>(
      'SELECT id, name, created_at, expires_at, scope, idle_expiry FROM auth_tokens ORDER BY created_at, rowid',
    );
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      ...tokenTimes(row),
      scope: row.scope,
      idle_expiry: row.idle_expiry === 1,
    }));
  }

  /** Deletes the token, so it fails from the next request on. False when no such id. */
  async revokeToken(id: string): Promise<boolean> {
    const result = await this.db.run('DELETE FROM auth_tokens WHERE id = ?', id);
    this.tokenCache.clear();
    const revoked = (result.changes ?? 0) > 0;
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
    const outcome = await this.checkPassword(credentials.secret);
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
    const outcome = await this.checkToken(secret);
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

  /**
   * scrypt costs tens of milliseconds by design, too much for a dashboard that polls with
   * Basic auth. So the sha256 of the last password that verified is remembered for ten
   * minutes, tied to the stored hash it verified against: a password change (here or by the
   * CLI in another process; the row is re-read at least once a second) makes it useless within a second. Only
   * successes are remembered, so every wrong guess still pays a full scrypt, and the digest
   * is compared in constant time.
   *
   * At most a few scrypt checks run at once and a few more wait (`WorkGate`); beyond that the
   * answer is 503 with Retry-After, which does not count as a failure. Each check holds
   * 32 MiB, so a thousand parallel guesses from many addresses would otherwise take the
   * memory and the CPU from everyone. The remembered password is checked before the gate,
   * so a signed-in dashboard keeps working during such a flood.
   */
  private async checkPassword(candidate: string): Promise<AuthOutcome> {
    const stored = await this.storedHash();
    if (stored === undefined) return { ok: false, status: 403, message: NO_PASSWORD_MESSAGE };
    const now = this.clock.now();
    const digest = sha256(candidate);
    const remembered = this.verifiedPassword;
    if (
      remembered &&
      remembered.storedHash === stored &&
      now < remembered.until &&
      timingSafeEqual(remembered.candidateDigest, digest)
    ) {
      return PASSWORD_IDENTITY;
    }
    // No set password holds a control character (passwordProblem). It must be refused here:
    // scrypt keys HMAC-SHA256, which pads keys with NUL bytes, so "password\0" would verify.
    if (/\p{Cc}/u.test(candidate)) return { ok: false, status: 401, message: WRONG_PASSWORD_MESSAGE };
    const verified = this.hashGate.run(() => verifyPassword(candidate, stored));
    if (!verified) return { ok: false, status: 503, message: BUSY_MESSAGE, retryAfterS: 1 };
    if (!(await verified)) return { ok: false, status: 401, message: WRONG_PASSWORD_MESSAGE };
    this.verifiedPassword = { storedHash: stored, candidateDigest: digest, until: now + VERIFIED_PASSWORD_TTL_MS };
    return PASSWORD_IDENTITY;
  }

  /**
   * Tokens are 256 random bits, so a plain sha256 is as good as a slow KDF here (there is
   * no dictionary to try), and it allows an indexed lookup instead of checking every token.
   */
  private async checkToken(secret: string): Promise<AuthOutcome> {
    if (!TOKEN_SHAPE.test(secret)) return { ok: false, status: 401, message: UNKNOWN_TOKEN_MESSAGE };
    const digest = tokenDigest(secret);
    const key = digest.toString('hex');
    let row = this.tokenCache.get(key);
    if (!row) {
      row = await this.db.get<TokenRecord>(
        'SELECT id, name, expires_at, scope, idle_expiry, last_used_at, created_at FROM auth_tokens WHERE secret_hash = ?',
        digest,
      );
      if (!row) return { ok: false, status: 401, message: UNKNOWN_TOKEN_MESSAGE };
      if (this.tokenCache.size >= 1000) this.tokenCache.clear();
      this.tokenCache.set(key, row);
    }
    if (row.expires_at !== null && this.clock.now() >= row.expires_at) {
      return {
        ok: false,
        status: 401,
        message: `token "${row.name}" expired at ${formatUtc(row.expires_at)}: create a new one`,
      };
    }
    if (row.idle_expiry) {
      const now = this.clock.now();
      const lastUsed = row.last_used_at ?? row.created_at;
      if (now - lastUsed >= this.idleMs) {
        return {
          ok: false,
          status: 401,
          message: `token "${row.name}" expired after ${Math.round(this.idleMs / 86_400_000)} days unused: sign in again`,
        };
      }
      if (now - lastUsed >= LAST_USED_RESOLUTION_MS) {
        row.last_used_at = now;
        await this.db.run('UPDATE auth_tokens SET last_used_at = ? WHERE id = ?', now, row.id);
      }
    }
    return { ok: true, who: row.name, scope: row.scope, token: { id: row.id, expiresAt: row.expires_at } };
  }

  /**
   * The stored hash, read from the database at most once a second: a password set by the
   * CLI in another process takes effect within a second, and a dashboard polling many
   * times a second costs no database round trip per request.
   */
  private async storedHash(): Promise<string | undefined> {
    const now = this.clock.now();
    if (
      this.storedHashCache &&
      now >= this.storedHashCache.readAt &&
      now - this.storedHashCache.readAt < STORED_HASH_TTL_MS
    ) {
      return this.storedHashCache.hash;
    }
    // One read at a time: a flood of logins would otherwise queue a thousand reads on the
    // connection, and a real login's read would wait behind all of them.
    if (this.storedHashRead) return this.storedHashRead;
    const read = this.db.get<{ hash: string }>('SELECT hash FROM auth_password WHERE id = 1').then((row) => {
      if (this.storedHashRead === read) this.storedHashCache = { hash: row?.hash, readAt: now };
      return row?.hash;
    });
    this.storedHashRead = read;
    try {
      return await read;
    } finally {
      if (this.storedHashRead === read) this.storedHashRead = undefined;
    }
  }
}

const PASSWORD_IDENTITY_ONLY: Identity = { who: PASSWORD_USER, scope: 'admin' };
const PASSWORD_IDENTITY: AuthOutcome = { ok: true, ...PASSWORD_IDENTITY_ONLY };

/** What is wrong with a new password, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password.normalize('NFC')].length;
  if (length === 0) return 'the password must not be empty';
  if (length < PASSWORD_MIN_LENGTH)
    return `the password must be at least ${PASSWORD_MIN_LENGTH} characters long (this one has ${length})`;
  if (length > PASSWORD_MAX_LENGTH) return `the password must be at most ${PASSWORD_MAX_LENGTH} characters long`;
  // Also what makes `checkPassword` safe to refuse such candidates before hashing.
  if (/\p{Cc}/u.test(password)) return 'the password must not contain control characters (newline, tab, NUL)';
  return undefined;
}

function tokenDigest(secret: string): Buffer {
  return sha256(secret);
}

/**
 * SHA-256 of a string's UTF-8 bytes. Runs on every authenticated request: the one-shot
 * crypto.hash skips the Hash stream object that createHash builds (and the garbage it leaves).
 */
function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

function tokenTimes(row: {
  created_at: number;
  expires_at: number | null;
}): Pick<TokenInfo, 'created_at' | 'expires_at'> {
  return {
    created_at: formatUtc(row.created_at),
    expires_at: row.expires_at === null ? null : formatUtc(row.expires_at),
  };
}
