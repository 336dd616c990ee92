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

/** Applies the migrations not yet applied, each in its own transaction. */
export async function migrate(db: Db, migrations: readonly Migration[]): Promise<void> {
  for (const m of migrations) {
    const done = await db.get<{ 1: number }>('SELECT 1 FROM migrations WHERE id = ?', m.id);
    if (done) continue;
    await db.exec('BEGIN');
    try {
      await db.exec(m.sql);
      await db.run('INSERT INTO migrations (id, applied_at) VALUES (?, ?)', m.id, Date.now());
      await db.exec('COMMIT');
    } catch (err) {
      // SQLite ends the transaction itself on some errors (a full disk): the ROLLBACK would
      // then fail and hide why the migration did.
      await db.exec('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }
}
