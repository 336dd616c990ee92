// Backups in the running service over real HTTP and a real SQLite file: the schedule writes
// one at its local time (a moved clock) and keeps `keep` of them, the list, download and
// delete answer admins only and only for names of the list, and a restore from an upload
// runs the CLI's checks (refusals in words, nothing changed) and, when it passes, is put in
// place by the restart `heliograph serve` makes in its own process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { open } from 'sqlite';
import sqlite3 from 'sqlite3';
import { ManualClock } from '@heliograph/core/clock';
import type { BackupsResponse } from '@heliograph/core/api-types';
import { startChildServer } from '../helpers/child-server.js';
import { pollUntil, within } from '../helpers/deadline.js';
import { jsonBody, startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const list = async (s: TestServer) => (await (await s.api('/api/v1/backups')).json()) as BackupsResponse;
const upload = (body: Buffer, type = 'application/octet-stream'): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': type },
  body: new Uint8Array(body),
});

/** Every file of the data directory with its size and time: what "nothing changed" compares. */
function fingerprint(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((name) => !name.startsWith('backups'))
    .sort()
    .map((name) => {
      const stat = statSync(join(dir, name));
      return stat.isFile() ? `${name} ${stat.size} ${stat.mtimeMs}` : name;
    });
}

test('the schedule writes a backup at its local time and keeps the newest `keep`; others in the folder are left alone', async () => {
  // 02:00 in Berlin: the first scheduled backup is due at 03:30 local, 02:30 UTC.
  const clock = new ManualClock(Date.parse('2026-11-27T01:00:00Z'));
  const server = await startTestServer({
    plugins: [],
    clock,
    config: { site: { timeZone: 'Europe/Berlin' }, backups: { keep: 2 } },
  });
  const before = await list(server);
  assert.deepEqual(before.schedule, { schedule: 'daily', time: '03:30', keep: 2 });
  assert.equal(before.next_at, '2026-11-27T02:30:00Z');
  assert.equal(before.folder, join(server.dataDir, 'backups'));
  assert.deepEqual(before.backups, []);

  const made = await server.api('/api/v1/backups', { method: 'POST' });
  assert.equal(made.status, 201, 'a backup made by hand');
  const manual = (await made.json()) as { name: string };
  const foreign = join(before.folder, 'my-own-copy.backup');
  writeFileSync(foreign, 'the owner’s own file');

  const scheduled = async (expected: string[]) =>
    pollUntil(
      async () => {
        const names = (await list(server)).backups.filter((b) => b.kind === 'scheduled').map((b) => b.created_at);
        return { done: JSON.stringify(names) === JSON.stringify(expected), seen: names };
      },
      `the scheduled backups ${expected.join(', ')}`,
    );
  clock.set(Date.parse('2026-11-27T02:29:59Z'));
  clock.set(Date.parse('2026-11-27T02:30:00Z'));
  await scheduled(['2026-11-27T02:30:00Z']);
  const first = (await list(server)).backups.find((b) => b.kind === 'scheduled')!;
  assert.equal(statSync(join(before.folder, first.name)).mode & 0o777, 0o600, 'owner only: it holds the password hash');
  assert.equal((await list(server)).next_at, '2026-11-28T02:30:00Z');

  clock.set(Date.parse('2026-11-28T02:31:00Z'));
  await scheduled(['2026-11-28T02:31:00Z', '2026-11-27T02:30:00Z']);
  clock.set(Date.parse('2026-11-29T02:30:00Z'));
  await scheduled(['2026-11-29T02:30:00Z', '2026-11-28T02:31:00Z']);

  const after = await list(server);
  assert.ok(
    after.backups.some((b) => b.name === manual.name),
    'the backup made by hand is not pruned',
  );
  assert.ok(existsSync(foreign), 'a file the scheduler did not name is never deleted');
  assert.equal(after.last.error, null);
  assert.deepEqual(
    readdirSync(before.folder).filter((n) => n.includes('partial')),
    [],
    'no temporary file is left',
  );

  const off = await server.api('/api/v1/backups/schedule', { ...jsonBody({ schedule: 'off' }), method: 'PUT' });
  assert.equal(off.status, 200);
  assert.equal((await list(server)).next_at, null, 'off: nothing is due');
  assert.match(readFileSync(join(server.dataDir, 'config.json'), 'utf8'), /"schedule": "off"/, 'saved to config.json');
  const audit = (await (await server.api('/api/v1/audit?limit=50')).json()) as Array<{ topic: string }>;
  assert.ok(
    audit.some((e) => e.topic === `backups/${manual.name}`),
    'the backup made by hand is audited',
  );
  assert.ok(
    audit.some((e) => e.topic === 'config/backups.schedule'),
    'the schedule change is audited',
  );
});

