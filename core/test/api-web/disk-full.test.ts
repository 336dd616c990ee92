import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Router from '@koa/router';
import { createApp, listen } from '../../src/api/app.js';
import { scope } from '../../src/auth/scopes.js';
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
  const app = createApp({
    auth: { authenticate: () => Promise.resolve({ ok: true, who: 'admin', scope: 'admin' }) },
    realm: 'Heliograph',
    routers: [router],
  });
  const running = await listen(app, '127.0.0.1', 0);
  t.after(() => running.close());
  const res = await fetch(`${running.url}/api/v1/fill`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(res.status, 507);
  assert.match(((await res.json()) as { error: string }).error, /disk holding the data directory is full/);
});
