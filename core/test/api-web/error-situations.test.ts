// Two error codes whose situation the whole service cannot be brought into by one test
// client (test/api/error-codes.test.ts makes the others happen): a registry without any
// metric (the service always has its totals), and password checks shed because every
// scrypt slot is taken (checks from one address run one at a time, so two addresses).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Router from '@koa/router';
import { createApp, listen } from '../../src/api/app.js';
import { scope } from '../../src/api/auth.js';
import { AuthService } from '../../src/auth/service.js';
import { ManualClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db.js';
import { tempDir } from '../helpers/tmp.js';
import { PASSWORD } from './harness.js';
import { metricsRoutes } from '../../src/api/metrics/route.js';
import { DbWriter } from '../../src/db-writer.js';
import { migrate } from '../../src/db.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import { AuditLog, auditMigrations } from '../../src/writes/audit.js';
import { WriteService } from '../../src/writes/service.js';

test('value=1 before any metric is declared answers 404 NO_METRICS', async (t) => {
  // The metrics route over a registry nothing has declared into (the service itself always
  // has its totals), behind the real auth.
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const db = await openDatabase(join(tempDir(), 'metrics.db'));
  t.after(() => db.close());
  await migrate(db, auditMigrations);
  const auth = await AuthService.create(db, clock, { maxFailedLogins: 1000, failedLoginWindowMs: 60_000 });
  await auth.setPassword(PASSWORD);
  const registry = new TopicRegistry(clock);
  const writes = new WriteService(registry, new AuditLog(db, clock, new DbWriter(() => clock.now())), clock);
  const app = createApp({ auth, realm: 'Heliograph', routers: [metricsRoutes({ registry, writes })] });
  const server = await listen(app, '127.0.0.1', 0);
  t.after(() => server.close());
  const res = await fetch(`${server.url}/api/v1/metrics?value=1`, {
    headers: { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` },
  });
  assert.equal(res.status, 404);
  const body = (await res.json()) as { error: string; code: string };
  assert.match(body.error, /^no metrics yet: no plugin has declared any/);
  assert.equal(body.code, 'NO_METRICS');
});

test('a password check beyond the scrypt slots answers 503 AUTH_BUSY with Retry-After', async (t) => {
  const db = await openDatabase(join(tempDir(), 'auth.db'));
  t.after(() => db.close());
  // One check at a time and none waiting: a second address checking at once is refused.
  const auth = await AuthService.create(db, new ManualClock(Date.parse('2026-11-22T10:00:00Z')), {
    maxFailedLogins: 1000,
    failedLoginWindowMs: 60_000,
    maxConcurrentHashes: 1,
    maxWaitingHashes: 0,
  });
  await auth.setPassword(PASSWORD);
  const router = new Router();
  router.get('/ping', scope('read'), (ctx) => {
    ctx.body = { ok: true };
  });
  const app = createApp({ auth, realm: 'Heliograph', routers: [router] });
  // The same app on both loopback addresses: two client addresses, each with its own queue.
  const v4 = await listen(app, '127.0.0.1', 0);
  t.after(() => v4.close());
  const v6 = await listen(app, '::1', 0);
  t.after(() => v6.close());
  const wrong = { authorization: `Basic ${Buffer.from('admin:not the password').toString('base64')}` };
  // Each round sends both at once; a scrypt check takes tens of milliseconds, so the two
  // overlap at the gate in (almost) every round, and one is refused there.
  for (let round = 0; round < 20; round++) {
    const answers = await Promise.all([v4.url, v6.url].map((url) => fetch(`${url}/api/v1/ping`, { headers: wrong })));
    const busy = answers.find((a) => a.status === 503);
    if (!busy) {
      for (const a of answers) assert.equal(a.status, 401, `round ${round}: a wrong password`);
      continue;
    }
    assert.equal(busy.headers.get('retry-after'), '1');
    const body = (await busy.json()) as { error: string; code: string };
    assert.match(body.error, /too many password checks are running right now/);
    assert.equal(body.code, 'AUTH_BUSY');
    return;
  }
  assert.fail('no check was refused in 20 rounds of two at once: the gate never filled');
});
