// The floor under the service's memory: the packages its design names, each loaded and used
// once, in a process of their own and nothing of Heliograph's code. Koa with @koa/router and
// koa-websocket answering one route, tsyringe resolving one value, sqlite over sqlite3 on a WAL
// file, a zod schema, got fetching that route, tiny-typed-emitter, and luxon turning a time into
// a day of one time zone (the site's days need a zone's rules: ICU's data). Then, as the
// service does after its start's work, two major collections and glibc's malloc_trim(0).
// `npm run bench:memory` samples it beside the service and a bare node:http server: what the
// service adds to it is what its own code costs. Prints "listening on URL" once the work is done.
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import '@abraham/reflection';
import Router from '@koa/router';
import got from 'got';
import Koa from 'koa';
import websockify from 'koa-websocket';
import { DateTime } from 'luxon';
import { open } from 'sqlite';
import sqlite3 from 'sqlite3';
import { TypedEmitter } from 'tiny-typed-emitter';
import { container } from 'tsyringe';
import { z } from 'zod';

const require = createRequire(import.meta.url);

const db = await open({
  filename: join(mkdtempSync(join(tmpdir(), 'heliograph-floor-')), 'floor.db'),
  driver: sqlite3.Database,
});
await db.exec('PRAGMA journal_mode = WAL; CREATE TABLE readings (time INTEGER, value REAL)');
await db.run('INSERT INTO readings VALUES (?, ?)', Date.now(), 1.5);

container.register('site', { useValue: 'Europe/Berlin' });
const zone = container.resolve<string>('site');
const Reading = z.object({ time: z.number().int(), value: z.number() });
const events = new TypedEmitter<{ reading: (value: number) => void }>();
events.on('reading', () => undefined);

const app = websockify(new Koa());
const router = new Router();
router.get('/reading', async (ctx) => {
  const row = Reading.parse(await db.get('SELECT time, value FROM readings'));
  events.emit('reading', row.value);
  ctx.body = { ...row, day: DateTime.fromMillis(row.time).setZone(zone).startOf('day').toISO() };
});
app.use(router.routes());
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
await got(`${url}/reading`).json();

// The service's free-memory step (core/src/system/free-memory.ts), as it runs after its start.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
setFlagsFromString('--no-expose-gc');
gc();
gc();
(require('@heliograph/malloc-trim') as { trim(): boolean | undefined }).trim();

process.stdout.write(`listening on ${url}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
