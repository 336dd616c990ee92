import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/clock.js';
import { openDatabase, type Db } from '../../src/db.js';
import { AuthService } from '../../src/auth/service.js';
import type { AuthOutcome } from '../../src/auth/types.js';

/** The API contract: 5 failures within 15 minutes (docs/api.md, "Authentication"). */
export const AUTH_OPTIONS = { maxFailedLogins: 5, failedLoginWindowMs: 15 * 60_000 };
export const START = Date.parse('2025-06-01T12:00:00Z');
export const PASSWORD = 'correct horse battery';

export interface AuthFixture {
  /** Replaceable, for tests that reopen the file; `close` closes whichever is current. */
  db: Db;
  file: string;
  clock: ManualClock;
  auth: AuthService;
  /** A function of its own, not a method: tests pass it as it is to `t.after`. */
  close: () => Promise<void>;
}

/** An AuthService on a fresh SQLite file in a temp dir, with a clock that moves by hand. */
export async function startAuth(): Promise<AuthFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'heliograph-auth-'));
  const file = join(dir, 'heliograph.db');
  const db = await openDatabase(file);
  const clock = new ManualClock(START);
  const auth = await AuthService.create(db, clock, AUTH_OPTIONS);
  const fixture: AuthFixture = {
    db,
    file,
    clock,
    auth,
    close: async () => {
      await fixture.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return fixture;
}

/** Checks that `outcome` refuses the client with `status`, its message matching `message`. */
export function assertRefused(
  outcome: AuthOutcome,
  status: number,
  message: RegExp,
): asserts outcome is Extract<AuthOutcome, { ok: false }> {
  assert.equal(outcome.ok, false);
  if (outcome.ok) return;
  assert.equal(outcome.status, status);
  assert.match(outcome.message, message);
}

/** {@link startAuth} with {@link PASSWORD} set, closed after the test `t`. */
export async function withPassword(t: { after(fn: () => Promise<void>): void }): Promise<AuthFixture> {
  const fx = await startAuth();
  t.after(fx.close);
  await fx.auth.setPassword(PASSWORD);
  return fx;
}
