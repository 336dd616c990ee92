// The history fast lane (core/src/api/history/lane.ts) answers GET /api/v1/history before koa
// for clients the service already knows: its answer must be koa's, byte for byte and header
// for header, and everything it does not take (refusals, a revoked token) must still get
// koa's answers. koa's own answer to the same request comes from a spelling of the path the
// lane leaves to it (the router matches paths case-insensitively: /API/V1/history).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ManualClock } from '@heliograph/core/clock';
import { HistoryStore, openDatabase } from '@heliograph/core/testing';
import { topicMeta } from '@heliograph/core/test/helpers/topics';
import { basicAuth, jsonBody, PASSWORD, startTestServer } from '../helpers/server.js';

const NOW = Date.parse('2026-03-10T12:34:56Z');
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** Three days of 10-s readings of a live topic and of one whose plugin is gone, written before the start. */
async function writeHistory(dataDir: string): Promise<void> {
  const db = await openDatabase(join(dataDir, 'heliograph.db'));
  const config = { retentionDays: 3650, diskBudgetMb: 2048, flushIntervalMs: 5000 };
  const store = await HistoryStore.open({ db, clock: new ManualClock(NOW), config, autoFlush: false });
  const pv: Array<[number, number]> = [];
  const temperature: Array<[number, number]> = [];
  for (let t = NOW - 3 * DAY; t < NOW - 60_000; t += 10_000) {
    pv.push([t, Math.round(Math.max(0, Math.sin((t / DAY) * 2 * Math.PI)) * 5000 * 10) / 10]);
    temperature.push([t, 20 + ((t / 10_000) % 97) / 8]);
  }
  await store.recordPast(topicMeta('inverter_1/pv_power', { name: 'pv_power', unit: 'W' }), pv);
  await store.recordPast(topicMeta('inverter_9/temperature', { name: 'Temperature', unit: '°C' }), temperature);
  await store.close();
  await db.close();
}

const server = await startTestServer({
  fixtures: ['echo'],
  plugins: [{ id: 'inv', plugin: 'echo', devices: ['inverter_1'], config: { pv_power: 1000 } }],
  clock: new ManualClock(NOW),
  prepare: writeHistory,
});

/** Status, headers (without the date) and body bytes of a GET, by plain fetch. */
async function answer(path: string, authorization: string) {
  const res = await fetch(server.url + path, { headers: { authorization } });
  const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'date'));
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** The lane's answer and koa's to the same query; the lane's is asked twice (a new token is checked by koa first). */
async function both(query: string, authorization: string) {
  await answer(`/api/v1/history?${query}`, authorization);
  const lane = await answer(`/api/v1/history?${query}`, authorization);
  const koa = await answer(`/API/V1/history?${query}`, authorization);
  return { lane, koa };
}

const QUERIES = [
  `topic=inverter_1/pv_power&from=${iso(NOW - DAY)}&to=${iso(NOW)}&group_by=10s`,
  `topic=inverter_1/pv_power&from=${iso(NOW - 3 * DAY)}&to=${iso(NOW)}&group_by=1h&agg=max`,
  `topic=inverter_1/pv_power&from=${iso(NOW - 2 * DAY + 5000)}&to=${iso(NOW - DAY)}&group_by=90s&agg=sum`,
  'topic=inverter_1/pv_power&group_by=1m&agg=last',
  'topic=inverter_1/pv_power',
  `topic=inverter_9/temperature&from=${iso(NOW - 3 * DAY)}&to=${iso(NOW)}&group_by=15m&agg=min`,
  `topic=inverter_9/temperature&from=${iso(NOW - 3 * DAY)}&to=${iso(NOW)}&group_by=1d`,
  `topic=total/pv_power&from=${iso(NOW - DAY)}&group_by=5m`,
  `topic=inverter_1%2Fpv_power&from=${encodeURIComponent(iso(NOW - DAY))}&group_by=10m`,
];

test('the lane answers exactly what the koa route answers, for a token and for the password', async () => {
  const created = await server.api('/api/v1/tokens', jsonBody({ name: 'chart', scope: 'read' }));
  const { token } = (await created.json()) as { token: string };
  for (const authorization of [`Bearer ${token}`, basicAuth(PASSWORD)]) {
    for (const query of QUERIES) {
      const { lane, koa } = await both(query, authorization);
      assert.equal(lane.status, 200, `${query}: ${lane.body.toString('utf8')}`);
      assert.deepEqual(lane.headers, koa.headers, query);
      assert.ok(lane.body.equals(koa.body), `${query}: same bytes`);
      const page = JSON.parse(lane.body.toString('utf8')) as { points: unknown[]; next?: string };
      // A full page of 2 000 buckets, less the first one's cut-off part before `from`.
      if (query.includes('10s'))
        assert.ok(page.points.length === 1999 && page.next, `a full page: ${page.points.length}`);
    }
  }
});

test('refusals are the route answers, and a revoked token is refused at once', async () => {
  const created = await server.api('/api/v1/tokens', jsonBody({ name: 'revoked soon', scope: 'read' }));
  const { token, id } = (await created.json()) as { token: string; id: string };
  const bearer = `Bearer ${token}`;
  const ok = `topic=inverter_1/pv_power&from=${iso(NOW - DAY)}&group_by=1h`;
  for (const query of [
    `${ok}&limit=3`,
    `${ok}&topic=total/load_power`,
    `${ok}&agg=median`,
    'topic=inverter_1/pv_power&group_by=15s',
    'topic=inverter_1/*',
    'topic=inverter_1/device_mode',
    'topic=inverter_4/pv_power',
    `topic=inverter_1/pv_power&from=${iso(NOW)}&to=${iso(NOW - DAY)}`,
    'topic=inverter_1/pv_power&to=yesterday',
    '',
  ]) {
    const { lane, koa } = await both(query, bearer);
    assert.ok(lane.status >= 400, `${query} is refused: ${lane.status}`);
    assert.equal(lane.status, koa.status, query);
    assert.deepEqual(lane.headers, koa.headers, query);
    assert.ok(lane.body.equals(koa.body), `${query}: ${lane.body.toString('utf8')}`);
  }
  assert.equal((await both(ok, bearer)).lane.status, 200);
  assert.equal((await server.api(`/api/v1/tokens/${id}`, { method: 'DELETE' })).status, 204);
  const after = await answer(`/api/v1/history?${ok}`, bearer);
  assert.equal(after.status, 401, 'the next request after the revocation');
  assert.match(after.headers['www-authenticate'] ?? '', /^Bearer realm=/);
  assert.equal(after.headers['x-content-type-options'], 'nosniff');
  const origin = await fetch(`${server.url}/api/v1/history?${ok}`, {
    headers: { authorization: basicAuth(PASSWORD), origin: 'http://evil.example' },
  });
  assert.equal(origin.status, 403);
});
