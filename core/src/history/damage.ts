/**
 * Damaged history: a row of history_blocks whose bytes do not decode (random bytes on an SD
 * card, a torn write), a journal row or a topic's meta that does not parse. Nothing damaged
 * stops the store: the bad row is moved into history_quarantine (kept, never deleted), the
 * time range it covered is remembered, and queries over that range say it was unreadable.
 */
import type { Migration } from '../db.js';
import type { Tier } from './tiers.js';

export const quarantineMigrations: readonly Migration[] = [
  {
    id: 'history:2',
    sql: `
      CREATE TABLE history_quarantine (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        topic_id INTEGER,
        tier INTEGER,
        start INTEGER,
        end INTEGER,
        data BLOB,
        reason TEXT NOT NULL,
        at INTEGER NOT NULL
      );
    `,
  },
];

/** A stored row that could not be read. */
export class HistoryDamageError extends Error {
  constructor(
    readonly topicId: number,
    readonly tier: Tier,
    readonly start: number,
    readonly end: number,
    cause: unknown,
  ) {
    super(
      `history block ${topicId}/${tier}/${start} is damaged: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
}

/** A time range (Unix s) of one tier whose stored history was quarantined as unreadable. */
export interface DamagedRange {
  tier: Tier;
  start: number;
  end: number;
}

/** What the store has found damaged since it opened, for status and logs. */
export interface HistoryHealth {
  /** Rows, journal rows and metas moved to history_quarantine (or, read-only, skipped). */
  quarantined: number;
  /** The latest problems, newest last, each naming what was wrong and what to do. */
  problems: string[];
}

export const REPAIR_HINT =
  'the damaged part was moved to the history_quarantine table; `heliograph history check` lists it';
