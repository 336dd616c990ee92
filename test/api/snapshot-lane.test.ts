// The snapshot's fast lane (core/src/api/metrics/snapshot-lane.ts) answers plain GET /api/v1/metrics
// before koa: its answer must be koa's, byte for byte and header for header, and everything
// it does not take (other credentials, refusals) must still get koa's answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basicAuth, jsonBody, PASSWORD, startTestServer } from '../helpers/server.js';

const server = await startTestServer({
  fixtures: ['echo'],
  plugins: [{ id: 'inv', plugin: 'echo', devices: ['inverter_1', 'inverter_2'], config: { pv_power: 1000 } }],
});

/** Status, headers (without the date) and body bytes of a GET. */
async function answer(path: string, auth?: string | null) {
  const res = await server.api(path, auth === undefined ? {} : { auth });
  const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'date'));
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}

test('the lane answers exactly what the koa route answers', async () => {
  // `?discovery=0` asks for the same snapshot through koa; a value that changes between the
  // two requests (a tick in between) is retried rather than compared.
  for (let attempt = 0; ; attempt++) {
    const lane = await answer('/api/v1/metrics');
    const koa = await answer('/api/v1/metrics?discovery=0');
    const again = await answer('/api/v1/metrics');
    if (!lane.body.equals(again.body) && attempt < 5) continue;
    assert.equal(lane.status, 200);
    assert.deepEqual(lane.headers, koa.headers);
    assert.ok(lane.body.equals(koa.body), 'same bytes');
    assert.ok(Array.isArray(JSON.parse(lane.body.toString('utf8'))));
    break;
  }
});

test('refusals get the API answers (wrong password, no credentials); a read token gets what the password gets', async () => {
  const wrong = await answer('/api/v1/metrics', basicAuth('not the password'));
  assert.equal(wrong.status, 401);
  assert.match(wrong.headers['www-authenticate'] ?? '', /^Bearer realm=/);
  assert.equal(wrong.headers['x-content-type-options'], 'nosniff');
  assert.equal((await answer('/api/v1/metrics', null)).status, 401);

  const created = await server.api('/api/v1/tokens', jsonBody({ name: 'lane-reader', scope: 'read' }));
  const { token } = (await created.json()) as { token: string };
  const byToken = await answer('/api/v1/metrics', `Bearer ${token}`);
  const byPassword = await answer('/api/v1/metrics', basicAuth(PASSWORD));
  assert.equal(byToken.status, 200);
  assert.deepEqual(byToken.headers, byPassword.headers);
});

test('a foreign Origin or Host is refused on the lane path as everywhere', async () => {
  const origin = await server.api('/api/v1/metrics', { headers: { origin: 'http://evil.example' } });
  assert.equal(origin.status, 403);
  assert.match(((await origin.json()) as { error: string }).error, /evil\.example/);
});
