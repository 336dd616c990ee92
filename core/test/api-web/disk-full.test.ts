import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Router from '@koa/router';
import { listenRoutes } from '../helpers/routes-server.js';
import { scope } from '../../src/api/auth.js';
import { openDatabase } from '../../src/db.js';
import { tempDir } from '../helpers/tmp.js';

test('a full disk answers 507 saying so, not 500 "internal error"', async (t) => {
  const db = await openDatabase(join(tempDir(), 'full.db'));
  t.after(() => db.close());
  await db.exec('CREATE TABLE t (x BLOB)');
  // SQLite's own limit on the file size gives the very error a full disk gives: SQLITE_FULL.
  const { page_count } = (await db.get<{ page_count: number }>('PRAGMA page_count'))!;
  await db.exec(`PRAGMA max_page_count = ${page_count}`);
  const router = new Router();
  router.post('/fill', scope('write'), async (ctx) => {
    await db.run('INSERT INTO t (x) VALUES (?)', Buffer.alloc(64 * 1024));
    ctx.body = { ok: true };
  });
  const running = await listenRoutes([router]);
  t.after(() => running.close());
  const res = await fetch(`${running.url}/api/v1/fill`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(res.status, 507);
  const body = (await res.json()) as { error: string; code: string };
  assert.match(body.error, /disk holding the data directory is full/);
  assert.equal(body.code, 'DISK_FULL');
});

// A fault of the service's own says nothing of its inside, and a library's refusal keeps
// its status: each with its code (error-codes.ts), as every other error answer.
test('any other fault answers 500 "internal error"; a library refusal keeps its status', async (t) => {
  const router = new Router();
  router.get('/fault', scope('read'), () => {
    throw new TypeError('cannot read properties of undefined (reading "secret")');
  });
  router.get('/refusal', scope('read'), () => {
    // What http-errors (koa's ctx.throw, @koa/send) throws.
    throw Object.assign(new Error('Request Timeout'), { status: 408, expose: true });
  });
  const running = await listenRoutes([router]);
  t.after(() => running.close());
  const fault = await fetch(`${running.url}/api/v1/fault`);
  assert.equal(fault.status, 500);
  assert.deepEqual(await fault.json(), { error: 'internal error', code: 'INTERNAL_ERROR' });
  const refusal = await fetch(`${running.url}/api/v1/refusal`);
  assert.equal(refusal.status, 408);
  assert.deepEqual(await refusal.json(), { error: 'Request Timeout', code: 'REQUEST_REFUSED' });
});
