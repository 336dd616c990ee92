// First run: while no password exists, the page sets one with the setup code from the log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import { startChildServer } from '../helpers/child-server.js';
import { basicAuth, jsonBody, startTestServer, tempDir } from '../helpers/server.js';
import { CREATED_TOKEN_FIELDS } from '@heliograph/core/test/helpers/tokens';

const NEW_PASSWORD = 'a fine long password';

function post(url: string, body: unknown) {
  return fetch(`${url}/api/v1/setup`, jsonBody(body));
}

test('the whole first run: needs_setup, wrong code, bad password, then a password and a token for the page', async () => {
  const server = await startTestServer({ plugins: [], password: null });
  const code = server.setupCode.value!;
  assert.match(code, /^[A-Z0-9]{4}-[A-Z0-9]{4}$/);

  const before = await fetch(`${server.url}/api/v1/setup`);
  assert.equal(before.status, 200, 'answers without credentials');
  assert.deepEqual(await before.json(), { needs_setup: true });
  assert.equal(
    (await server.api('/api/v1/metrics', { auth: null })).status,
    403,
    'the rest of the API waits for a password',
  );

  const wrong = await post(server.url, { code: 'AAAA-AAAA', password: NEW_PASSWORD });
  assert.equal(wrong.status, 401);
  assert.match(
    ((await wrong.json()) as { error: string }).error,
    /^wrong setup code: use the one in the service's log/,
  );
  assert.equal(wrong.headers.get('www-authenticate'), null, 'no login challenge for a wrong code');

  const missing = await post(server.url, { password: NEW_PASSWORD });
  assert.equal(missing.status, 400);
  assert.deepEqual(((await missing.json()) as { issues: unknown }).issues, [
    {
      path: ['code'],
      message: 'is required: the setup code the service printed in its log at start ("setup code: XXXX-XXXX")',
    },
  ]);

  const short = await post(server.url, { code, password: 'short' });
  assert.equal(short.status, 400);
  assert.deepEqual(((await short.json()) as { issues: unknown }).issues, [
    { path: ['password'], message: 'the password must be at least 8 characters long (this one has 5)' },
  ]);
  assert.deepEqual(
    await (await fetch(`${server.url}/api/v1/setup`)).json(),
    { needs_setup: true },
    'still no password',
  );

  // Typed by hand: lower case and without the dash is the same code.
  const done = await post(server.url, { code: code.toLowerCase().replace('-', ''), password: NEW_PASSWORD });
  assert.equal(done.status, 201);
  const token = (await done.json()) as Record<string, string | boolean | null>;
  assert.deepEqual(Object.keys(token).sort(), CREATED_TOKEN_FIELDS);
  assert.equal(token.scope, 'admin', 'the page manages tokens, plugins and settings');
  assert.match(String(token.name), /^Settings page \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
  assert.equal(token.expires_at, null);
  assert.equal(token.idle_expiry, true, 'a sign-in token: it expires when left unused');

  assert.equal((await server.api('/api/v1/metrics', { auth: `Bearer ${token.token}` })).status, 200, 'the token works');
  assert.equal(
    (await server.api('/api/v1/metrics', { auth: basicAuth(NEW_PASSWORD) })).status,
    200,
    'so does the password',
  );
  assert.deepEqual(await (await fetch(`${server.url}/api/v1/setup`)).json(), { needs_setup: false });
  assert.equal(server.setupCode.value, undefined, 'the code is spent');

  const again = await post(server.url, { code, password: 'another long password' });
  assert.equal(again.status, 409);
  assert.match(((await again.json()) as { error: string }).error, /a password is already set: sign in with it/);

  const audit = (await (await server.api('/api/v1/audit', { auth: `Bearer ${token.token}` })).json()) as Array<
    Record<string, unknown>
  >;
  assert.deepEqual(audit.map((a) => [a.who, a.via, a.topic, a.new_value]).reverse(), [
    ['admin', 'rest', 'auth/password', '***'],
    ['admin', 'rest', `tokens/${token.name}`, 'created'],
  ]);
});

test('a wrong setup code counts as a failed login: the sixth try in a row is throttled with 429', async () => {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const server = await startTestServer({ plugins: [], password: null, clock });
  for (let i = 1; i <= 5; i++)
    assert.equal((await post(server.url, { code: 'AAAA-AAAA', password: NEW_PASSWORD })).status, 401, `try ${i}`);
  const throttled = await post(server.url, { code: server.setupCode.value, password: NEW_PASSWORD });
  assert.equal(throttled.status, 429, 'even the right code waits out the back-off');
  assert.equal(throttled.headers.get('retry-after'), '1');
  assert.match(
    ((await throttled.json()) as { error: string }).error,
    /too many failed attempts from this address: try again in 1 s/,
  );
  clock.advance(1000);
  assert.equal((await post(server.url, { code: server.setupCode.value, password: NEW_PASSWORD })).status, 201);
});

test('with a password set there is no setup code', async () => {
  const server = await startTestServer({ plugins: [] });
  assert.equal(server.setupCode.value, undefined);
  assert.deepEqual(await (await fetch(`${server.url}/api/v1/setup`)).json(), { needs_setup: false });
  assert.equal((await post(server.url, { code: 'AAAA-AAAA', password: NEW_PASSWORD })).status, 409);
});

/** `heliograph serve` in a child process on `dir`'s data, with no password set by the environment. */
async function serve(dir: string) {
  const server = await startChildServer({ plugins: [], password: null, dir });
  // The code is logged at warn (the child server's level), so installs that log only warnings still show it.
  const code = () =>
    server.waitFor(/setup code: ([A-Z0-9]{4}-[A-Z0-9]{4})/, 'a line "setup code: XXXX-XXXX" in the log');
  return { server, url: server.url, code: async () => (await code())[1]! };
}

test('the service prints a new setup code at each start until a password is set, then none', async () => {
  const dir = tempDir();
  const first = await serve(dir);
  const firstCode = await first.code();
  await first.server.stop();

  const second = await serve(dir);
  const url = second.url;
  const secondCode = await second.code();
  assert.notEqual(secondCode, firstCode, 'a new code at each start');
  assert.equal(
    (await post(url, { code: firstCode, password: NEW_PASSWORD })).status,
    401,
    "an earlier start's code is void",
  );
  assert.equal((await post(url, { code: secondCode, password: NEW_PASSWORD })).status, 201);
  await second.server.stop();

  const third = await serve(dir);
  await third.server.stop();
  assert.doesNotMatch(third.server.output(), /setup code/, 'none once a password exists');
});
