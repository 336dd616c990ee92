// The edges of the credential checks, on a real SQLite file and over real HTTP: how an
// Authorization header or a stream's query is read, what each refusal answers with, exactly
// when a token's expiry and idle time end it, when an identity is known without a check, and
// the password rules at their limits. The broader flows are in service.test.ts and api.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Router from '@koa/router';
import { createApp, listen } from '../../src/api/app.js';
import { authError, credentialsFromHeader, credentialsFromQuery } from '../../src/api/auth.js';
import { scope } from '../../src/api/auth.js';
import { AuthInputError, passwordProblem } from '../../src/auth/service.js';
import { captureLog } from '../helpers/log-lines.js';
import { PASSWORD, START, startAuth, withPassword } from './support.js';

const IP = '192.168.1.30';
const DAY = 86_400_000;

const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

test('an Authorization header is read as Basic (any user, the password after the first colon) or Bearer', () => {
  assert.equal(credentialsFromHeader(undefined), undefined);
  assert.equal(credentialsFromHeader(''), undefined);
  assert.equal(credentialsFromHeader('Bearer'), undefined, 'no space: no credentials');
  assert.equal(credentialsFromHeader('Bearer    '), undefined, 'an empty bearer token is none');
  assert.deepEqual(credentialsFromHeader('Bearer  hg_abc '), { kind: 'token', secret: 'hg_abc' });
  assert.deepEqual(credentialsFromHeader('bEaReR hg_abc'), { kind: 'token', secret: 'hg_abc' });
  assert.deepEqual(credentialsFromHeader(basic('solar-assistant', 'pa:ss word')), {
    kind: 'password',
    secret: 'pa:ss word',
  });
  assert.deepEqual(credentialsFromHeader(basic('', '')), { kind: 'password', secret: '' });
  assert.deepEqual(credentialsFromHeader(`BASIC ${Buffer.from('u:pw').toString('base64')}`), {
    kind: 'password',
    secret: 'pw',
  });
  assert.equal(credentialsFromHeader(`Basic ${Buffer.from('no-colon').toString('base64')}`), undefined);
  assert.equal(credentialsFromHeader('Digest abc'), undefined, 'another scheme');
  assert.equal(credentialsFromHeader('Token hg_abc'), undefined);
});

test("a stream's credentials: ?token= first, then ?password=, then the Authorization header", () => {
  const header = 'Bearer hg_header';
  assert.deepEqual(credentialsFromQuery(new URLSearchParams('token=hg_q&password=pw'), header), {
    kind: 'token',
    secret: 'hg_q',
  });
  assert.deepEqual(credentialsFromQuery(new URLSearchParams('password=pw'), header), {
    kind: 'password',
    secret: 'pw',
  });
  assert.deepEqual(credentialsFromQuery(new URLSearchParams('token=&password='), header), {
    kind: 'token',
    secret: 'hg_header',
  });
  assert.equal(credentialsFromQuery(new URLSearchParams(''), undefined), undefined);
});

test('a refusal answers with its status, the Bearer challenge on 401 and Retry-After on 429 and 503', () => {
  const unauthorized = authError({ ok: false, status: 401, message: 'who are you' }, 'Realm');
  assert.equal(unauthorized.status, 401);
  assert.equal(unauthorized.message, 'who are you');
  assert.deepEqual(unauthorized.headers, { 'WWW-Authenticate': 'Bearer realm="Realm"' });
  assert.deepEqual(authError({ ok: false, status: 403, message: 'no', retryAfterS: 3 }, 'R').headers, {});
  assert.deepEqual(authError({ ok: false, status: 429, message: 'slow', retryAfterS: 7 }, 'R').headers, {
    'Retry-After': '7',
  });
  assert.deepEqual(authError({ ok: false, status: 503, message: 'busy', retryAfterS: 1 }, 'R').headers, {
    'Retry-After': '1',
  });
  assert.deepEqual(authError({ ok: false, status: 429, message: 'slow' }, 'R').headers, {});
});

