import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db.js';
import { AuthInputError, AuthService } from '../../src/auth/service.js';
import { assertRefused, AUTH_OPTIONS, PASSWORD, START, startAuth, withPassword } from './support.js';

const IP = '192.168.1.20';

test('before a password is set, every request is refused with 403 saying how to set one', async (t) => {
  const fx = await startAuth();
  t.after(fx.close);
  assert.equal(await fx.auth.hasPassword(), false);
  for (const credentials of [
    undefined,
    { kind: 'password', secret: PASSWORD } as const,
    { kind: 'token', secret: 'hg_x' } as const,
  ]) {
    const outcome = await fx.auth.authenticate(credentials, IP);
    assertRefused(outcome, 403, /heliograph password set/);
    assert.match(outcome.message, /HELIOGRAPH_PASSWORD/);
    assert.match(outcome.message, /HELIOGRAPH_PASSWORD/);
  }
});

test('setPassword refuses empty, short and control-character passwords with a clear message', async (t) => {
  const fx = await startAuth();
  t.after(fx.close);
  const cases: Array<[string, RegExp]> = [
    ['', /must not be empty/],
    ['seven77', /at least 8 characters long \(this one has 7\)/],
    ['eight888\n', /control characters/],
    ['nul\0inside!', /control characters/],
  ];
  for (const [password, message] of cases) {
    await assert.rejects(
      fx.auth.setPassword(password),
      (err: unknown) => err instanceof AuthInputError && message.test(err.message),
    );
  }
  assert.equal(await fx.auth.hasPassword(), false);
  await fx.auth.setPassword('eight888');
  assert.equal(await fx.auth.hasPassword(), true);
});

