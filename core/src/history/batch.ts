/**
 * One flush's writes in one transaction: topics, quarantined rows (copied before their
 * deletion), deleted and changed rows, and the journal. All or nothing: on failure it is
 * rolled back and the caller keeps everything to write again at the next flush.
 */
import type { Db } from '../db.js';
import { packContainer } from './codec.js';
import type { DamageLog } from './damage-log.js';
import { journalPayload } from './journal.js';
import type { Row, RowCache } from './rows.js';
import type { TopicRecord } from './topic-record.js';

export interface Batch {
  topics: readonly TopicRecord[];
  quarantined: ReadonlyArray<{ row: Row; reason: string }>;
  deleted: readonly Row[];
  rows: readonly Row[];
  /** The journal starts afresh. */
  reset: boolean;
  journal: Buffer | null;
}

export async function writeBatch(db: Db, batch: Batch, now: number): Promise<void> {
  const { topics, quarantined, deleted, rows, reset, journal } = batch;
  // IMMEDIATE takes the write lock up front (waiting out another connection's writes)
  // rather than failing halfway when a read would have to become a write.
  await db.exec('BEGIN IMMEDIATE');
  try {
    for (const t of topics) {
      await db.run(
        'INSERT INTO history_topics (id, topic, meta, scale, evicted_before) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET meta = excluded.meta, scale = excluded.scale, evicted_before = excluded.evicted_before',
        t.id,
        t.topic,
        JSON.stringify(t.meta),
        t.scale,
        t.evictedBefore,
      );
    }
    // Before the deletes below, which take damaged rows out of history_blocks.
    for (const { row, reason } of quarantined) {
      await db.run(
        "INSERT INTO history_quarantine (kind, topic_id, tier, start, end, data, reason, at) VALUES ('block', ?, ?, ?, ?, (SELECT data FROM history_blocks WHERE topic_id = ? AND tier = ? AND start = ?), ?, ?)",
        row.topicId,
        row.tier,
        row.start,
        row.end,
        row.topicId,
        row.tier,
        row.start,
        reason,
        now,
      );
    }
    for (const row of deleted)
      await db.run(
        'DELETE FROM history_blocks WHERE topic_id = ? AND tier = ? AND start = ?',
        row.topicId,
        row.tier,
        row.start,
      );
    for (const row of rows) {
      const data = packContainer(row.start, row.container!);
      row.size = data.length;
      await db.run(
        'INSERT OR REPLACE INTO history_blocks (topic_id, tier, start, end, data) VALUES (?, ?, ?, ?, ?)',
        row.topicId,
        row.tier,
        row.start,
        row.end,
        data,
      );
    }
    if (reset) await db.run('DELETE FROM history_journal');
    if (journal) await db.run('INSERT INTO history_journal (data) VALUES (?)', journal);
    await db.exec('COMMIT');
  } catch (err) {
    // SQLite ends the transaction itself on some errors (a full disk): the ROLLBACK would
    // then fail and hide why the batch did.
    await db.exec('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** What a flush has to write, as the store holds it. */
export interface Changes {
  records: Iterable<TopicRecord>;
  cache: RowCache;
  damage: DamageLog;
  /** The journal starts afresh. */
  reset: boolean;
}

/**
 * Gathers the changed topics and rows, the rows set aside or deleted, and the journal into
 * one batch and has `write` write it; marks them written once it has. When the write fails,
 * everything is kept to be written at the next flush and the error is thrown.
 */
export async function commitChanges(changes: Changes, write: (batch: Batch) => Promise<void>): Promise<void> {
  const { cache, damage, reset } = changes;
  const records = [...changes.records];
  const topics = records.filter((t) => t.dirty);
  const deleted = cache.deleted;
  cache.deleted = [];
  const rows = [...cache.dirty];
  const journal = journalPayload(records, reset);
  const quarantined = damage.takePending();
  const nothing = topics.length === 0 && deleted.length === 0 && rows.length === 0 && quarantined.length === 0;
  if (nothing && !reset && journal === null) return;
  for (const t of topics) t.dirty = false;
  try {
    await write({ topics, quarantined, deleted, rows, reset, journal });
  } catch (err) {
    for (const t of topics) t.dirty = true;
    cache.deleted.unshift(...deleted);
    damage.putBack(quarantined);
    throw err;
  }
  for (const row of rows) {
    row.dirty = false;
    cache.dirty.delete(row);
  }
}