test('a failed scheduled backup is logged, shown in the list, and the service goes on', async () => {
  const clock = new ManualClock(Date.parse('2026-11-27T01:00:00Z'));
  const dir = tempDir();
  // A file where the folder should be: nothing can be written there.
  writeFileSync(join(dir, 'not-a-folder'), '');
  const server = await startTestServer({
    plugins: [],
    clock,
    config: { site: { timeZone: 'UTC' }, backups: { path: join(dir, 'not-a-folder', 'backups') } },
  });
  clock.set(Date.parse('2026-11-27T03:30:00Z'));
  await pollUntil(async () => {
    const { last } = await list(server);
    return { done: last.error !== null, seen: last };
  }, 'the failed backup in the list');
  const { last, next_at } = await list(server);
  assert.match(last.error!, /the scheduled backup could not be written to .*not-a-folder\/backups: ENOTDIR/);
  assert.equal(next_at, '2026-11-28T03:30:00Z', 'the next one is still planned');
  const failed = await server.api('/api/v1/backups', { method: 'POST' });
  assert.equal(failed.status, 500);
  assert.equal(((await failed.json()) as { code: string }).code, 'BACKUP_FAILED');
});

test('list, download and delete: admins only, names of the list only', async () => {
  const server = await startTestServer({ plugins: [] });
  const made = (await (await server.api('/api/v1/backups', { method: 'POST' })).json()) as {
    name: string;
    size: number;
  };
  const folder = join(server.dataDir, 'backups');
  writeFileSync(join(folder, 'notes.txt'), 'mine');

  const download = await server.api(`/api/v1/backups/${made.name}`);
  assert.equal(download.status, 200);
  assert.equal(download.headers.get('content-disposition'), `attachment; filename="${made.name}"`);
  assert.equal(download.headers.get('content-length'), String(made.size));
  const bytes = Buffer.from(await download.arrayBuffer());
  assert.deepEqual(bytes, readFileSync(join(folder, made.name)), 'the file as written');
  assert.equal(bytes.subarray(0, 16).toString('latin1'), 'SQLite format 3\0');

  for (const name of ['notes.txt', '..%2Fheliograph.db', '%2E%2E%2Fconfig.json', 'heliograph-x.backup']) {
    const res = await server.api(`/api/v1/backups/${name}`);
    assert.equal(res.status, 404, name);
    assert.equal(((await res.json()) as { code: string }).code, 'BACKUP_NOT_FOUND', name);
  }

  const created = await server.api('/api/v1/tokens', jsonBody({ name: 'writer', scope: 'write' }));
  const writer = `Bearer ${((await created.json()) as { token: string }).token}`;
  for (const [method, path] of [
    ['GET', '/api/v1/backups'],
    ['POST', '/api/v1/backups'],
    ['GET', `/api/v1/backups/${made.name}`],
    ['DELETE', `/api/v1/backups/${made.name}`],
    ['POST', '/api/v1/backups/restore'],
  ] as const) {
    const res = await server.api(path, { method, headers: { authorization: writer } });
    assert.equal(res.status, 403, `${method} ${path} with a write token`);
    assert.equal(((await res.json()) as { code: string }).code, 'SCOPE_TOO_LOW');
  }
  const anonymous = await server.api('/api/v1/backups/restore', { ...upload(bytes), auth: null });
  assert.equal(anonymous.status, 401, 'the restore needs credentials');

  const deleted = await server.api(`/api/v1/backups/${made.name}`, { method: 'DELETE' });
  assert.equal(deleted.status, 204);
  assert.deepEqual((await list(server)).backups, []);
  assert.ok(existsSync(join(folder, 'notes.txt')), 'the other file is still there');
  const audit = (await (await server.api('/api/v1/audit?limit=50')).json()) as Array<{
    topic: string;
    new_value: string;
  }>;
  assert.ok(
    audit.some((e) => e.topic === `backups/${made.name}` && e.new_value === 'deleted'),
    'the deletion is audited',
  );
});

