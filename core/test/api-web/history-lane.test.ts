// The history fast lane (api/history/lane.ts) decides by itself which requests it answers
// before koa: only credentials the authenticator already vouched for, never a token revoked
// or expired since, and only a query the route itself would answer. Driven with the real
// AuthService, history store, registry and Host policy; `taken` false means the request goes
// on to koa, which checks it in full; a read that fails after the lane took the request is
// handed to koa as it came.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { historyLane } from '../../src/api/history/lane.js';
import { HostPolicy } from '../../src/api/host-policy.js';
import type { HistoryResponse } from '../../src/contract/types.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import { PASSWORD, startAuth } from '../auth/support.js';
import { basicAuth } from '../helpers/basic-auth.js';
import { within } from '../helpers/deadline.js';
import { meta, openStore, tempDbFile } from '../history/support.js';

const IP = '192.168.1.30';
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

interface Asked {
  taken: boolean;
  /** Settles once the lane answered, or handed the request to koa. */
  done(): Promise<{ by: 'lane' | 'koa'; status?: number; headers?: Record<string, unknown>; body?: Buffer }>;
}

async function fixture(t: { after(fn: () => Promise<void>): void }) {
  const fx = await startAuth();
  t.after(fx.close);
  await fx.auth.setPassword(PASSWORD);
  const opened = await openStore(tempDbFile(), fx.clock);
  t.after(() => opened.close());
  const now = fx.clock.now();
  const start = now - (now % HOUR) - 6 * HOUR;
  const readings: Array<[number, number]> = [];
  for (let t = start; t < start + 3 * HOUR; t += 10_000) readings.push([t, (t / 10_000) % 977]);
  await opened.store.recordPast(meta('total/pv_power'), readings);
  const registry = new TopicRegistry(fx.clock);
  registry.define(meta('total/pv_power'));
  const lane = historyLane({ registry, store: opened.store, clock: fx.clock, auth: fx.auth, hosts: new HostPolicy() });
  const ask = (authorization: string, url: string, headers: Record<string, string> = {}, method = 'GET'): Asked => {
    const req = {
      method,
      url,
      headers: { authorization, host: 'localhost:8080', ...headers },
      socket: { remoteAddress: IP },
    };
    let settle!: (v: Awaited<ReturnType<Asked['done']>>) => void;
    const done = new Promise<Awaited<ReturnType<Asked['done']>>>((resolve) => (settle = resolve));
    let status: number | undefined;
    let sent: Record<string, unknown> | undefined;
    const res = {
      writeHead(code: number, h: Record<string, unknown>) {
        status = code;
        sent = h;
        return this;
      },
      end(body: Buffer) {
        settle({ by: 'lane', status, headers: sent, body });
      },
    };
    const taken = lane(req as unknown as IncomingMessage, res as unknown as ServerResponse, (r, s) => {
      assert.equal(r, req, 'koa gets the request as it came');
      assert.equal(s, res);
      settle({ by: 'koa' });
      return Promise.resolve();
    });
    return { taken, done: () => within(done, `the lane's answer to ${url}`) };
  };
  const query = `topic=total/pv_power&from=${iso(start)}&to=${iso(start + 3 * HOUR)}&group_by=1h&agg=max`;
  const maxOfHour = (h: number) =>
    Math.max(...readings.filter(([t]) => t >= start + h * HOUR && t < start + (h + 1) * HOUR).map(([, v]) => v));
  return { ...fx, opened, ask, start, query, maxOfHour };
}

test('a known client gets the page on the lane, with the route headers', async (t) => {
  const fx = await fixture(t);
  const { token } = await fx.auth.createToken({ name: 'hass', scope: 'read' });
  const bearer = `Bearer ${token}`;
  assert.equal(fx.ask(bearer, `/api/v1/history?${fx.query}`).taken, false, 'not yet checked: koa checks it');
  assert.equal((await fx.auth.authenticate({ kind: 'token', secret: token }, IP)).ok, true);
  const asked = fx.ask(bearer, `/api/v1/history?${fx.query}`);
  assert.equal(asked.taken, true);
  const answer = await asked.done();
  assert.equal(answer.by, 'lane');
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.headers, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': answer.body!.length,
    'X-Content-Type-Options': 'nosniff',
    // As koa-compress sets it on every answer of the app: the answer depends on Accept-Encoding.
    Vary: 'Accept-Encoding',
  });
  const page = JSON.parse(answer.body!.toString('utf8')) as HistoryResponse;
  assert.deepEqual(
    page.points,
    [0, 1, 2].map((h) => [iso(fx.start + h * HOUR), fx.maxOfHour(h)]),
  );

  assert.equal((await fx.auth.authenticate({ kind: 'password', secret: PASSWORD }, IP)).ok, true);
  assert.equal(fx.ask(basicAuth(PASSWORD), `/api/v1/history?${fx.query}`).taken, true, 'the remembered password');
  assert.equal(fx.ask(`Bearer ${token.slice(0, -1)}x`, `/api/v1/history?${fx.query}`).taken, false);
});

