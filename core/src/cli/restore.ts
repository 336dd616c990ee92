/** `heliograph restore FILE`: checks a backup and puts it back into the data directory. */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { open } from 'sqlite';
import sqlite3 from 'sqlite3';
import { openDatabase } from '../db.js';
import { claimHistory, releaseHistory } from '../history/owner.js';
import { refuseNewer, schemaState } from '../schema.js';
import { DATA_FILES, DATABASE_FILE } from '../system/data-dir.js';
import { readCarried } from './backup-file.js';
import { locations, parseFlags, UsageError } from './command.js';

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
  const dbFile = join(where.dataDir, DATABASE_FILE);
  const pluginsFile = where.pluginsFile ?? join(where.dataDir, 'plugins.json');

  // Checked on a copy in the data directory, which then becomes the database by a rename.
  const work = `${dbFile}.restoring-${process.pid}`;
  try {
    copyFileSync(source, work);
    const db = await open({ filename: work, driver: sqlite3.Database });
    let carried: Awaited<ReturnType<typeof readCarried>>;
    try {
      carried = await readCarried(db, source).catch((err: Error) => {
        throw new Error(
          /not a database|SQLITE_NOTADB/i.test(err.message) ? `${source} is not a backup file` : err.message,
        );
      });
      refuseNewer(await schemaState(db), source);
      await db.exec('DROP TABLE heliograph_backup_info; DROP TABLE heliograph_backup_files');
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
    for (const suffix of ['', '-wal', '-shm']) aside(dbFile + suffix);
    for (const name of DATA_FILES) aside(name === 'plugins.json' ? pluginsFile : join(where.dataDir, name));
    aside(join(where.dataDir, 'plugins'));
    renameSync(work, dbFile);
    for (const file of carried.files) {
      const path = file.name === 'plugins.json' ? pluginsFile : join(where.dataDir, ...file.name.split('/'));
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, file.content, { mode: 0o600 });
    }
    process.stderr.write(
      `restored ${source} (made ${carried.info.created} by version ${carried.info.version}, site id ${carried.info.siteId || '?'}) into ${where.dataDir}` +
        (replaced.length ? `; what was there is kept as <name>.before-restore-${stamp}\n` : '\n'),
    );
    return 0;
  } finally {
    rmSync(work, { force: true });
  }
}
