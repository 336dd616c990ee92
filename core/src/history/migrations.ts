import type { Migration } from '../db.js';

/**
 * The history tables. Readings live in compressed blocks (codec.ts), one row per topic,
 * tier and day or month, never one row per reading: a year of 10-s data for one topic is
 * a dozen rows. `tier` is the entry length in seconds (10, 60, 3600, 86400).
 * history_owner names the process writing history (owner.ts).
 */
export const historyMigrations: readonly Migration[] = [
  {
    id: 'history:1',
    sql: `
      CREATE TABLE history_topics (
        id INTEGER PRIMARY KEY,
        topic TEXT NOT NULL UNIQUE,
        meta TEXT NOT NULL,
        scale INTEGER NOT NULL,
        evicted_before INTEGER NOT NULL
      );
      CREATE TABLE history_blocks (
        topic_id INTEGER NOT NULL REFERENCES history_topics (id),
        tier INTEGER NOT NULL,
        start INTEGER NOT NULL,
        end INTEGER NOT NULL,
        data BLOB NOT NULL,
        UNIQUE (topic_id, tier, start)
      );
      CREATE TABLE history_journal (
        id INTEGER PRIMARY KEY,
        data BLOB NOT NULL
      );
      CREATE TABLE history_owner (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        since INTEGER NOT NULL
      );
    `,
  },
  {
    // No table changes: blocks are written in segment format 2 from now on (codec.ts), which
    // a version before it would take for damage. The step makes such a version refuse the
    // file at its start (schema.ts), and this one back up the file before its first write.
    id: 'history:segment-format-2',
    sql: 'SELECT 1',
  },
];
