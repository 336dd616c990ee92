// Request hardening of the whole service: content types, security headers, strict queries,
// Host and Origin checks (REST and the stream's upgrade), and token scopes end to end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ErrorResponse } from '@heliograph/core/api-types';
import { basicAuth, jsonBody, PASSWORD, startTestServer } from '../helpers/server.js';
import { closed, openSocket, rawRequest } from '../helpers/raw-http.js';

const server = await startTestServer({
  bundled: ['simulator'],
  plugins: [
    { id: 'sim', plugin: 'simulator', devices: ['inverter_1'], config: { demoForecast: false, demoPrices: false } },
  ],
  config: { security: { allowedHosts: ['solar.example.net'], allowedOrigins: ['https://dashboard.example.net'] } },
});
const wsUrl = server.url.replace('http', 'ws') + '/api/websocket';

async function createToken(name: string, scope?: string): Promise<{ id: string; token: string }> {
  const res = await server.api('/api/v1/tokens', jsonBody(scope ? { name, scope } : { name }));
  assert.equal(res.status, 201);
  return (await res.json()) as { id: string; token: string };
}

test('writes take JSON only: text/plain, form and multipart bodies answer 415', async () => {
  for (const [type, body] of [
    ['text/plain', '{"topic":"inverter_1/max_charge_current","value":"30"}'],
    ['application/x-www-form-urlencoded', 'topic=inverter_1/max_charge_current&value=30'],
    [
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="topic"\r\n\r\ninverter_1/x\r\n--x--\r\n',
    ],
  ]) {
    const res = await server.api('/api/v1/metrics', { method: 'POST', headers: { 'content-type': type! }, body });
    assert.equal(res.status, 415, type);
    assert.match(((await res.json()) as { error: string }).error, /Content-Type: application\/json/);
  }
  // The setup route reads its body before any credentials exist: it takes JSON only as well.
  const setup = await server.api('/api/v1/setup', {
    method: 'POST',
    auth: null,
    headers: { 'content-type': 'text/plain' },
    body: '{"code":"ABCD-EFGH","password":"a-long-password"}',
  });
  assert.equal(setup.status, 415, 'POST /api/v1/setup with text/plain');
  const json = await server.api('/api/v1/tokens', jsonBody({ name: 'json-ok' }));
  assert.equal(json.status, 201);
  const { id } = (await json.json()) as { id: string };
  assert.equal(
    (await server.api(`/api/v1/tokens/${id}`, { method: 'DELETE' })).status,
    204,
    'a DELETE without a body needs no content type',
  );
});

