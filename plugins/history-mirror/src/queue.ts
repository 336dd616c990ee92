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
    return new DiskQueue(db);
  }

  /** Appends a batch in one transaction; batches are written in the order they came. */
  append(readings: readonly RecordedReading[]): Promise<void> {
    const run = this.writing.then(() => this.insert(readings));
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

  async size(): Promise<number> {
    await this.writing;
    const row = await this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM queue');
    return row?.n ?? 0;
  }

  async close(): Promise<void> {
    await this.writing;
    await this.db.close();
  }

  private async insert(readings: readonly RecordedReading[]): Promise<void> {
    await this.db.exec('BEGIN');
    try {
      const statement = await this.db.prepare('INSERT INTO queue (topic, time, value) VALUES (?, ?, ?)');
      for (const r of readings) await statement.run(r.topic, r.time, r.value);
      await statement.finalize();
      await this.db.exec('COMMIT');
    } catch (err) {
      await this.db.exec('ROLLBACK');
      throw err;
    }
  }
}
