import { open, type Database } from 'sqlite';
import sqlite3 from 'sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type Db = Database<sqlite3.Database, sqlite3.Statement>;

/** A schema step of one concern; each concern names its own steps (`auth:1`, `history:1`). */
export interface Migration {
  id: string;
  sql: string;
}

/**
 * Opens the one database file of the data dir in WAL mode. WAL keeps readers (API queries)
 * from blocking the recorder's batched writes, and `synchronous = NORMAL` is durable across
 * process crashes, which is what a power cut on an SD card needs most.
 */
export async function openDatabase(file: string): Promise<Db> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = await open({ filename: file, driver: sqlite3.Database });
  await db.exec(
    'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;',
  );
  await db.exec('CREATE TABLE IF NOT EXISTS migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
  return db;
}

/**
 * Applies the migrations not yet applied, all of them in one transaction: a failure (a full
 * disk, a power cut) leaves the schema as it was, never half upgraded.
 */
export async function migrate(db: Db, migrations: readonly Migration[]): Promise<void> {
  const applied = new Set((await db.all<Array<{ id: string }>>('SELECT id FROM migrations')).map((row) => row.id));
  const pending = migrations.filter((m) => !applied.has(m.id));
  if (pending.length === 0) return;
  await db.exec('BEGIN');
  try {
    for (const m of pending) {
      await db.exec(m.sql);
      await db.run('INSERT INTO migrations (id, applied_at) VALUES (?, ?)', m.id, Date.now());
    }
    await db.exec('COMMIT');
  } catch (err) {
    // SQLite ends the transaction itself on some errors (a full disk): the ROLLBACK would
    // then fail and hide why the migration did.
    await db.exec('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

interface SqliteBackup {
  step(pages: number, done: (err: Error | null) => void): void;
  finish(done: (err: Error | null) => void): void;
  readonly completed: boolean;
}

/**
 * A consistent copy of the open database in `dest`, taken with SQLite's online backup while
 * others keep reading and writing (in WAL mode a writer is not held up).
 */
export async function onlineBackup(db: Db, dest: string): Promise<void> {
  // sqlite3 ships no types for its backup API (Database#backup, lib/sqlite3.js).
  const raw = db.getDatabaseInstance() as unknown as {
    backup(dest: string, done: (err: Error | null) => void): SqliteBackup;
  };
  await new Promise<void>((resolve, reject) => {
    const backup = raw.backup(dest, (err: Error | null) => {
      if (err) return reject(err);
      // -1: every page in one step, so no other connection's write restarts it half way.
      backup.step(-1, (stepErr: Error | null) => {
        backup.finish(() =>
          stepErr ? reject(stepErr) : backup.completed ? resolve() : reject(new Error('the backup did not complete')),
        );
      });
    });
  });
}