test('a revoked token leaves the lane at once, an expired one the moment it expires', async (t) => {
  const fx = await fixture(t);
  const url = `/api/v1/history?${fx.query}`;
  const revoked = await fx.auth.createToken({ name: 'dashboard', scope: 'read' });
  await fx.auth.authenticate({ kind: 'token', secret: revoked.token }, IP);
  assert.equal(fx.ask(`Bearer ${revoked.token}`, url).taken, true);
  assert.equal(await fx.auth.revokeToken(revoked.id), true);
  assert.equal(fx.ask(`Bearer ${revoked.token}`, url).taken, false, 'revoked: koa refuses it with 401');

  const expiring = await fx.auth.createToken({ name: 'minute', scope: 'read', expiresAt: fx.clock.now() + 60_000 });
  await fx.auth.authenticate({ kind: 'token', secret: expiring.token }, IP);
  fx.clock.advance(59_999);
  assert.equal(fx.ask(`Bearer ${expiring.token}`, url).taken, true, 'valid a millisecond before');
  fx.clock.advance(1);
  assert.equal(fx.ask(`Bearer ${expiring.token}`, url).taken, false, 'expired: koa refuses it');
});

test('everything the route would refuse or read differently is left to koa', async (t) => {
  const fx = await fixture(t);
  await fx.auth.authenticate({ kind: 'password', secret: PASSWORD }, IP);
  const basic = basicAuth(PASSWORD);
  const left = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
    assert.equal(fx.ask(basic, url, headers, method).taken, false, `${method} ${url} ${JSON.stringify(headers)}`);
  left(`/api/v1/history?${fx.query}&topic=total/pv_power`); // repeated
  left(`/api/v1/history?${fx.query}&limit=5`); // unknown parameter
  left(`/api/v1/history?${fx.query.replace('1h', '7s')}`); // group_by the route refuses
  left(`/api/v1/history?${fx.query.replace('max', 'median')}`);
  left(`/api/v1/history?${fx.query.replace('total/pv_power', 'total/*')}`); // a glob
  left(`/api/v1/history?${fx.query.replace('total/pv_power', 'inverter_4/pv_power')}`); // unknown: 404
  left(`/api/v1/history?topic=total/pv_power&from=${iso(fx.start)}&to=${iso(fx.start)}`); // empty range
  left(`/api/v1/history?topic=total/pv_power&from=2026-02-31T00:00:00Z`); // no such day
  left(`/api/v1/history?${fx.query}#x`); // what parseurl reads another way
  left('/api/v1/history?');
  left(`/api/v1/history/?${fx.query}`);
  left(`/API/V1/history?${fx.query}`);
  left(`/api/v1/history?${fx.query}`, {}, 'HEAD');
  left(`/api/v1/history?${fx.query}`, { host: 'evil.example' });
  left(`/api/v1/history?${fx.query}`, { origin: 'http://evil.example' });
  assert.equal(fx.ask(basic, `/api/v1/history?${fx.query}`).taken, true, 'and the request itself is taken');
});

test('a read that fails after the lane took the request is handed to koa', async (t) => {
  const fx = await fixture(t);
  await fx.auth.authenticate({ kind: 'password', secret: PASSWORD }, IP);
  // A store that knows the topic's rows but must read them from a database that is gone.
  await fx.opened.store.close();
  const reopened = await openStore(fx.opened.file, fx.clock);
  const lane = historyLane({
    registry: new TopicRegistry(fx.clock),
    store: reopened.store,
    clock: fx.clock,
    auth: fx.auth,
    hosts: new HostPolicy(),
  });
  await reopened.db.close();
  let handed = false;
  const req = {
    method: 'GET',
    url: `/api/v1/history?${fx.query}`,
    headers: { authorization: basicAuth(PASSWORD), host: 'localhost' },
    socket: { remoteAddress: IP },
  };
  const res = { writeHead: () => assert.fail('the lane answered'), end: () => assert.fail('the lane answered') };
  const koa = new Promise<void>((resolve) => {
    const taken = lane(req as unknown as IncomingMessage, res as unknown as ServerResponse, () => {
      handed = true;
      resolve();
      return Promise.resolve();
    });
    assert.equal(taken, true);
  });
  await within(koa, 'the failed read handed to koa');
  assert.equal(handed, true);
});
