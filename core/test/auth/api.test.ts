import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createApp, listen } from '../../src/api/app.js';
import { tokensRoutes } from '../../src/api/tokens/route.js';
import { httpRequest, type HttpAnswer, type HttpRequestOptions } from '../helpers/http.js';
import { CREATED_TOKEN_FIELDS } from '../helpers/tokens.js';
import { PASSWORD, startAuth, type AuthFixture } from './support.js';

interface ApiFixture extends AuthFixture {
  call(path: string, options?: HttpRequestOptions): Promise<HttpAnswer>;
}

async function startApi(
  t: { after(fn: () => Promise<void>): void },
  options: { password?: boolean } = {},
): Promise<ApiFixture> {
  const fx = await startAuth();
  if (options.password !== false) await fx.auth.setPassword(PASSWORD);
  const app = createApp({ auth: fx.auth, realm: 'Heliograph', routers: [tokensRoutes({ auth: fx.auth })] });
  const server = await listen(app, '127.0.0.1', 0);
  t.after(async () => {
    await server.close();
    await fx.close();
  });
  return Object.assign(fx, { call: (path: string, opts?: HttpRequestOptions) => httpRequest(server.url, path, opts) });
}

function assertError(answer: HttpAnswer, status: number, message: RegExp): void {
  assert.equal(answer.status, status, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(Object.keys(answer.json as object), ['error', 'code']);
  assert.match((answer.json as { error: string }).error, message);
}

const RFC3339_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

test('before a password exists every call answers 403 saying how to set one', async (t) => {
  const api = await startApi(t, { password: false });
  for (const options of [{}, { basic: PASSWORD }, { bearer: 'hg_whatever' }]) {
    const answer = await api.call('/api/v1/tokens', options);
    assertError(answer, 403, /no password is set yet: set one with `heliograph password set`/);
    assert.match(answer.text, /HELIOGRAPH_PASSWORD/);
  }
});

test('missing or wrong credentials answer 401 with a Bearer challenge, not Basic', async (t) => {
  const api = await startApi(t);
  const cases: Array<[HttpRequestOptions, RegExp]> = [
    [{}, /credentials required/],
    [{ basic: 'not the password' }, /wrong password/],
    [{ basic: { user: 'root', password: `${PASSWORD}\0` } }, /wrong password/],
    [{ bearer: 'hg_unknown' }, /unknown or revoked token/],
  ];
  for (const [options, message] of cases) {
    const answer = await api.call('/api/v1/tokens', options);
    assertError(answer, 401, message);
    assert.equal(answer.headers.get('www-authenticate'), 'Bearer realm="Heliograph"');
  }
});

test('Basic with any user name and the password gets in', async (t) => {
  const api = await startApi(t);
  for (const user of ['admin', 'solar-assistant', '']) {
    const answer = await api.call('/api/v1/tokens', { basic: { user, password: PASSWORD } });
    assert.equal(answer.status, 200, user);
    assert.deepEqual(answer.json, []);
  }
});

test('a bearer token is shown once at creation, listed without its secret, works, and stops at once when revoked', async (t) => {
  const api = await startApi(t);
  const created = await api.call('/api/v1/tokens', {
    method: 'POST',
    basic: PASSWORD,
    body: { name: 'home-assistant', scope: 'admin' },
  });
  assert.equal(created.status, 201, created.text);
  const token = created.json as { id: string; name: string; token: string; created_at: string; expires_at: null };
  assert.deepEqual(Object.keys(token).sort(), CREATED_TOKEN_FIELDS);
  assert.equal(typeof token.id, 'string');
  assert.equal(token.name, 'home-assistant');
  assert.match(token.token, /^hg_/);
  assert.equal(token.created_at, '2025-06-01T12:00:00Z');
  assert.equal(token.expires_at, null);

  const listed = await api.call('/api/v1/tokens', { bearer: token.token });
  assert.equal(listed.status, 200);
  assert.deepEqual(listed.json, [
    {
      id: token.id,
      name: 'home-assistant',
      created_at: '2025-06-01T12:00:00Z',
      expires_at: null,
      scope: 'admin',
      idle_expiry: false,
    },
  ]);
  assert.ok(!listed.text.includes(token.token.slice(3)));

  const revoked = await api.call(`/api/v1/tokens/${token.id}`, { method: 'DELETE', bearer: token.token });
  assert.equal(revoked.status, 204);
  assert.equal(revoked.text, '');
  assertError(await api.call('/api/v1/tokens', { bearer: token.token }), 401, /unknown or revoked token/);
  assert.deepEqual((await api.call('/api/v1/tokens', { basic: PASSWORD })).json, []);
});

test('DELETE of an unknown token id answers 404', async (t) => {
  const api = await startApi(t);
  assertError(
    await api.call('/api/v1/tokens/0123456789abcdef', { method: 'DELETE', basic: PASSWORD }),
    404,
    /no token with id "0123456789abcdef"/,
  );
});

test('expires_at is normalised to UTC seconds, and the token is refused once it passes', async (t) => {
  const api = await startApi(t);
  const created = await api.call('/api/v1/tokens', {
    method: 'POST',
    basic: PASSWORD,
    body: { name: 'one-hour', expires_at: '2025-06-01T14:00:00.750+01:00', scope: 'admin' },
  });
  assert.equal(created.status, 201, created.text);
  const token = created.json as { token: string; expires_at: string; created_at: string };
  assert.equal(token.expires_at, '2025-06-01T13:00:00Z');
  assert.match(token.created_at, RFC3339_SECONDS);
  assert.equal((await api.call('/api/v1/tokens', { bearer: token.token })).status, 200);
  api.clock.advance(60 * 60_000);
  const refused = await api.call('/api/v1/tokens', { bearer: token.token });
  assertError(refused, 401, /token "one-hour" expired at 2025-06-01T13:00:00Z/);
  assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="Heliograph"');
});

test('expires_at takes every RFC 3339 form that history and forecast take', async (t) => {
  const api = await startApi(t);
  const post = (name: string, expires_at: unknown) =>
    api.call('/api/v1/tokens', { method: 'POST', basic: PASSWORD, body: { name, expires_at } });
  for (const [name, text] of [
    ['lower-case', '2025-06-01t14:00:00z'],
    ['space', '2025-06-01 14:00:00Z'],
  ] as const) {
    const created = await post(name, text);
    assert.equal(created.status, 201, `${text}: ${created.text}`);
    assert.equal((created.json as { expires_at: string }).expires_at, '2025-06-01T14:00:00Z');
  }
  for (const refused of ['2025-06-31T14:00:00Z', '2025-06-01T14:00:00', 1748786400000]) {
    assertError(await post('refused', refused), 400, /expires_at must be an RFC 3339 time/);
  }
});

test('POST /tokens answers 400 for a bad body and 409 for a name in use', async (t) => {
  const api = await startApi(t);
  const post = (body: unknown) => api.call('/api/v1/tokens', { method: 'POST', basic: PASSWORD, body });
  assertError(await post({}), 400, /name is required/);
  assertError(await post({ name: '' }), 400, /name must not be empty/);
  assertError(await post({ name: 42 }), 400, /name is required and must be a string/);
  assertError(await post({ name: 'x', expires_at: 'tomorrow' }), 400, /expires_at must be an RFC 3339 time/);
  assertError(
    await post({ name: 'x', expires_at: '2025-06-01T11:59:59Z' }),
    400,
    /expires_at 2025-06-01T11:59:59Z is not in the future/,
  );
  assertError(
    await post({ name: 'x', expiresAt: '2030-01-01T00:00:00Z' }),
    400,
    /unknown field "expiresAt": only name, expires_at, scope and idle_expiry/,
  );
  assertError(await post(['x']), 400, /the body must be a JSON object/);
  assertError(await post('{"name": '), 400, /not valid JSON/);
  assertError(await post({ name: 'admin' }), 400, /reserved/);
  assert.equal((await post({ name: 'grafana', expires_at: null })).status, 201);
  assertError(await post({ name: 'grafana' }), 409, /a token named "grafana" already exists/);
  assert.equal(((await api.call('/api/v1/tokens', { basic: PASSWORD })).json as unknown[]).length, 1);
});

test('five failed logins answer 429 with Retry-After, even for the right password', async (t) => {
  const api = await startApi(t);
  for (let i = 0; i < 5; i++) assert.equal((await api.call('/api/v1/tokens', { basic: `guess ${i}` })).status, 401);
  const throttled = await api.call('/api/v1/tokens', { basic: PASSWORD });
  assertError(throttled, 429, /too many failed logins from this address: try again in 1 s/);
  assert.equal(throttled.headers.get('retry-after'), '1');
  api.clock.advance(1000);
  assert.equal((await api.call('/api/v1/tokens', { basic: PASSWORD })).status, 200);
});

test('scopes: a token gets write by default; a smaller scope answers 403 naming both; admin tokens manage tokens', async (t) => {
  const api = await startApi(t);
  const create = async (body: Record<string, unknown>) => {
    const created = await api.call('/api/v1/tokens', { method: 'POST', basic: PASSWORD, body });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('cache-control'), 'no-store');
    return created.json as { token: string; scope: string };
  };
  const plain = await create({ name: 'plain' });
  assert.equal(plain.scope, 'write');
  const refused = await api.call('/api/v1/tokens', { bearer: plain.token });
  assertError(refused, 403, /token "plain" has scope write, but GET \/api\/v1\/tokens needs scope admin/);
  assertError(
    await api.call('/api/v1/tokens', { method: 'POST', bearer: plain.token, body: { name: 'minted' } }),
    403,
    /needs scope admin/,
  );
  const admin = await create({ name: 'admin-token', scope: 'admin' });
  assert.equal((await api.call('/api/v1/tokens', { bearer: admin.token })).status, 200);
  assertError(
    await api.call('/api/v1/tokens', { method: 'POST', basic: PASSWORD, body: { name: 'x', scope: 'root' } }),
    400,
    /scope must be one of read, write, admin/,
  );
});
