/** `heliograph restore FILE`: checks a backup and puts it back into the data directory. */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { open } from 'sqlite';
import sqlite3 from 'sqlite3';
import { openDatabase } from '../db.js';
import { claimHistory, releaseHistory } from '../history/owner.js';
import { DATA_FILES, DATABASE_FILE } from '../system/data-dir.js';
import { lockDataDir, STOPPED_HINT } from '../system/data-dir-lock.js';
import { readCarried } from './backup-file.js';
import { locations, parseFlags, UsageError } from './command.js';
import { checkWholeFile, cleanSchema, inWords } from './restore-checks.js';

/** Refuses while a service (any process writing history) runs on this database. */
async function refuseRunning(dbFile: string): Promise<void> {
  if (!existsSync(dbFile)) return;
  const db = await openDatabase(dbFile);
  try {
    const owner = await db.get<{ 1: number }>(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_owner'",
    );
    if (!owner) return;
    await claimHistory(db).catch((err: Error) => {
      throw new Error(
        `${err.message.replace(/; stop it first$/, '')}: stop the service first (systemctl stop heliograph)`,
      );
    });
    await releaseHistory(db);
  } finally {
    await db.close();
  }
}

export async function runRestoreCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags({
    args: argv,
    allowPositionals: true,
    options: { data: { type: 'string' }, config: { type: 'string' }, plugins: { type: 'string' } },
  });
  if (positionals.length !== 1) throw new UsageError('name the one backup file to restore');
  process.umask(0o077);
  const where = locations(values);
  const source = resolve(positionals[0]!);
  if (!existsSync(source)) throw new Error(`${source}: no such file`);
  mkdirSync(where.dataDir, { recursive: true, mode: 0o700 });
  // Held while the files are replaced: a service starting meanwhile is refused too.
  const lock = lockDataDir(where.dataDir, { command: 'heliograph restore', hint: STOPPED_HINT });
  const dbFile = join(where.dataDir, DATABASE_FILE);
  const pluginsFile = where.pluginsFile ?? join(where.dataDir, 'plugins.json');

  // Checked on a copy in the data directory, which then becomes the database by a rename.
  const work = `${dbFile}.restoring-${process.pid}`;
  try {
    checkWholeFile(source);
    copyFileSync(source, work);
    const db = await open({ filename: work, driver: sqlite3.Database });
    let carried: Awaited<ReturnType<typeof readCarried>>;
    let stripped: string[];
    try {
      // Nothing here writes before cleanSchema has removed the triggers.
      carried = await readCarried(db, source);
      stripped = await cleanSchema(db, source);
      await db.exec('DROP TABLE heliograph_backup_info; DROP TABLE heliograph_backup_files');
    } catch (err) {
      const refused = inWords(err, source);
      throw /nothing was (restored|changed)/i.test(refused.message)
        ? refused
        : new Error(`${refused.message}; nothing was restored`);
    } finally {
      await db.close();
    }
    await refuseRunning(dbFile);

    const stamp = new Date()
      .toISOString()
      .replace(/\.\d+Z$/, 'Z')
      .replace(/:/g, '-');
    const replaced: string[] = [];
    const aside = (path: string) => {
      if (!existsSync(path)) return;
      renameSync(path, `${path}.before-restore-${stamp}`);
      replaced.push(path);
    };
    for (const suffix of ['', '-wal', '-shm', '-journal']) aside(dbFile + suffix);
    for (const name of DATA_FILES) aside(name === 'plugins.json' ? pluginsFile : join(where.dataDir, name));
    aside(join(where.dataDir, 'plugins'));
    for (const file of carried.files) {
      const path = file.name === 'plugins.json' ? pluginsFile : join(where.dataDir, ...file.name.split('/'));
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, file.content, { mode: 0o600 });
    }
    // Last: the database checked above is the one in place, whatever was written before it.
    renameSync(work, dbFile);
    if (stripped.length)
      process.stderr.write(`removed from the restored database what Heliograph never makes: ${stripped.join(', ')}\n`);
    process.stderr.write(
      `restored ${source} (made ${carried.info.created} by version ${carried.info.version}, site id ${carried.info.siteId || '?'}) into ${where.dataDir}` +
        (replaced.length ? `; what was there is kept as <name>.before-restore-${stamp}\n` : '\n'),
    );
    return 0;
  } finally {
    rmSync(work, { force: true });
    lock.release();
  }
}