test('over HTTP a signed-in request carries who and the identity (no outcome flag) to the route', async (t) => {
  const fx = await startAuth();
  await fx.auth.setPassword(PASSWORD);
  const router = new Router();
  router.get('/whoami', scope('read'), (ctx) => {
    ctx.body = { who: ctx.state.who, identity: ctx.state.identity as unknown };
  });
  const app = createApp({ auth: fx.auth, realm: 'Heliograph', routers: [router] });
  const server = await listen(app, '127.0.0.1', 0);
  t.after(async () => {
    await server.close();
    await fx.close();
  });
  const call = (authorization?: string) =>
    fetch(new URL('/api/v1/whoami', server.url), { headers: authorization ? { authorization } : {} });

  const byPassword = await call(basic('anyone', PASSWORD));
  assert.equal(byPassword.status, 200);
  assert.deepEqual(await byPassword.json(), { who: 'admin', identity: { who: 'admin', scope: 'admin' } });

  const created = await fx.auth.createToken({ name: 'dashboard', scope: 'read' });
  const byToken = await call(`Bearer ${created.token}`);
  assert.equal(byToken.status, 200);
  assert.deepEqual(await byToken.json(), {
    who: 'dashboard',
    identity: { who: 'dashboard', scope: 'read', token: { id: created.id, expiresAt: null } },
  });

  const refused = await call();
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="Heliograph"');
  assert.match(((await refused.json()) as { error: string }).error, /credentials required/);
});

test('a token works until the second of its expiry; the expiry is cut to whole seconds and must be in the future', async (t) => {
  const fx = await withPassword(t);
  const created = await fx.auth.createToken({ name: 'until', expiresAt: START + 60_999 });
  assert.equal(created.expires_at, '2025-06-01T12:01:00Z', 'cut to the second');
  assert.equal(created.scope, 'write', 'the default scope');
  assert.equal(created.idle_expiry, false);
  assert.match(created.token, /^hg_[A-Za-z0-9_-]{43}$/);
  assert.match(created.id, /^[0-9a-f]{16}$/);
  const token = { kind: 'token', secret: created.token } as const;

  fx.clock.set(START + 59_999);
  assert.deepEqual(await fx.auth.authenticate(token, IP), {
    ok: true,
    who: 'until',
    scope: 'write',
    token: { id: created.id, expiresAt: START + 60_000 },
  });
  assert.deepEqual(fx.auth.knownIdentity(token, IP), {
    who: 'until',
    scope: 'write',
    token: { id: created.id, expiresAt: START + 60_000 },
  });
  fx.clock.set(START + 60_000);
  assert.equal(fx.auth.knownIdentity(token, IP), undefined, 'not known at its expiry');
  assert.deepEqual(await fx.auth.authenticate(token, IP), {
    ok: false,
    status: 401,
    message: 'token "until" expired at 2025-06-01T12:01:00Z: create a new one',
  });

  fx.clock.set(START);
  await assert.rejects(
    fx.auth.createToken({ name: 'now', expiresAt: START + 999 }),
    (err: unknown) =>
      err instanceof AuthInputError &&
      err.reason === 'invalid' &&
      err.message === 'expires_at 2025-06-01T12:00:00Z is not in the future (now is 2025-06-01T12:00:00Z)',
  );
  const later = await fx.auth.createToken({ name: '  padded  ', expiresAt: START + 1000, idleExpiry: false });
  assert.equal(later.name, 'padded', 'the name is trimmed');
  await assert.rejects(
    fx.auth.createToken({ name: 'x', scope: 'root' as never }),
    (err: unknown) => err instanceof AuthInputError && err.message === 'scope must be one of read, write, admin',
  );
  await assert.rejects(
    fx.auth.createToken({ name: 'padded' }),
    (err: unknown) =>
      err instanceof AuthInputError &&
      err.reason === 'conflict' &&
      err.message === 'a token named "padded" already exists: choose another name or revoke that token first',
  );
  await assert.rejects(
    fx.auth.createToken({ name: '' }),
    (err: unknown) => err instanceof AuthInputError && /name must not be empty/.test(err.message),
  );
});

