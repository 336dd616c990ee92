/*
 * The device password: its scrypt hash in SQLite, read at most once a second, and the
 * remembered success that spares a signed-in client a scrypt per request. AuthService
 * decides who gets in (and throttles); this keeps and checks the password.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Db } from '../db.js';
import { DbWriter } from '../db-writer.js';
import { hashPassword, verifyPassword } from './password-hash.js';
import {
  AuthInputError,
  NO_PASSWORD_MESSAGE,
  PASSWORD_USER,
  passwordProblem,
  rememberingLast,
  sha256,
} from './rules.js';
import type { AuthOutcome, Identity } from './types.js';
import { WorkGate } from './work-gate.js';

const WRONG_PASSWORD_MESSAGE = 'wrong password';
const BUSY_MESSAGE =
  'too many password checks are running right now: try again in a second (bearer tokens are not affected)';
/** How long a successful password check is remembered (see `check`). */
const STORED_HASH_TTL_MS = 1000;
const VERIFIED_PASSWORD_TTL_MS = 10 * 60_000;

export const PASSWORD_IDENTITY_ONLY: Identity = { who: PASSWORD_USER, scope: 'admin' };
export const PASSWORD_IDENTITY: AuthOutcome = { ok: true, ...PASSWORD_IDENTITY_ONLY };

export class PasswordStore {
  private seen = false;
  private verified: { storedHash: string; candidateDigest: Buffer; until: number } | undefined;
  private storedHashCache: { hash: string | undefined; readAt: number } | undefined;
  /** The sha256 of a candidate password (a signed-in client sends the same one each time). */
  private readonly digestOf = rememberingLast(sha256);
  private storedHashRead: Promise<string | undefined> | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Bounds the scrypt checks running and waiting at once. */
    private readonly hashGate: WorkGate,
    /** The server's one write path (db-writer.ts). */
    private readonly writer: DbWriter = new DbWriter(() => clock.now()),
  ) {}

  /** Whether a password was seen set (without reading the database). */
  get known(): boolean {
    return this.seen;
  }

  async exists(): Promise<boolean> {
    // No API removes the password, so once seen it stays; until then the row is read each
    // time, so a password set by another process (the CLI) takes effect at once.
    if (!this.seen) this.seen = (await this.storedHash()) !== undefined;
    return this.seen;
  }

  /** Sets or replaces the password; throws AuthInputError when it breaks the rules. */
  async set(password: string): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw new AuthInputError(problem);
    const hash = await hashPassword(password);
    await this.writer.run('auth password', () =>
      this.db.run(
        'INSERT INTO auth_password (id, hash, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at',
        hash,
        this.clock.now(),
      ),
    );
    // Whoever set it knows it: their first request need not pay a scrypt for it.
    this.remember(password, hash);
    this.storedHashCache = undefined;
    this.storedHashRead = undefined;
    this.seen = true;
  }

  /** Sets the password unless it already is this one (see AuthService.ensurePassword). */
  async ensure(password: string): Promise<boolean> {
    const stored = await this.storedHash();
    if (stored !== undefined && (await verifyPassword(password, stored))) {
      // Verified just now: the first request with it answers without a second scrypt, which
      // is most of the time from start to first answer (~65 ms on a desktop, more on a Pi).
      this.remember(password, stored);
      return false;
    }
    await this.set(password);
    return true;
  }

  /** Remembers a password known to match `storedHash` (see `check`). */
  private remember(password: string, storedHash: string): void {
    this.verified = {
      storedHash,
      candidateDigest: sha256(password),
      until: this.clock.now() + VERIFIED_PASSWORD_TTL_MS,
    };
  }

  /**
   * Whether `candidate` is the password remembered as verified, against a stored hash read
   * within the last second: the check that lets a signed-in client through without queueing.
   */
  isRemembered(candidate: string): boolean {
    const remembered = this.verified;
    const stored = this.storedHashCache;
    const now = this.clock.now();
    if (!remembered || !stored || stored.hash !== remembered.storedHash || now >= remembered.until) return false;
    if (now < stored.readAt || now - stored.readAt >= STORED_HASH_TTL_MS) return false;
    return timingSafeEqual(remembered.candidateDigest, this.digestOf(candidate));
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
  async check(candidate: string): Promise<AuthOutcome> {
    const stored = await this.storedHash();
    if (stored === undefined) return { ok: false, status: 403, message: NO_PASSWORD_MESSAGE };
    const now = this.clock.now();
    const digest = sha256(candidate);
    const remembered = this.verified;
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
    this.verified = { storedHash: stored, candidateDigest: digest, until: now + VERIFIED_PASSWORD_TTL_MS };
    return PASSWORD_IDENTITY;
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
