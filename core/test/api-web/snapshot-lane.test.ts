// The snapshot's fast lane decides by itself who is answered before koa: only credentials the
// authenticator already vouched for, password or token, and never a token revoked or expired
// since. Driven with the real AuthService, registry and Host policy; `lane()` returning false
// means the request goes on to koa, which checks it in full.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { snapshotLane } from '../../src/api/metrics/snapshot-lane.js';
import { HostPolicy } from '../../src/api/host-policy.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import { PASSWORD, startAuth } from '../auth/support.js';
import { basicAuth } from '../helpers/basic-auth.js';

const IP = '192.168.1.30';

interface Answered {
  taken: boolean;
  status?: number;
  body?: Buffer;
}

async function fixture(t: { after(fn: () => Promise<void>): void }) {
  const fx = await startAuth();
  t.after(fx.close);
  await fx.auth.setPassword(PASSWORD);
  const lane = snapshotLane({ registry: new TopicRegistry(fx.clock), auth: fx.auth, hosts: new HostPolicy() });
  const get = (authorization: string, url = '/api/v1/metrics'): Answered => {
    const req = {
      method: 'GET',
      url,
      headers: { authorization, host: 'localhost:8080' },
      socket: { remoteAddress: IP },
    };
    const answered: Answered = { taken: false };
    const res = {
      writeHead(status: number) {
        answered.status = status;
        return this;
      },
      end(body: Buffer) {
        answered.body = body;
      },
    };
    answered.taken = lane(req as unknown as IncomingMessage, res as unknown as ServerResponse, () =>
      assert.fail('the snapshot lane hands nothing it took to koa'),
    );
    return answered;
  };
  return { ...fx, get };
}

test('a token the service checked once is answered on the lane, like the remembered password', async (t) => {
  const fx = await fixture(t);
  const { token } = await fx.auth.createToken({ name: 'hass', scope: 'read' });
  const bearer = `Bearer ${token}`;
  assert.equal(fx.get(bearer).taken, false, 'before any full check the token is not known: koa checks it');
  assert.equal((await fx.auth.authenticate({ kind: 'token', secret: token }, IP)).ok, true);
  const answered = fx.get(bearer);
  assert.equal(answered.taken, true, 'known now');
  assert.equal(answered.status, 200);
  assert.deepEqual(JSON.parse(answered.body!.toString('utf8')), []);
  assert.equal(fx.get(bearer, '/api/v1/metrics?topic=total/*').taken, false, 'a query goes to koa');
  assert.equal(fx.get(`Bearer ${token.slice(0, -1)}x`).taken, false, 'another token is not known');

  const basic = basicAuth(PASSWORD);
  assert.equal((await fx.auth.authenticate({ kind: 'password', secret: PASSWORD }, IP)).ok, true);
  assert.equal(fx.get(basic).taken, true, 'the remembered password still is');
});

test('a revoked token leaves the lane at once', async (t) => {
  const fx = await fixture(t);
  const created = await fx.auth.createToken({ name: 'dashboard', scope: 'read' });
  await fx.auth.authenticate({ kind: 'token', secret: created.token }, IP);
  assert.equal(fx.get(`Bearer ${created.token}`).taken, true);
  assert.equal(await fx.auth.revokeToken(created.id), true);
  assert.equal(fx.get(`Bearer ${created.token}`).taken, false, 'revoked: koa refuses it with 401');
  assert.equal((await fx.auth.authenticate({ kind: 'token', secret: created.token }, IP)).ok, false);
});

test('an expired token leaves the lane the moment it expires', async (t) => {
  const fx = await fixture(t);
  const created = await fx.auth.createToken({
    name: 'for a minute',
    scope: 'read',
    expiresAt: fx.clock.now() + 60_000,
  });
  await fx.auth.authenticate({ kind: 'token', secret: created.token }, IP);
  fx.clock.advance(59_999);
  assert.equal(fx.get(`Bearer ${created.token}`).taken, true, 'valid a millisecond before');
  fx.clock.advance(1);
  assert.equal(fx.get(`Bearer ${created.token}`).taken, false, 'expired: koa refuses it with the expiry');
});

test("an idle-expiring token (a sign-in's) leaves the lane once a minute so its use is recorded, and for good once idle", async (t) => {
  const fx = await fixture(t);
  const created = await fx.auth.createToken({ name: 'page', scope: 'admin', idleExpiry: true });
  const secret = { kind: 'token' as const, secret: created.token };
  assert.equal((await fx.auth.authenticate(secret, IP)).ok, true);
  fx.clock.advance(59_000);
  assert.equal(fx.get(`Bearer ${created.token}`).taken, true, 'used within the minute: known');
  fx.clock.advance(1_000);
  assert.equal(fx.get(`Bearer ${created.token}`).taken, false, 'a minute on, the full check records the use');
  assert.equal((await fx.auth.authenticate(secret, IP)).ok, true);
  assert.equal(fx.get(`Bearer ${created.token}`).taken, true, 'recorded: known again');
  fx.clock.advance(31 * 86_400_000);
  assert.equal(fx.get(`Bearer ${created.token}`).taken, false, 'idle past its time: not known');
  assert.equal((await fx.auth.authenticate(secret, IP)).ok, false, 'and refused by the full check');
});