test('a malformed or unknown token is refused without a lookup and counts as a failure', async (t) => {
  const fx = await withPassword(t);
  for (const secret of ['hg_short', `hg_${'a'.repeat(44)}`, `xx_${'a'.repeat(43)}`, `hg_${'a'.repeat(42)}!`])
    assert.deepEqual(await fx.auth.authenticate({ kind: 'token', secret }, IP), {
      ok: false,
      status: 401,
      message: 'unknown or revoked token: create a new one with POST /api/v1/tokens',
    });
  const fifth = await fx.auth.authenticate({ kind: 'token', secret: `hg_${'b'.repeat(43)}` }, IP);
  assert.deepEqual(fifth, {
    ok: false,
    status: 401,
    message: 'unknown or revoked token: create a new one with POST /api/v1/tokens',
  });
  assert.deepEqual(await fx.auth.authenticate({ kind: 'token', secret: `hg_${'c'.repeat(43)}` }, IP), {
    ok: false,
    status: 429,
    message: 'too many failed logins from this address: try again in 1 s (bearer tokens still work)',
    retryAfterS: 1,
  });
  assert.deepEqual(await fx.auth.authenticate({ kind: 'password', secret: PASSWORD }, IP), {
    ok: false,
    status: 429,
    message: 'too many failed logins from this address: try again in 1 s (bearer tokens still work)',
    retryAfterS: 1,
  });
  const good = await fx.auth.createToken({ name: 'good' });
  assert.equal((await fx.auth.authenticate({ kind: 'token', secret: good.token }, IP)).ok, true, 'a token still works');
});

test('a sign-in token records its use at most once a minute and ends exactly after the idle days', async (t) => {
  const fx = await withPassword(t);
  const created = await fx.auth.createToken({ name: 'sign-in', scope: 'admin', idleExpiry: true });
  assert.equal(created.idle_expiry, true);
  const token = { kind: 'token', secret: created.token } as const;
  const lastUsed = async () =>
    (await fx.db.get<{ last_used_at: number }>('SELECT last_used_at FROM auth_tokens WHERE id = ?', created.id))!
      .last_used_at;

  fx.clock.set(START + 59_999);
  assert.equal((await fx.auth.authenticate(token, IP)).ok, true);
  assert.equal(await lastUsed(), START, 'under a minute: not written');
  assert.ok(fx.auth.knownIdentity(token, IP), 'known while used within the minute');
  fx.clock.set(START + 60_000);
  assert.equal(fx.auth.knownIdentity(token, IP), undefined, 'a minute unrecorded: the full check records it');
  assert.equal((await fx.auth.authenticate(token, IP)).ok, true);
  assert.equal(await lastUsed(), START + 60_000, 'a minute on: written');
  assert.ok(fx.auth.knownIdentity(token, IP));

  fx.clock.set(START + 60_000 + 30 * DAY - 1);
  assert.equal((await fx.auth.authenticate(token, IP)).ok, true, 'one ms before the idle time ends');
  const used = START + 60_000 + 30 * DAY - 1;
  // Listing deletes it, at exactly the idle time; a fixed-expiry token stays listed.
  fx.clock.set(used + 30 * DAY - 1);
  await fx.auth.createToken({ name: 'fixed', expiresAt: used + 31 * DAY });
  assert.equal(await fx.auth.deleteExpired(), 0, 'not yet');
  fx.clock.set(used + 30 * DAY);
  assert.deepEqual(await fx.auth.authenticate(token, IP), {
    ok: false,
    status: 401,
    message: 'token "sign-in" expired after 30 days unused: sign in again',
  });
  const listed = await fx.auth.listTokens();
  assert.deepEqual(
    listed.map((info) => [info.name, info.idle_expiry, info.scope]),
    [['fixed', false, 'write']],
  );
  assert.equal(await fx.auth.deleteExpired(), 0, 'nothing left to delete');
});