test('a restore from an upload is refused in words with nothing changed, or staged with what it strips', async () => {
  const server = await startTestServer({ plugins: [] });
  const made = (await (await server.api('/api/v1/backups', { method: 'POST' })).json()) as { name: string };
  const good = readFileSync(join(server.dataDir, 'backups', made.name));
  const crafted = async (change: string): Promise<Buffer> => {
    const file = join(tempDir(), 'crafted.backup');
    copyFileSync(join(server.dataDir, 'backups', made.name), file);
    const db = await open({ filename: file, driver: sqlite3.Database });
    await db.exec(change);
    await db.close();
    return readFileSync(file);
  };
  const before = fingerprint(server.dataDir);
  const REFUSED = 'RESTORE_REFUSED';
  const refusals: Array<[string, RequestInit, number, RegExp, string]> = [
    [
      'a truncated file',
      upload(good.subarray(0, Math.floor(good.length / 2))),
      422,
      /cut short .*nothing was restored/,
      REFUSED,
    ],
    [
      'a file that is not SQLite',
      upload(Buffer.from('hello, this is not a backup at all')),
      422,
      /is not a backup file/,
      REFUSED,
    ],
    [
      'an unknown table',
      upload(await crafted('CREATE TABLE stash (secret TEXT)')),
      422,
      /table\(s\) Heliograph never writes \("stash"\)/,
      REFUSED,
    ],
    [
      'a second database file',
      upload(await crafted("INSERT INTO heliograph_backup_files VALUES ('heliograph.db-wal', x'00')")),
      422,
      /second database file/,
      REFUSED,
    ],
    [
      'a form post',
      upload(good, 'application/x-www-form-urlencoded'),
      415,
      /application\/octet-stream/,
      'RESTORE_UPLOAD_INVALID',
    ],
    ['an empty body', upload(Buffer.alloc(0)), 422, /empty/, REFUSED],
  ];
  for (const [what, init, status, words, code] of refusals) {
    const res = await server.api('/api/v1/backups/restore', init);
    const body = (await res.json()) as { error: string; code: string };
    assert.equal(res.status, status, `${what}: ${body.error}`);
    assert.equal(body.code, code, what);
    assert.match(body.error, words, what);
    assert.doesNotMatch(body.error, /restore-upload/, 'the words name the upload, not a temporary file');
  }
  assert.deepEqual(fingerprint(server.dataDir), before, 'nothing of the data directory changed');

  const withTrigger = await crafted(
    'CREATE TRIGGER sneaky AFTER INSERT ON audit BEGIN DELETE FROM tokens; END; CREATE VIEW peek AS SELECT 1',
  );
  const staged = await server.api('/api/v1/backups/restore', upload(withTrigger));
  assert.equal(staged.status, 202);
  const answer = (await staged.json()) as { stripped: string[]; restarting: boolean };
  assert.deepEqual(answer.stripped, ['trigger "sneaky" (on "audit")', 'view "peek"']);
  assert.equal(
    await within(server.restartRequested, 'the restart the staged restore asks for'),
    'a restore was staged from the API',
  );
  assert.ok(existsSync(join(server.dataDir, 'restore-pending.backup')));
  const again = await server.api('/api/v1/backups/restore', upload(good));
  assert.equal(again.status, 409, 'one restore at a time');
  assert.equal(((await again.json()) as { code: string }).code, 'RESTORE_REFUSED');

  await server.close();
  const restarted = await startTestServer({ plugins: [], dataDir: server.dataDir });
  const { restored } = await list(restarted);
  assert.equal(restored?.error, null);
  assert.deepEqual(restored?.stripped, []);
  assert.ok(!existsSync(join(server.dataDir, 'restore-pending.backup')), 'applied and removed');
  const db = await open({ filename: join(server.dataDir, 'heliograph.db'), driver: sqlite3.Database });
  try {
    const code = await db.all("SELECT name FROM sqlite_master WHERE type IN ('trigger', 'view')");
    assert.deepEqual(code, [], 'the trigger and the view are not in the restored database');
  } finally {
    await db.close();
  }
  assert.ok(
    readdirSync(server.dataDir).some((n) => /^heliograph\.db\.before-restore-/.test(n)),
    'the database that was there is kept aside',
  );
});

