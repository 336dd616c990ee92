/** `heliograph backup FILE`: a consistent copy of the data directory, also of a running service. */
import { chmodSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { open } from 'sqlite';
import sqlite3 from 'sqlite3';
import { onlineBackup, openDatabase } from '../db.js';
import { VERSION } from '../install-root.js';
import { refuseNewer, schemaState } from '../schema.js';
import { DATABASE_FILE } from '../system/data-dir.js';
import { BACKUP_FORMAT, carriedFiles, writeCarried } from './backup-file.js';
import { locations, parseFlags, UsageError } from './command.js';

export async function runBackupCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags({
    args: argv,
    allowPositionals: true,
    options: { data: { type: 'string' }, config: { type: 'string' }, plugins: { type: 'string' } },
  });
  if (positionals.length !== 1) throw new UsageError('name the one file to write, e.g. heliograph-backup.db');
  // The backup holds the password hash, tokens and API keys: readable by this user only.
  process.umask(0o077);
  const where = locations(values);
  const target = resolve(positionals[0]!);
  if (existsSync(target)) throw new Error(`${target} exists already; name a new file`);
  const dbFile = join(where.dataDir, DATABASE_FILE);
  if (!existsSync(dbFile)) throw new Error(`${dbFile}: no database there (is --data or HELIOGRAPH_DATA right?)`);

  const partial = `${target}.partial-${process.pid}`;
  try {
    const db = await openDatabase(dbFile);
    let applied: string[];
    try {
      const state = await schemaState(db);
      refuseNewer(state, dbFile);
      applied = state.applied;
      await onlineBackup(db, partial);
    } finally {
      await db.close();
    }
    chmodSync(partial, 0o600);
    const files = carriedFiles(where.dataDir, where.pluginsFile ?? join(where.dataDir, 'plugins.json'));
    const out = await open({ filename: partial, driver: sqlite3.Database });
    try {
      // One self-contained file: no -wal beside it.
      await out.exec('PRAGMA journal_mode = DELETE');
      const siteId =
        files
          .find((f) => f.name === 'site-id')
          ?.content.toString('utf8')
          .trim() ?? '';
      const info = {
        format: BACKUP_FORMAT,
        version: VERSION,
        created: new Date().toISOString(),
        siteId,
        schema: applied.join(','),
      };
      await writeCarried(out, info, files);
    } finally {
      await out.close();
    }
    renameSync(partial, target);
    const mb = (statSync(target).size / 1e6).toFixed(1);
    process.stderr.write(
      `backup written: ${target} (${mb} MB: the database, ${files.map((f) => f.name).join(', ') || 'no other files'})\n`,
    );
    return 0;
  } finally {
    rmSync(partial, { force: true });
  }
}