test('deleting idle tokens forgets the cached ones, so a deleted token fails at once', async (t) => {
  const fx = await withPassword(t);
  const created = await fx.auth.createToken({ name: 'idle', idleExpiry: true });
  const token = { kind: 'token', secret: created.token } as const;
  assert.equal((await fx.auth.authenticate(token, IP)).ok, true, 'cached by its first use');
  fx.clock.set(START + 30 * DAY);
  assert.equal(await fx.auth.deleteExpired(), 1);
  fx.clock.set(START + 30 * DAY - 60_000);
  assert.equal(fx.auth.knownIdentity(token, IP), undefined);
  assert.deepEqual(await fx.auth.authenticate(token, IP), {
    ok: false,
    status: 401,
    message: 'unknown or revoked token: create a new one with POST /api/v1/tokens',
  });
});

test('revoking answers whether a token went, and only a real revocation is announced', async (t) => {
  const fx = await withPassword(t);
  const heard: string[] = [];
  fx.auth.on('revoked', (id) => heard.push(id));
  const created = await fx.auth.createToken({ name: 'gone' });
  assert.equal(await fx.auth.revokeToken('0000000000000000'), false);
  assert.deepEqual(heard, []);
  assert.equal(await fx.auth.revokeToken(created.id), true);
  assert.deepEqual(heard, [created.id]);
  assert.equal(await fx.auth.revokeToken(created.id), false);
  assert.deepEqual(heard, [created.id]);
});

test('no token is known before a password exists, and a password is known only while its check is fresh', async (t) => {
  const fx = await startAuth();
  t.after(fx.close);
  const password = { kind: 'password', secret: PASSWORD } as const;
  assert.equal(fx.auth.knownIdentity({ kind: 'token', secret: `hg_${'a'.repeat(43)}` }, IP), undefined);
  assert.equal(fx.auth.knownIdentity(password, IP), undefined);
  await fx.auth.setPassword(PASSWORD);
  assert.equal(fx.auth.knownIdentity(password, IP), undefined, 'the stored hash was not read yet');
  assert.deepEqual(await fx.auth.authenticate(password, IP), { ok: true, who: 'admin', scope: 'admin' });
  assert.deepEqual(fx.auth.knownIdentity(password, IP), { who: 'admin', scope: 'admin' });
  assert.equal(fx.auth.knownIdentity({ kind: 'password', secret: 'not it at all' }, IP), undefined);
  fx.clock.advance(999);
  assert.deepEqual(fx.auth.knownIdentity(password, IP), { who: 'admin', scope: 'admin' });
  fx.clock.advance(1);
  assert.equal(fx.auth.knownIdentity(password, IP), undefined, 'the stored hash is a second old');
  fx.clock.advance(-2_000);
  assert.equal(fx.auth.knownIdentity(password, IP), undefined, 'a clock gone back does not count as fresh');

  // Only before ten minutes: after them the password is checked again (and remembered again).
  fx.clock.set(START + 10 * 60_000 - 1);
  assert.equal((await fx.auth.authenticate(password, IP)).ok, true);
  assert.ok(fx.auth.knownIdentity(password, IP));
  fx.clock.set(START + 10 * 60_000);
  assert.equal(fx.auth.knownIdentity(password, IP), undefined, 'the remembered success has run out');
  assert.equal((await fx.auth.authenticate(password, IP)).ok, true, 'checked again');
  assert.ok(fx.auth.knownIdentity(password, IP), 'and remembered again');
});

