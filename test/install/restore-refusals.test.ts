// `heliograph restore` of backups changed after `heliograph backup` wrote them, built in the
// real format (backup-file.ts: the database's online copy plus heliograph_backup_info and
// heliograph_backup_files) from a backup of a running service: a member that would land on the
// database or outside what a backup writes, a name with control characters, a truncated file,
// no migrations table and a table Heliograph never writes are refused in words, with the data
// directory left as it was; triggers, views and foreign indexes are removed, and the restored
// service starts with its history, tokens and password, and keeps its history at the first write.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, readdirSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'sqlite';
import sqlite3 from 'sqlite3';
import { pollUntil } from '../helpers/deadline.js';
import { tempDir } from '../helpers/server.js';
import { createToken, MAIN, run, siteSnapshot, startService } from './service.js';

const node = process.execPath;
const dir = tempDir();
/** The data directory of the service the backup was taken from: what a refused restore must leave alone. */
const data = join(dir, 'data');
const good = join(dir, 'good.backup');
let token = '';
let started = 0;
let snapshot: Awaited<ReturnType<typeof siteSnapshot>>;

/** Every file of a folder (recursively) with a hash of its content. */
function fingerprint(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(folder, { recursive: true }).map(String).sort()) {
    const path = join(folder, entry);
    out[entry] = statSync(path).isFile() ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'folder';
  }
  return out;
}

/** A copy of the good backup changed by `change` on its SQLite database. */
async function craft(name: string, change: (db: Awaited<ReturnType<typeof open>>) => Promise<unknown>) {
  const file = join(dir, name);
  copyFileSync(good, file);
  const db = await open({ filename: file, driver: sqlite3.Database });
  try {
    await change(db);
  } finally {
    await db.close();
  }
  return file;
}

let copies = 0;

/** A copy of the service's data directory, for a restore to refuse to change. */
function dataCopy(): string {
  const copy = join(dir, `data-${++copies}`);
  cpSync(data, copy, { recursive: true });
  return copy;
}

/** Restores `file` into a copy of the service's data directory; asserts it is refused with `message` and changes nothing. */
async function assertRefused(file: string, message: RegExp) {
  const target = dataCopy();
  const result = await run([node, MAIN, 'restore', file, '--data', target]);
  assert.equal(result.code, 1, result.output);
  assert.match(result.output, message);
  assert.match(result.output, /nothing was restored/);
  assert.doesNotMatch(result.output, /SQLITE_/, 'no raw SQLite error');
  assert.deepEqual(fingerprint(target), fingerprint(data), 'the data directory is as it was');
}

before(async () => {
  started = Date.now();
  const service = await startService([node, MAIN, 'serve', '--data', data]);
  try {
    await service.waitFor(/backfill complete/, "the simulator's backfill");
    token = await createToken(service, 'dashboard');
    snapshot = await siteSnapshot(service, token, started);
    assert.ok(snapshot.points.length > 24, `the backfill is in history: ${snapshot.points.length} hours`);
    const backup = await run([node, MAIN, 'backup', good, '--data', data]);
    assert.equal(backup.code, 0, backup.output);
  } finally {
    assert.equal(await service.stop(), 0);
  }
});

