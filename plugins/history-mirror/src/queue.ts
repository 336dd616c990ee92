import { join } from 'node:path';
import { open, type Database } from 'sqlite';
import sqlite3 from 'sqlite3';
import type { RecordedReading } from '@heliograph/plugins-sdk';

export interface QueuedReading extends RecordedReading {
  id: number;
}

/**
 * The readings not yet accepted by the target, in an SQLite file of the instance's own
 * (`<data>/plugins/<id>/queue.db`): it survives an outage of the target and a restart of
 * the service, and holds what it holds in order, so the target gets everything it missed.
 * Readings are appended as the Recorder hands them on and deleted once the target took them.
 * With each batch the feed's position of it is kept (in the same transaction), so a start
 * of the instance asks the core for exactly the batches after it (`onRecorded({ after })`).
 */
export class DiskQueue {
  private writing: Promise<unknown> = Promise.resolve();

  private constructor(private readonly db: Database) {}

  static async open(dir: string): Promise<DiskQueue> {
    const db = await open({ filename: join(dir, 'queue.db'), driver: sqlite3.Database });
    await db.exec('PRAGMA journal_mode = WAL');
    await db.exec(
      'CREATE TABLE IF NOT EXISTS queue (id INTEGER PRIMARY KEY, topic TEXT NOT NULL, time INTEGER NOT NULL, value REAL NOT NULL)',
    );
    await db.exec(
      'CREATE TABLE IF NOT EXISTS position (id INTEGER PRIMARY KEY CHECK (id = 1), position TEXT NOT NULL)',
    );
    return new DiskQueue(db);
  }

  /** Appends a batch and its position in one transaction; batches are written in the order they came. */
  append(readings: readonly RecordedReading[], position: string): Promise<void> {
    const run = this.writing.then(() => this.insert(readings, position));
    this.writing = run.catch(() => undefined);
    return run;
  }

  /** The oldest `limit` readings. */
  async head(limit: number): Promise<QueuedReading[]> {
    await this.writing;
    return this.db.all<QueuedReading[]>('SELECT id, topic, time, value FROM queue ORDER BY id LIMIT ?', limit);
  }

  /** The target took everything up to `id`. */
  async drop(upToId: number): Promise<void> {
    await this.db.run('DELETE FROM queue WHERE id <= ?', upToId);
  }

  /** The position of the last batch queued, or null before the first. */
  async position(): Promise<string | null> {
    await this.writing;
    const row = await this.db.get<{ position: string }>('SELECT position FROM position WHERE id = 1');
    return row?.position ?? null;
  }

  async size(): Promise<number> {
    await this.writing;
    const row = await this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM queue');
    return row?.n ?? 0;
  }

  async close(): Promise<void> {
    await this.writing;
    await this.db.close();
  }

  private async insert(readings: readonly RecordedReading[], position: string): Promise<void> {
    await this.db.exec('BEGIN');
    try {
      const statement = await this.db.prepare('INSERT INTO queue (topic, time, value) VALUES (?, ?, ?)');
      for (const r of readings) await statement.run(r.topic, r.time, r.value);
      await statement.finalize();
      await this.db.run('INSERT OR REPLACE INTO position (id, position) VALUES (1, ?)', position);
      await this.db.exec('COMMIT');
    } catch (err) {
      await this.db.exec('ROLLBACK');
      throw err;
    }
  }
}
