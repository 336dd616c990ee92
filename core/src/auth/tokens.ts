/*
 * Bearer tokens: created, listed, revoked and checked in SQLite (sha256 of the secret), with
 * the token cache that lets a known token through without a database round trip (the
 * snapshot's fast lane, api/snapshot-lane.ts). AuthService decides who gets in; this keeps
 * the tokens.
 */
import { formatZodIssue } from '@heliograph/plugins-sdk';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Db } from '../db.js';
import { DbWriter } from '../db-writer.js';
import { formatUtc } from '../rfc3339.js';
import {
  AuthInputError,
  type CreatedToken,
  DEFAULT_TOKEN_SCOPE,
  rememberingLast,
  sha256,
  type TokenInfo,
  tokenNameSchema,
} from './rules.js';
import { scopeSchema } from './scopes.js';
import type { AuthOutcome, Identity, Scope } from './types.js';

/** How often a token's last use is written: a dashboard's every call costs no database write. */
const LAST_USED_RESOLUTION_MS = 60_000;
const UNKNOWN_TOKEN_MESSAGE = 'unknown or revoked token: create a new one with POST /api/v1/tokens';
const TOKEN_PREFIX = 'hg_';
const TOKEN_SHAPE = /^hg_[A-Za-z0-9_-]{43}$/;
/** Tokens the cache holds before it starts again. */
const CACHE_SIZE = 1000;

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

export class TokenStore {
  private readonly cache = new Map<string, TokenRecord>();
  /** The cache's key of a secret (its sha256 in hex). */
  private readonly cacheKey = rememberingLast((secret) => sha256(secret).toString('hex'));

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Unused this long, an `idleExpiry` token stops working and is deleted. */
    private readonly idleMs: number,
    /** The server's one write path (db-writer.ts): a busy database is waited out, never a 500. */
    private readonly writer: DbWriter = new DbWriter(() => clock.now()),
  ) {}

  async create(request: {
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
      await this.write(() =>
        this.db.run(
          'INSERT INTO auth_tokens (id, name, secret_hash, created_at, expires_at, scope, idle_expiry, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          id,
          name,
          sha256(token),
          now,
          expiresAt,
          scope.data,
          request.idleExpiry ? 1 : 0,
          now,
        ),
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
    const result = await this.write(() =>
      this.db.run(
        'DELETE FROM auth_tokens WHERE idle_expiry = 1 AND COALESCE(last_used_at, created_at) <= ?',
        this.clock.now() - this.idleMs,
      ),
    );
    const deleted = result.changes ?? 0;
    if (deleted > 0) this.cache.clear();
    return deleted;
  }

  /** Every token, expired ones included, oldest first; never the secrets. */
  async list(): Promise<TokenInfo[]> {
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
  private write<T>(job: () => Promise<T>): Promise<T> {
    return this.writer.run('auth tokens', job);
  }

  async revoke(id: string): Promise<boolean> {
    const result = await this.write(() => this.db.run('DELETE FROM auth_tokens WHERE id = ?', id));
    this.cache.clear();
    return (result.changes ?? 0) > 0;
  }

  /**
   * A token the database vouched for earlier and that is still valid now. Revoking clears the
   * cache, so a revoked token is never known; the expiry is checked against the clock here.
   * A token the cache does not hold is not known (the full check reads and caches it), nor is
   * an idle-expiring one whose last use is older than the resolution its use is recorded at:
   * the full check then records this use, so a token polled only here never looks idle.
   */
  known(secret: string): Identity | undefined {
    const row = this.cache.get(this.cacheKey(secret));
    const now = this.clock.now();
    if (!row || (row.expires_at !== null && now >= row.expires_at)) return undefined;
    if (row.idle_expiry && now - (row.last_used_at ?? row.created_at) >= LAST_USED_RESOLUTION_MS) return undefined;
    return { who: row.name, scope: row.scope, token: { id: row.id, expiresAt: row.expires_at } };
  }

  /**
   * Tokens are 256 random bits, so a plain sha256 is as good as a slow KDF here (there is
   * no dictionary to try), and it allows an indexed lookup instead of checking every token.
   */
  async check(secret: string): Promise<AuthOutcome> {
    if (!TOKEN_SHAPE.test(secret)) return { ok: false, status: 401, message: UNKNOWN_TOKEN_MESSAGE };
    const row = await this.lookUp(secret);
    if (!row) return { ok: false, status: 401, message: UNKNOWN_TOKEN_MESSAGE };
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
        await this.write(() => this.db.run('UPDATE auth_tokens SET last_used_at = ? WHERE id = ?', now, row.id));
      }
    }
    return { ok: true, who: row.name, scope: row.scope, token: { id: row.id, expiresAt: row.expires_at } };
  }

  /** The token's row, from the cache or else the database (and then cached). */
  private async lookUp(secret: string): Promise<TokenRecord | undefined> {
    const digest = sha256(secret);
    const key = digest.toString('hex');
    const cached = this.cache.get(key);
    if (cached) return cached;
    const row = await this.db.get<TokenRecord>(
      'SELECT id, name, expires_at, scope, idle_expiry, last_used_at, created_at FROM auth_tokens WHERE secret_hash = ?',
      digest,
    );
    if (!row) return undefined;
    if (this.cache.size >= CACHE_SIZE) this.cache.clear();
    this.cache.set(key, row);
    return row;
  }
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