test('wrong passwords are refused, missing credentials are asked for, and neither is remembered', async (t) => {
  const fx = await withPassword(t);
  assert.deepEqual(await fx.auth.authenticate(undefined, IP), {
    ok: false,
    status: 401,
    message:
      'credentials required: use HTTP Basic with the device password (any user name), or "Authorization: Bearer <token>"',
  });
  assert.deepEqual(await fx.auth.authenticate({ kind: 'password', secret: 'wrong password!' }, IP), {
    ok: false,
    status: 401,
    message: 'wrong password',
  });
  assert.deepEqual(await fx.auth.authenticate({ kind: 'password', secret: `${PASSWORD}\n` }, IP), {
    ok: false,
    status: 401,
    message: 'wrong password',
  });
  assert.equal(await fx.auth.ensurePassword(PASSWORD), false, 'already this one');
  assert.equal(await fx.auth.ensurePassword('another password'), true);
  assert.equal((await fx.auth.authenticate({ kind: 'password', secret: PASSWORD }, IP)).ok, false);
});

test('another secret (the setup code) is checked under the same throttle', async (t) => {
  const fx = await withPassword(t);
  const check = (ok: boolean) => fx.auth.checkOtherSecret(IP, () => ok, 'wrong setup code');
  assert.deepEqual(await check(true), { ok: true });
  for (let i = 0; i < 5; i++)
    assert.deepEqual(await check(false), { ok: false, status: 401, message: 'wrong setup code' });
  assert.deepEqual(await check(true), {
    ok: false,
    status: 429,
    message: 'too many failed attempts from this address: try again in 1 s',
    retryAfterS: 1,
  });
  fx.clock.advance(1000);
  assert.deepEqual(await check(true), { ok: true }, 'after the back-off');
  assert.deepEqual(await check(false), { ok: false, status: 401, message: 'wrong setup code' });
  assert.deepEqual(await check(true), { ok: true }, 'a success reset the count');
});

test('password rules count characters as written (NFC code points), at both limits', () => {
  assert.equal(passwordProblem(''), 'the password must not be empty');
  assert.equal(passwordProblem('1234567'), 'the password must be at least 8 characters long (this one has 7)');
  assert.equal(passwordProblem('12345678'), undefined);
  assert.equal(passwordProblem('😀😀😀😀'), 'the password must be at least 8 characters long (this one has 4)');
  assert.equal(
    passwordProblem('e\u0301'.repeat(4)),
    'the password must be at least 8 characters long (this one has 4)',
    'é written as e and a combining accent is one character',
  );
  assert.equal(passwordProblem('x'.repeat(1024)), undefined);
  assert.equal(passwordProblem('x'.repeat(1025)), 'the password must be at most 1024 characters long');
  assert.equal(passwordProblem('😀'.repeat(1024)), undefined, 'characters, not UTF-16 units');
  assert.equal(passwordProblem('tab\there!'), 'the password must not contain control characters (newline, tab, NUL)');
});

test('the moment an address is locked out is logged once, naming it and the back-off', async (t) => {
  const fx = await withPassword(t);
  const lines = captureLog(t);
  const wrong = { kind: 'password', secret: 'wrong password!' } as const;
  for (let i = 0; i < 4; i++) await fx.auth.authenticate(wrong, IP);
  assert.deepEqual(lines, [], 'no line before the lockout');
  await fx.auth.authenticate(wrong, IP);
  assert.equal(lines.length, 1);
  assert.match(
    lines[0]!,
    / warn \[auth\] too many failed logins from 192\.168\.1\.30: refused with 429 for 1 s, longer if it goes on\n$/,
  );
  await fx.auth.checkOtherSecret(IP, () => false, 'wrong setup code');
  assert.equal(lines.length, 1, 'a refusal while locked out adds no line');
});