test('every answer says nosniff; the page forbids framing; token creation is not cached', async () => {
  for (const [path, auth] of [
    ['/api/v1/metrics', undefined],
    ['/api/v1/metrics', null],
    ['/api/v1/nope', undefined],
    ['/', null],
  ] as const) {
    const res = await server.api(path, { auth });
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${path} ${res.status}`);
  }
  const page = await server.api('/', { auth: null });
  if (page.status === 200) {
    assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
  }
  const created = await server.api('/api/v1/tokens', jsonBody({ name: 'no-store' }));
  assert.equal(created.headers.get('cache-control'), 'no-store');
});

test('query parameters: unknown keys and repeated keys answer 400 naming them', async () => {
  const typo = await server.api('/api/v1/metrics?topc=total/*');
  assert.equal(typo.status, 400);
  assert.match(
    ((await typo.json()) as { error: string }).error,
    /unknown query parameter "topc": known parameters: topic, value, discovery/,
  );
  const plugins = await server.api('/api/v1/plugins?x=1');
  assert.match(((await plugins.json()) as { error: string }).error, /"x": this endpoint takes no query parameters/);
  const grid = await server.api('/api/v1/grid?x=1');
  assert.match(((await grid.json()) as { error: string }).error, /"x": known parameters: from, to/);
  const repeated = await server.api('/api/v1/metrics?topic=a&topic=b');
  assert.equal(repeated.status, 400);
  assert.match(((await repeated.json()) as { error: string }).error, /topic is given more than once/);
  assert.equal((await server.api('/api/v1/metrics?discovery')).status, 200, 'discovery is a known key');
  const long = await server.api(`/api/v1/metrics?topic=${'*'.repeat(300)}`);
  assert.equal(long.status, 400);
  const glob = await server.api(`/api/v1/metrics?topic=${'*'.repeat(200)}X`);
  assert.equal(glob.status, 200, 'a pathological glob answers at once');
  assert.deepEqual(await glob.json(), []);
});

test('Host: IP literals, localhost, .local and configured names are answered, other names 421', async () => {
  const port = new URL(server.url).port;
  const auth = basicAuth(PASSWORD);
  for (const host of [
    `127.0.0.1:${port}`,
    `localhost:${port}`,
    `heliograph.local:${port}`,
    `[::1]:${port}`,
    'solar.example.net',
    'SOLAR.example.net.',
  ]) {
    const res = await rawRequest(`${server.url}/api/v1/metrics`, { headers: { host, authorization: auth } });
    assert.equal(res.status, 200, host);
  }
  for (const host of [`evil.example:${port}`, 'example.net', 'local', 'x.local.evil.example']) {
    const res = await rawRequest(`${server.url}/api/v1/metrics`, { headers: { host, authorization: auth } });
    assert.equal(res.status, 421, host);
    assert.match((JSON.parse(res.body) as ErrorResponse).error, /is not a name of this device.*security\.allowedHosts/);
    const upgrade = await openSocket(`${wsUrl}?password=${encodeURIComponent(PASSWORD)}`, { host });
    assert.ok('status' in upgrade && upgrade.status === 421, `upgrade with Host ${host}`);
  }
});

test("Origin: the page's own and configured origins pass; another page is refused before its password counts", async () => {
  const own = new URL(server.url).origin;
  const auth = basicAuth(PASSWORD);
  assert.equal(
    (await rawRequest(`${server.url}/api/v1/metrics`, { headers: { origin: own, authorization: auth } })).status,
    200,
  );
  assert.equal(
    (
      await rawRequest(`${server.url}/api/v1/metrics`, {
        headers: { origin: 'https://dashboard.example.net', authorization: auth },
      })
    ).status,
    200,
  );
  const rest = await rawRequest(`${server.url}/api/v1/metrics`, {
    headers: { origin: 'http://evil.example', authorization: auth },
  });
  assert.equal(rest.status, 403);
  assert.match((JSON.parse(rest.body) as ErrorResponse).error, /web page at http:\/\/evil\.example are refused/);

  for (let i = 0; i < 10; i++) {
    const refused = await openSocket(`${wsUrl}?password=guess${i}`, { origin: 'http://evil.example' });
    assert.ok('status' in refused && refused.status === 403);
  }
  const ok = await openSocket(`${wsUrl}?password=${encodeURIComponent(PASSWORD)}`, { origin: own });
  assert.ok('ws' in ok, 'the guesses from another page did not throttle the address');
  ok.ws.close();
});

test('any Basic user name works; a throttled address keeps its token clients, REST and WebSocket', async () => {
  const local = await startTestServer({ plugins: [] });
  for (const user of ['solar-assistant', 'admin', 'anything']) {
    assert.equal((await local.api('/api/v1/metrics', { auth: basicAuth(PASSWORD, user) })).status, 200, user);
  }
  const localWs = local.url.replace('http', 'ws') + '/api/websocket';
  const basicSocket = await openSocket(localWs, { authorization: basicAuth(PASSWORD, 'solar-assistant') });
  assert.ok('ws' in basicSocket, 'the stream takes Basic with any user name too');
  basicSocket.ws.close();
  const created = await local.api('/api/v1/tokens', jsonBody({ name: 'home-assistant' }));
  const { token } = (await created.json()) as { token: string };
  for (let i = 0; i < 5; i++)
    assert.equal((await local.api('/api/v1/metrics', { auth: basicAuth(`wrong ${i}`) })).status, 401);
  assert.equal((await local.api('/api/v1/metrics')).status, 429, 'the password is throttled');
  const refused = await openSocket(`${localWs}?password=${encodeURIComponent(PASSWORD)}`);
  assert.ok('status' in refused && refused.status === 429);
  assert.equal(
    (await local.api('/api/v1/metrics', { auth: `Bearer ${token}` })).status,
    200,
    'the token still works on REST',
  );
  const socket = await openSocket(`${localWs}?token=${token}`);
  assert.ok('ws' in socket, 'and on the stream');
  socket.ws.close();
});

test('scopes end to end: read token reads, cannot write or manage; revoking a token closes its sockets with 4001', async () => {
  const reader = await createToken('reader', 'read');
  const read = (path: string, init: RequestInit = {}) => server.api(path, { ...init, auth: `Bearer ${reader.token}` });
  assert.equal((await read('/api/v1/metrics')).status, 200);
  const write = await read('/api/v1/metrics', jsonBody({ topic: 'inverter_1/max_charge_current', value: '30' }));
  assert.equal(write.status, 403);
  assert.match(
    ((await write.json()) as { error: string }).error,
    /has scope read, but POST \/api\/v1\/metrics needs scope write/,
  );
  assert.equal((await read('/api/v1/tokens')).status, 403);

  const opened = await openSocket(`${wsUrl}?token=${reader.token}&vsn=2.0.0`);
  assert.ok('ws' in opened);
  const closing = closed(opened.ws);
  assert.equal((await server.api(`/api/v1/tokens/${reader.id}`, { method: 'DELETE' })).status, 204);
  assert.deepEqual(await closing, { code: 4001, reason: 'token revoked' });
  assert.equal((await read('/api/v1/metrics')).status, 401);
});