test('a member that would land on the database, its journals or outside what a backup writes is refused', async () => {
  // Another database: a fresh, empty one, as the owner found in place after the restore.
  const other = join(dir, 'fresh.db');
  const fresh = await open({ filename: other, driver: sqlite3.Database });
  await fresh.exec('CREATE TABLE migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
  await fresh.close();
  const otherBytes = readFileSync(other);
  for (const name of ['heliograph.db', 'heliograph.db-wal', 'heliograph.db-shm', 'heliograph.db-journal']) {
    const file = await craft(`${name}.backup`, (db) =>
      db.run('INSERT INTO heliograph_backup_files (name, content) VALUES (?, ?)', name, otherBytes),
    );
    await assertRefused(file, new RegExp(`second database file "${name}", which would replace the database`));
  }
  const stray = await craft('stray.backup', (db) =>
    db.run('INSERT INTO heliograph_backup_files (name, content) VALUES (?, ?)', 'notes.txt', Buffer.from('hi')),
  );
  await assertRefused(stray, /a file named "notes.txt", which `heliograph backup` never writes: refused/);
});

test('a member name with control characters is refused without writing them out', async () => {
  const file = await craft('control.backup', (db) =>
    db.run(
      'INSERT INTO heliograph_backup_files (name, content) VALUES (?, ?)',
      'plugins/sim/a\u001b[2Jb\u009bc',
      Buffer.from('x'),
    ),
  );
  const target = dataCopy();
  const result = await run([node, MAIN, 'restore', file, '--data', target]);
  assert.equal(result.code, 1, result.output);
  assert.match(result.output, /a file name in the backup has control characters \(.*\): refused/);
  assert.ok(
    !['\u001b', '\u009b'].some((c) => result.output.includes(c)),
    `the name is shown escaped: ${JSON.stringify(result.output)}`,
  );
  assert.deepEqual(fingerprint(target), fingerprint(data), 'the data directory is as it was');
});

test('a backup cut short is refused naming where it ends, at any point', async () => {
  const size = statSync(good).size;
  for (const at of [0, 10, 60, 2000, 4096 * 3, Math.floor(size / 2), size - 1]) {
    const file = join(dir, `cut-${at}.backup`);
    copyFileSync(good, file);
    truncateSync(file, at);
    await assertRefused(file, new RegExp(`the backup is cut short \\(truncated at byte ${at}\\)`));
  }
});

test('a backup without the migrations table is not a Heliograph backup', async () => {
  const file = await craft('no-migrations.backup', (db) => db.exec('DROP TABLE migrations'));
  await assertRefused(file, /the backup has no migrations table: it is not a Heliograph backup/);
});

test('a table Heliograph never writes is refused, naming it', async () => {
  const file = await craft('unknown-table.backup', (db) =>
    db.exec("CREATE TABLE stash (x TEXT); INSERT INTO stash VALUES ('y')"),
  );
  await assertRefused(file, /table\(s\) Heliograph never writes \("stash"\)/);
});

test('triggers, views and foreign indexes are removed; the service starts with its history, tokens and password', async () => {
  const file = await craft('triggers.backup', (db) =>
    db.exec(`
      CREATE TRIGGER wipe_history AFTER INSERT ON audit BEGIN DELETE FROM history_blocks; END;
      CREATE TRIGGER wipe_at_start AFTER INSERT ON history_owner BEGIN
        DELETE FROM history_blocks; DELETE FROM auth_tokens; DELETE FROM auth_password;
      END;
      CREATE VIEW everything AS SELECT * FROM audit;
      CREATE INDEX one_block ON history_blocks (tier);`),
  );
  const restored = join(dir, 'restored');
  const result = await run([node, MAIN, 'restore', file, '--data', restored]);
  assert.equal(result.code, 0, result.output);
  const service = await startService([node, MAIN, 'serve', '--data', restored]);
  try {
    assert.deepEqual(await siteSnapshot(service, token, started), snapshot, 'as before the backup');
    // A write: an audited token, then the history once the audit entry is stored.
    await createToken(service, 'after-restore');
    await pollUntil(async () => {
      const entries = (await (await service.api('/api/v1/audit?limit=20')).json()) as Array<{ topic: string }>;
      return { done: entries.some((e) => e.topic === 'tokens/after-restore'), seen: entries.map((e) => e.topic) };
    }, 'the audit entry of the token created after the restore');
    const later = await siteSnapshot(service, token, started);
    assert.deepEqual(later.points, snapshot.points, 'the history is kept at the first write');
  } finally {
    assert.equal(await service.stop(), 0);
  }
  assert.match(
    result.output,
    /removed from the restored database what Heliograph never makes: .*trigger "wipe_history" \(on "audit"\).*view "everything".*index "one_block"/,
  );
  const db = await open({ filename: join(restored, 'heliograph.db'), driver: sqlite3.Database });
  try {
    const left = await db.all<Array<{ name: string }>>(
      "SELECT name FROM sqlite_master WHERE type IN ('trigger', 'view') OR name = 'one_block'",
    );
    assert.deepEqual(left, [], 'no trigger, view or foreign index in the restored database');
  } finally {
    await db.close();
  }
});