test('the password is stored as a salted scrypt hash with its parameters, and checked', async (t) => {
  const fx = await withPassword(t);
  const first = await fx.db.get<{ hash: string }>('SELECT hash FROM auth_password');
  assert.match(first!.hash, /^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  assert.ok(!first!.hash.includes(PASSWORD));

  await fx.auth.setPassword(PASSWORD);
  const second = await fx.db.get<{ hash: string }>('SELECT hash FROM auth_password');
  assert.notEqual(second!.hash, first!.hash, 'a fresh salt per hash');

  assert.deepEqual(await fx.auth.authenticate({ kind: 'password', secret: PASSWORD }, IP), {
    ok: true,
    who: 'admin',
    scope: 'admin',
  });
  const wrong = await fx.auth.authenticate({ kind: 'password', secret: `${PASSWORD}!` }, IP);
  assertRefused(wrong, 401, /wrong password/);
});

test('missing credentials answer 401 once a password is set', async (t) => {
  const fx = await withPassword(t);
  const outcome = await fx.auth.authenticate(undefined, IP);
  assertRefused(outcome, 401, /credentials required/);
});

test('a password changed by another process takes effect within a second, even after a remembered success', async (t) => {
  const fx = await withPassword(t);
  assert.equal((await fx.auth.authenticate({ kind: 'password', secret: PASSWORD }, IP)).ok, true);
  assert.equal((await fx.auth.authenticate({ kind: 'password', secret: PASSWORD }, IP)).ok, true);

  // The CLI (`heliograph password set`) opens the same file with its own connection.
  const cliDb = await openDatabase(fx.file);
  const cli = await AuthService.create(cliDb, fx.clock, AUTH_OPTIONS);
  await cli.setPassword('the new password');
  await cliDb.close();

  // The stored hash is re-read at most once a second, so polling costs no query per request.
  fx.clock.advance(1000);
  const old = await fx.auth.authenticate({ kind: 'password', secret: PASSWORD }, IP);
  assert.equal(old.ok, false);
  assert.deepEqual(await fx.auth.authenticate({ kind: 'password', secret: 'the new password' }, IP), {
    ok: true,
    who: 'admin',
    scope: 'admin',
  });
});

test('a password set by another process ends the 403 within a second', async (t) => {
  const fx = await startAuth();
  t.after(fx.close);
  const before = await fx.auth.authenticate({ kind: 'password', secret: PASSWORD }, IP);
  assert.equal(!before.ok && before.status, 403);
  const cliDb = await openDatabase(fx.file);
  await (await AuthService.create(cliDb, fx.clock, AUTH_OPTIONS)).setPassword(PASSWORD);
  await cliDb.close();
  fx.clock.advance(1000);
  assert.equal((await fx.auth.authenticate({ kind: 'password', secret: PASSWORD }, IP)).ok, true);
});

test('ensurePassword keeps a password that is already current and replaces another', async (t) => {
  const fx = await startAuth();
  t.after(fx.close);
  assert.equal(await fx.auth.ensurePassword(PASSWORD), true);
  const hash = (await fx.db.get<{ hash: string }>('SELECT hash FROM auth_password'))!.hash;
  assert.equal(await fx.auth.ensurePassword(PASSWORD), false);
  assert.equal((await fx.db.get<{ hash: string }>('SELECT hash FROM auth_password'))!.hash, hash);
  assert.equal(await fx.auth.ensurePassword('another password'), true);
  assert.equal((await fx.auth.authenticate({ kind: 'password', secret: 'another password' }, IP)).ok, true);
});

test('tokens: created with a random secret stored only as its sha256, listed without it, used, revoked', async (t) => {
  const fx = await withPassword(t);
  const created = await fx.auth.createToken({ name: 'home-assistant' });
  assert.match(created.token, /^hg_[A-Za-z0-9_-]{43}$/);
  assert.match(created.id, /^[0-9a-f]{16}$/);
  assert.deepEqual(
    { ...created, token: undefined, id: undefined },
    {
      name: 'home-assistant',
      token: undefined,
      id: undefined,
      created_at: '2025-06-01T12:00:00Z',
      expires_at: null,
      scope: 'write',
      idle_expiry: false,
    },
  );
  const other = await fx.auth.createToken({ name: 'grafana' });
  assert.notEqual(other.token, created.token);

  const rows = await fx.db.all<Array<Record<string, unknown>>>('SELECT * FROM auth_tokens');
  for (const row of rows) {
    for (const value of Object.values(row))
      assert.ok(!String(value).includes(created.token.slice(3)), 'no column holds the secret');
  }
  const stored = await fx.db.get<{ secret_hash: Buffer }>(
    'SELECT secret_hash FROM auth_tokens WHERE id = ?',
    created.id,
  );
  assert.deepEqual(stored!.secret_hash, createHash('sha256').update(created.token).digest());

  assert.deepEqual(await fx.auth.listTokens(), [
    {
      id: created.id,
      name: 'home-assistant',
      created_at: '2025-06-01T12:00:00Z',
      expires_at: null,
      scope: 'write',
      idle_expiry: false,
    },
    {
      id: other.id,
      name: 'grafana',
      created_at: '2025-06-01T12:00:00Z',
      expires_at: null,
      scope: 'write',
      idle_expiry: false,
    },
  ]);
  assert.deepEqual(await fx.auth.authenticate({ kind: 'token', secret: created.token }, IP), {
    ok: true,
    who: 'home-assistant',
    scope: 'write',
    token: { id: created.id, expiresAt: null },
  });

  assert.equal(await fx.auth.revokeToken(created.id), true);
  assert.equal(await fx.auth.revokeToken(created.id), false);
  const revoked = await fx.auth.authenticate({ kind: 'token', secret: created.token }, IP);
  assert.equal(!revoked.ok && revoked.status, 401);
  assert.deepEqual(await fx.auth.authenticate({ kind: 'token', secret: other.token }, IP), {
    ok: true,
    who: 'grafana',
    scope: 'write',
    token: { id: other.id, expiresAt: null },
  });
});

test('tokens expire by the clock, at second precision', async (t) => {
  const fx = await withPassword(t);
  const created = await fx.auth.createToken({ name: 'short-lived', expiresAt: START + 60_000 + 750 });
  assert.equal(created.expires_at, '2025-06-01T12:01:00Z');
  fx.clock.advance(59_999);
  assert.equal((await fx.auth.authenticate({ kind: 'token', secret: created.token }, IP)).ok, true);
  fx.clock.advance(1);
  const expired = await fx.auth.authenticate({ kind: 'token', secret: created.token }, IP);
  assertRefused(expired, 401, /token "short-lived" expired at 2025-06-01T12:01:00Z/);
  assert.deepEqual(
    (await fx.auth.listTokens()).map((token) => token.name),
    ['short-lived'],
    'expired tokens stay listed until revoked',
  );
});

test('createToken refuses a past expiry, a duplicate name and the reserved name admin', async (t) => {
  const fx = await startAuth();
  t.after(fx.close);
  await assert.rejects(
    fx.auth.createToken({ name: 'late', expiresAt: START }),
    (err: unknown) =>
      err instanceof AuthInputError && err.reason === 'invalid' && /not in the future/.test(err.message),
  );
  await fx.auth.createToken({ name: 'grafana' });
  await assert.rejects(
    fx.auth.createToken({ name: ' grafana ' }),
    (err: unknown) => err instanceof AuthInputError && err.reason === 'conflict',
  );
  await assert.rejects(
    fx.auth.createToken({ name: 'admin' }),
    (err: unknown) => err instanceof AuthInputError && /reserved/.test(err.message),
  );
  await assert.rejects(
    fx.auth.createToken({ name: '  ' }),
    (err: unknown) => err instanceof AuthInputError && /must not be empty/.test(err.message),
  );
  assert.deepEqual(
    (await fx.auth.listTokens()).map((token) => token.name),
    ['grafana'],
  );
});

test('password and tokens survive reopening the database file', async (t) => {
  const fx = await withPassword(t);
  const created = await fx.auth.createToken({ name: 'persisted' });
  await fx.db.close();
  fx.db = await openDatabase(fx.file);
  const reopened = await AuthService.create(fx.db, fx.clock, AUTH_OPTIONS);
  assert.equal(await reopened.hasPassword(), true);
  assert.equal((await reopened.authenticate({ kind: 'password', secret: PASSWORD }, IP)).ok, true);
  assert.deepEqual(await reopened.authenticate({ kind: 'token', secret: created.token }, IP), {
    ok: true,
    who: 'persisted',
    scope: 'write',
    token: { id: created.id, expiresAt: null },
  });
});

test('the password followed by NUL bytes does not sign in (scrypt pads HMAC keys with NULs)', async (t) => {
  const fx = await withPassword(t);
  for (const candidate of [`${PASSWORD}\0`, `${PASSWORD}\0\0\0`]) {
    const outcome = await fx.auth.authenticate({ kind: 'password', secret: candidate }, IP);
    assert.equal(!outcome.ok && outcome.status, 401);
  }
});

test('password checks share a few scrypt slots: beyond them 503 with Retry-After, not counted as a failure', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'heliograph-gate-'));
  const db = await openDatabase(join(dir, 'auth.db'));
  t.after(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const auth = await AuthService.create(db, new ManualClock(START), {
    ...AUTH_OPTIONS,
    maxConcurrentHashes: 1,
    maxWaitingHashes: 1,
  });
  await auth.setPassword(PASSWORD);
  const wrong = { kind: 'password' as const, secret: 'not the password' };
  const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => auth.authenticate(wrong, `10.0.0.${i}`)));
  const statuses = outcomes.map((o) => (o.ok ? 200 : o.status));
  // One runs, one waits; the others arrive while both slots are taken (the order of arrival
  // depends on the database answering, so only the counts are fixed).
  assert.deepEqual([...statuses].sort(), [401, 401, 503, 503, 503, 503]);
  const busyIndex = statuses.indexOf(503);
  const busy = outcomes[busyIndex]!;
  assert.ok(!busy.ok && busy.retryAfterS === 1 && /too many password checks/.test(busy.message));
  // The refused ones were not counted: five more tries are needed to throttle the address.
  for (let i = 0; i < 4; i++) await auth.authenticate(wrong, `10.0.0.${busyIndex}`);
  const fifth = await auth.authenticate(undefined, `10.0.0.${busyIndex}`);
  assert.equal(!fifth.ok && fifth.status, 401);
  // The remembered password skips the gate, so a signed-in client is not refused while it is full.
  assert.equal((await auth.authenticate({ kind: 'password', secret: PASSWORD }, '10.0.1.1')).ok, true);
  const flood = Array.from({ length: 4 }, (_, i) => auth.authenticate(wrong, `10.0.2.${i}`));
  assert.equal((await auth.authenticate({ kind: 'password', secret: PASSWORD }, '10.0.1.1')).ok, true);
  await Promise.all(flood);
});

test('a revocation listener that throws cannot fail the revocation: the token is gone and the next listener hears it', async (t) => {
  const fx = await withPassword(t);
  const token = await fx.auth.createToken({ name: 'hass' });
  const heard: string[] = [];
  fx.auth.on('revoked', () => {
    throw new Error('a broken listener');
  });
  fx.auth.on('revoked', (id) => heard.push(id));

  assert.equal(await fx.auth.revokeToken(token.id), true, 'revokeToken reports the revocation');
  assert.deepEqual(heard, [token.id], 'the listener after the throwing one is called');
  const outcome = await fx.auth.authenticate({ kind: 'token', secret: token.token }, IP);
  assert.equal(outcome.ok, false, 'the revoked token is refused');
  assert.deepEqual(await fx.auth.listTokens(), []);
});
