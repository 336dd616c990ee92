/**
 * Writes one backup file: SQLite's online copy of heliograph.db (the service keeps serving
 * while it is made) with the data directory's other files carried inside it (file.ts). The
 * one function `heliograph backup` and the service's scheduled and page-made backups share.
 */
import { chmodSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'sqlite';
import sqlite3 from 'sqlite3';
import { onlineBackup, openDatabase } from '../db.js';
import { VERSION } from '../install-root.js';
import { refuseNewer, schemaState } from '../schema.js';
import { DATABASE_FILE } from '../system/data-dir.js';
import { BACKUP_FORMAT, carriedFiles, dropHistoryClaim, writeCarried } from './file.js';

export interface BackupRequest {
  dataDir: string;
  /** The plugin setup, where the service reads it (`--plugins`), else `<dataDir>/plugins.json`. */
  pluginsFile: string;
  /** The file to write; it must not exist. */
  target: string;
  /** When the backup is made, as its info records it (ms). */
  now: number;
}

export interface WrittenBackup {
  target: string;
  size: number;
  /** The files carried besides the database (site-id, config.json, plugins.json, plugins/...). */
  files: string[];
}

/**
 * Writes the backup to `<target>.partial-<pid>`, readable by its owner only (it holds the
 * password hash, tokens and API keys), and renames it to `target` once complete: a crash or a
 * full disk never leaves a file under the backup's name. Throws in words, writing nothing.
 */
export async function writeBackup(request: BackupRequest): Promise<WrittenBackup> {
  const { dataDir, pluginsFile, target } = request;
  if (existsSync(target)) throw new Error(`${target} exists already; name a new file`);
  const dbFile = join(dataDir, DATABASE_FILE);
  if (!existsSync(dbFile)) throw new Error(`${dbFile}: no database there (is --data or HELIOGRAPH_DATA right?)`);
  // Read first: a plugin file that cannot be carried stops the backup before anything is written.
  const files = carriedFiles(dataDir, pluginsFile);
  const partial = `${target}.partial-${process.pid}`;
  try {
    // A connection of its own, read-only in effect: the service's writers are not held up.
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
    const out = await open({ filename: partial, driver: sqlite3.Database });
    try {
      // One self-contained file: no -wal beside it.
      await out.exec('PRAGMA journal_mode = DELETE');
      // The running service's claim on history (history/owner.ts) belongs to that process, not to the data.
      await dropHistoryClaim(out);
      const siteId =
        files
          .find((f) => f.name === 'site-id')
          ?.content.toString('utf8')
          .trim() ?? '';
      const info = {
        format: BACKUP_FORMAT,
        version: VERSION,
        created: new Date(request.now).toISOString(),
        siteId,
        schema: applied.join(','),
      };
      await writeCarried(out, info, files);
    } finally {
      await out.close();
    }
    renameSync(partial, target);
    return { target, size: statSync(target).size, files: files.map((f) => f.name) };
  } finally {
    rmSync(partial, { force: true });
  }
}
