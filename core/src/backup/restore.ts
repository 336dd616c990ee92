/**
 * Restoring a backup, shared by `heliograph restore` and the service: the checks (checks.ts)
 * run on a copy in the data directory before anything of it changes; then what is there is
 * set aside as `<name>.before-restore-<time>` and the checked copy becomes the database.
 * The service cannot replace the database it holds open: it stages a checked upload as
 * `restore-pending.backup` and restarts, and the next start puts it in place before it opens
 * anything (applyPendingRestore).
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { open } from 'sqlite';
import sqlite3 from 'sqlite3';
import { createLogger, errorMessage } from '../log.js';
import { DATA_FILES, DATABASE_FILE } from '../system/data-dir.js';
import { checkWholeFile, cleanSchema, inWords, RestoreRefused } from './checks.js';
import { dropHistoryClaim, readCarried, type CarriedFile } from './file.js';

/** The checked upload the next start restores. */
export const PENDING_RESTORE = 'restore-pending.backup';

/** A backup that passed the checks: what it carries and what was removed from its schema. */
export interface CheckedBackup {
  info: Record<string, string>;
  files: CarriedFile[];
  /** Triggers, views and indexes Heliograph never makes, removed from the copy (named). */
  stripped: string[];
}

/**
 * Checks `source` on a copy at `work` (left there, cleaned, when the checks pass; removed
 * when they fail). Throws RestoreRefused in words ending "nothing was restored".
 */
export async function checkBackup(source: string, work: string): Promise<CheckedBackup> {
  try {
    checkWholeFile(source);
    copyFileSync(source, work);
    const db = await open({ filename: work, driver: sqlite3.Database });
    try {
      // Nothing here writes before cleanSchema has removed the triggers.
      const carried = await readCarried(db, source);
      const stripped = await cleanSchema(db, source);
      return { ...carried, stripped };
    } finally {
      await db.close();
    }
  } catch (err) {
    rmSync(work, { force: true });
    const refused = inWords(err, source);
    if (/nothing was (restored|changed)/i.test(refused.message)) throw refused;
    throw new RestoreRefused(`${refused.message}; nothing was restored`);
  }
}

/** `2026-11-28T03-30-00Z`: a time as it may stand in a file name. */
export function fileStamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
}

/**
 * Puts a checked copy (`work`, from checkBackup) in place: the database and the data files
 * there are kept as `<name>.before-restore-<stamp>`, the carried files written, and the
 * checked database renamed over heliograph.db last. The data directory must be locked.
 */
export async function putInPlace(options: {
  work: string;
  checked: CheckedBackup;
  dataDir: string;
  pluginsFile: string;
  now: number;
}): Promise<{ stamp: string; replaced: string[] }> {
  const { work, checked, dataDir, pluginsFile } = options;
  const db = await open({ filename: work, driver: sqlite3.Database });
  try {
    await db.exec('DROP TABLE heliograph_backup_info; DROP TABLE heliograph_backup_files');
    // The claim of the process that was writing history when the backup was made is not data:
    // kept, it would lock the restored service out of its history while that process lives.
    await dropHistoryClaim(db);
  } finally {
    await db.close();
  }
  const dbFile = join(dataDir, DATABASE_FILE);
  const stamp = fileStamp(options.now);
  const replaced: string[] = [];
  const aside = (path: string) => {
    if (!existsSync(path)) return;
    renameSync(path, `${path}.before-restore-${stamp}`);
    replaced.push(path);
  };
  for (const suffix of ['', '-wal', '-shm', '-journal']) aside(dbFile + suffix);
  for (const name of DATA_FILES) aside(name === 'plugins.json' ? pluginsFile : join(dataDir, name));
  aside(join(dataDir, 'plugins'));
  for (const file of checked.files) {
    const path = file.name === 'plugins.json' ? pluginsFile : join(dataDir, ...file.name.split('/'));
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, file.content, { mode: 0o600 });
  }
  // Last: the database checked above is the one in place, whatever was written before it.
  renameSync(work, dbFile);
  return { stamp, replaced };
}

/** What the last start did with a staged restore, for GET /api/v1/backups. */
export interface RestoreOutcome {
  /** When it was applied or refused (ms). */
  at: number;
  /** The backup's own info: when and by which version it was made. */
  created: string | null;
  version: string | null;
  stripped: string[];
  /** Why it was not applied (the staged file is kept as `restore-pending.backup.refused-<time>`), or null. */
  error: string | null;
}

/**
 * At a start, before anything is opened: restores `restore-pending.backup` when the service
 * staged one. The checks run again (the file sat on disk across a restart). A refusal or a
 * failure leaves the data directory as it was and the staged file kept aside, and the start
 * goes on with the data it had: a restore never costs the service.
 */
export async function applyPendingRestore(options: {
  dataDir: string;
  pluginsFile: string;
  now: number;
}): Promise<RestoreOutcome | undefined> {
  const { dataDir, now } = options;
  const log = createLogger('backups');
  const pending = join(dataDir, PENDING_RESTORE);
  if (!existsSync(pending)) return undefined;
  const work = join(dataDir, `${DATABASE_FILE}.restoring-${process.pid}`);
  let checked: CheckedBackup | undefined;
  try {
    checked = await checkBackup(pending, work);
    const { stamp, replaced } = await putInPlace({ ...options, work, checked });
    rmSync(pending, { force: true });
    log.info(
      `restored the backup made ${checked.info.created} by version ${checked.info.version}` +
        (checked.stripped.length ? `; removed what Heliograph never makes: ${checked.stripped.join(', ')}` : '') +
        (replaced.length ? `; what was there is kept as <name>.before-restore-${stamp}` : ''),
    );
    return {
      at: now,
      created: checked.info.created ?? null,
      version: checked.info.version ?? null,
      stripped: checked.stripped,
      error: null,
    };
  } catch (err) {
    rmSync(work, { force: true });
    const kept = `${pending}.refused-${fileStamp(now)}`;
    renameSync(pending, kept);
    const error = `the staged restore was not applied, the data is as it was: ${errorMessage(err)} (the file is kept as ${kept})`;
    log.error(error);
    return {
      at: now,
      created: checked?.info.created ?? null,
      version: checked?.info.version ?? null,
      stripped: [],
      error,
    };
  }
}
