/** `heliograph restore FILE`: checks a backup and puts it back into the data directory. */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkBackup, putInPlace } from '../backup/restore.js';
import { openDatabase } from '../db.js';
import { claimHistory, releaseHistory } from '../history/owner.js';
import { DATABASE_FILE } from '../system/data-dir.js';
import { lockDataDir, STOPPED_HINT } from '../system/data-dir-lock.js';
import { fileAndLocations } from './command.js';

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
  const { file, where } = fileAndLocations(argv, 'name the one backup file to restore');
  process.umask(0o077);
  const source = resolve(file);
  if (!existsSync(source)) throw new Error(`${source}: no such file`);
  mkdirSync(where.dataDir, { recursive: true, mode: 0o700 });
  // Held while the files are replaced: a service starting meanwhile is refused too.
  const lock = lockDataDir(where.dataDir, { command: 'heliograph restore', hint: STOPPED_HINT });
  const dbFile = join(where.dataDir, DATABASE_FILE);
  const pluginsFile = where.pluginsFile ?? join(where.dataDir, 'plugins.json');

  // Checked on a copy in the data directory, which then becomes the database by a rename.
  const work = `${dbFile}.restoring-${process.pid}`;
  try {
    const checked = await checkBackup(source, work);
    await refuseRunning(dbFile);
    const { stamp, replaced } = await putInPlace({
      work,
      checked,
      dataDir: where.dataDir,
      pluginsFile,
      now: Date.now(),
    });
    if (checked.stripped.length)
      process.stderr.write(
        `removed from the restored database what Heliograph never makes: ${checked.stripped.join(', ')}\n`,
      );
    process.stderr.write(
      `restored ${source} (made ${checked.info.created} by version ${checked.info.version}, site id ${checked.info.siteId || '?'}) into ${where.dataDir}` +
        (replaced.length ? `; what was there is kept as <name>.before-restore-${stamp}\n` : '\n'),
    );
    return 0;
  } finally {
    rmSync(work, { force: true });
    lock.release();
  }
}