test('a restore uploaded to another unit brings back its settings, tokens, site id and history after the restart', async () => {
  const source = await startChildServer({
    bundled: ['simulator'],
    plugins: [{ id: 'sim', plugin: 'simulator', devices: ['inverter_1', 'battery_1'], config: { backfill_days: 3 } }],
    env: { HELIOGRAPH_LOG_LEVEL: 'info' },
  });
  const target = await startChildServer({ bundled: ['simulator'], plugins: [] });
  try {
    await source.waitFor(/backfill complete/, "the simulator's backfill");
    const renamed = await source.api('/api/v1/config', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ site: { name: 'Backed up' } }),
    });
    assert.equal(renamed.status, 200);
    const tokenRes = await source.api('/api/v1/tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'dashboard', scope: 'read' }),
    });
    const token = ((await tokenRes.json()) as { token: string }).token;
    const made = (await (await source.api('/api/v1/backups', { method: 'POST' })).json()) as { name: string };
    const downloaded = join(tempDir(), made.name);
    writeFileSync(downloaded, Buffer.from(await (await source.api(`/api/v1/backups/${made.name}`)).arrayBuffer()));
    const backupDb = await open({ filename: downloaded, driver: sqlite3.Database });
    assert.deepEqual(await backupDb.all('SELECT * FROM history_owner'), [], 'the running source’s claim is not in it');
    // As a backup of an older version carries it: the restore drops the claim of the live source.
    await backupDb.run(
      'INSERT INTO history_owner (id, pid, host, since) VALUES (1, ?, ?, ?)',
      source.child.pid,
      hostname(),
      Date.now(),
    );
    await backupDb.close();
    const file = readFileSync(downloaded);

    const now = Date.now();
    const history = async (s: typeof source) => {
      const from = new Date(now - 2 * 86_400_000).toISOString();
      const to = new Date(now - 86_400_000).toISOString();
      const res = await s.api(`/api/v1/history?topic=inverter_1/pv_power&group_by=1h&from=${from}&to=${to}`);
      assert.equal(res.status, 200, await res.clone().text());
      return ((await res.json()) as { points: unknown[] }).points;
    };
    const siteId = async (s: typeof source) =>
      ((await (await s.api('/api/v1/system')).json()) as Array<{ topic: string; value: unknown }>).find(
        (r) => r.topic === 'system/site_id',
      )?.value;
    const points = await history(source);
    assert.ok(points.length >= 24, `the backfill is in the source's history: ${points.length} hours`);
    assert.notEqual(await siteId(target), await siteId(source), 'two units');

    const offset = target.output().length;
    const res = await target.api('/api/v1/backups/restore', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array(file),
    });
    assert.equal(res.status, 202, await res.clone().text());
    await target.waitFor(/^listening on /m, 'the restarted service', offset);

    assert.equal(await siteId(target), await siteId(source), 'the site id is the backup’s');
    const config = (await (await target.api('/api/v1/config')).json()) as { site: { name: string } };
    assert.equal(config.site.name, 'Backed up');
    const byToken = await fetch(`${target.url}/api/v1/system`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(byToken.status, 200, 'the backup’s token works');
    assert.deepEqual(await history(target), points, 'the backup’s history');
    const status = (await (await target.api('/api/v1/backups')).json()) as BackupsResponse;
    assert.equal(status.restored?.error, null);
    assert.equal(target.child.exitCode, null, 'restarted in the same process');
  } finally {
    await target.stop();
    await source.stop();
  }
});