test('the token cache holds at most 1000 tokens, then starts again', async (t) => {
  const fx = await withPassword(t);
  const tokens: string[] = [];
  for (let i = 0; i < 1001; i++) tokens.push((await fx.auth.createToken({ name: `t${i}` })).token);
  for (const secret of tokens.slice(0, 1000)) await fx.auth.authenticate({ kind: 'token', secret }, IP);
  const first = { kind: 'token', secret: tokens[0]! } as const;
  assert.ok(fx.auth.knownIdentity(first, IP), 'the first is cached among 1000');
  await fx.auth.authenticate({ kind: 'token', secret: tokens[1000]! }, IP);
  assert.equal(fx.auth.knownIdentity(first, IP), undefined, 'the 1001st emptied the cache');
  assert.ok(fx.auth.knownIdentity({ kind: 'token', secret: tokens[1000]! }, IP));
});

test('more header and name edges: no space after the scheme, other schemes, long or control-character names', async (t) => {
  assert.equal(credentialsFromHeader('BearerX'), undefined, 'no space: not a bearer token');
  assert.equal(credentialsFromHeader(`Digest ${Buffer.from('u:p').toString('base64')}`), undefined);
  const fx = await withPassword(t);
  await assert.rejects(
    fx.auth.createToken({ name: 'n'.repeat(65) }),
    (err: unknown) => err instanceof AuthInputError && /name must be at most 64 characters/.test(err.message),
  );
  await assert.rejects(
    fx.auth.createToken({ name: 'two\nlines' }),
    (err: unknown) => err instanceof AuthInputError && /name must not contain control characters/.test(err.message),
  );
  const idle = await fx.auth.createToken({ name: 'sign-in', idleExpiry: true });
  const fixed = await fx.auth.createToken({ name: 'forever' });
  assert.deepEqual(
    (await fx.auth.listTokens()).map((info) => [info.name, info.idle_expiry]),
    [
      ['sign-in', true],
      ['forever', false],
    ],
  );
  // A token without idle expiry works however long it was unused.
  fx.clock.advance(365 * DAY);
  assert.equal((await fx.auth.authenticate({ kind: 'token', secret: fixed.token }, IP)).ok, true);
  assert.equal((await fx.auth.authenticate({ kind: 'token', secret: idle.token }, IP)).ok, false);
});

test('a remembered password stops working once another process changes the stored hash', async (t) => {
  const fx = await withPassword(t);
  const password = { kind: 'password', secret: PASSWORD } as const;
  assert.equal((await fx.auth.authenticate(password, IP)).ok, true, 'remembered');
  // The CLI in another process sets a new password: a different hash in the same row.
  const other = await startAuth();
  await other.auth.setPassword('a brand new password');
  const { hash } = (await other.db.get<{ hash: string }>('SELECT hash FROM auth_password'))!;
  await other.close();
  await fx.db.run('UPDATE auth_password SET hash = ? WHERE id = 1', hash);
  fx.clock.advance(1000);
  // A wrong guess reads the new hash (the cache is a second old).
  assert.equal((await fx.auth.authenticate({ kind: 'password', secret: 'not it at all' }, IP)).ok, false);
  assert.equal((await fx.auth.authenticate(password, IP)).ok, false, 'the old password is refused');
  assert.equal((await fx.auth.authenticate({ kind: 'password', secret: 'a brand new password' }, IP)).ok, true);
});

test('a remembered password signing in resets the failures counted against the address', async (t) => {
  const fx = await withPassword(t);
  const password = { kind: 'password', secret: PASSWORD } as const;
  assert.equal((await fx.auth.authenticate(password, IP)).ok, true);
  const wrong = { kind: 'password', secret: 'wrong password!' } as const;
  for (let i = 0; i < 4; i++) await fx.auth.authenticate(wrong, IP);
  assert.ok(fx.auth.knownIdentity(password, IP), 'taken without the queue');
  await fx.auth.authenticate(wrong, IP);
  assert.equal((await fx.auth.authenticate(password, IP)).ok, true, 'five failures, but not in a row: no lockout');
});
