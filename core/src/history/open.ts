/**
 * Opening the database file and history so that damage never stops the service.
 *
 * - The file is not a database or SQLite finds it malformed while the core tables are set
 *   up: it is moved aside as `heliograph.db.damaged-<UTC time>` (with its -wal and -shm),
 *   never deleted, and the service starts on a new, empty file. Settings, tokens and the
 *   password live in the same file, so they start afresh too; the log line says so.
 * - History alone cannot be opened (its tables are damaged, or another process writes
 *   history): the service starts without history. Live values, the stream and writes keep
 *   working; GET /api/v1/history answers 503 and the `history` entry of GET /api/v1/plugins
 *   says why and what to do (`heliograph history repair`).
 * Damage inside single rows is handled by the store itself (damage.ts).
 */
import { existsSync, renameSync } from 'node:fs';
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import { migrate, openDatabase, type Db, type Migration } from '../db.js';
import { createLogger, errorMessage } from '../log.js';
import type { DbWriter } from '../db-writer.js';
import { HistoryStore } from './store.js';

const log = createLogger('database');

/** SQLite's answers for a file whose bytes are not (or no longer) a database. */
export function isDamagedFileError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
}

/** `heliograph.db.damaged-2026-11-22T22-30-00Z`: sorts by time, no characters file systems refuse. */
export function setAsideName(file: string, now: number): string {
  return `${file}.damaged-${new Date(now)
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-')}`;
}

/** Moves a database file and its WAL files aside; returns the new name of the main file. */
export function setAside(file: string, now: number): string {
  const target = setAsideName(file, now);
  for (const suffix of ['-wal', '-shm', '']) if (existsSync(file + suffix)) renameSync(file + suffix, target + suffix);
  return target;
}

/**
 * Opens the core database and applies its migrations; a damaged file is set aside and a new
 * one started. `prepare` runs first (the schema check of schema.ts: a newer file is refused
 * untouched, an older one copied before it is upgraded).
 */
export async function openCoreDatabase(
  file: string,
  schema: { migrations: readonly Migration[]; prepare: (db: Db, file: string, now: number) => Promise<unknown> },
  clock: Clock,
): Promise<{ db: Db; setAsideAs?: string }> {
  const { migrations, prepare } = schema;
  let db: Db | undefined;
  try {
    db = await openDatabase(file);
    await prepare(db, file, clock.now());
    await migrate(db, migrations);
    await checkCoreTables(db);
    return { db };
  } catch (err) {
    await db?.close().catch(() => undefined);
    if (!isDamagedFileError(err)) throw err;
    const target = setAside(file, clock.now());
    log.error(
      `${file} could not be read (${errorMessage(err)}); it was moved to ${target} and the service starts with an empty database. ` +
        'History, tokens and the password start afresh: set the password again (`heliograph password set`). The old file is kept for recovery.',
    );
    const fresh = await openDatabase(file);
    await migrate(fresh, migrations);
    return { db: fresh, setAsideAs: target };
  }
}

/**
 * SQLite's quick check of every table but history's (small: settings, tokens, audit,
 * totals), so damage there is found at the start rather than by a crash later. History's
 * tables, which can be large, are checked row by row as they are read (damage.ts).
 */
async function checkCoreTables(db: Db): Promise<void> {
  const tables = await db.all<Array<{ name: string }>>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'history_%' AND name NOT LIKE 'sqlite_%'",
  );
  for (const { name } of tables) {
    const rows = await db.all<Array<{ quick_check: string }>>(`PRAGMA quick_check("${name.replace(/"/g, '""')}")`);
    if (rows.length !== 1 || rows[0]!.quick_check !== 'ok') {
      throw Object.assign(
        new Error(
          `table ${name} is damaged: ${rows
            .map((r) => r.quick_check)
            .slice(0, 3)
            .join('; ')}`,
        ),
        { code: 'SQLITE_CORRUPT' },
      );
    }
  }
}

export type OpenedHistory = { store: HistoryStore; db: Db } | { store: null; reason: string };

/** Opens history on a connection of its own, or says why the service runs without it. */
export async function openHistory(
  file: string,
  clock: Clock,
  config: Config['history'],
  writer?: DbWriter,
): Promise<OpenedHistory> {
  let db: Db | undefined;
  try {
    db = await openDatabase(file);
    const store = await HistoryStore.open({ db, clock, config, writer });
    return { store, db };
  } catch (err) {
    await db?.close().catch(() => undefined);
    const reason = isDamagedFileError(err)
      ? `the history tables of ${file} are damaged (${errorMessage(err)}); stop the server and run \`heliograph history repair\`, which keeps a copy of the damaged file`
      : `${errorMessage(err)}`;
    log.error(`starting without history: ${reason}. Live values, the stream and writes work as usual.`);
    return { store: null, reason };
  }
}
