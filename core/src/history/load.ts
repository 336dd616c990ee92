/**
 * Reading what the store keeps in memory at start: topics, the index of rows, quarantined
 * ranges, and the journal's unsaved slots. A row that does not parse is set aside (see
 * damage.ts) instead of stopping the start: a topic's meta that is not what this version
 * wrote gets one made from its topic, and a journal row that does not decode is moved to
 * history_quarantine. Each such problem is returned, naming the row and what to do.
 */
import { z } from 'zod';
import type { Db } from '../db.js';
import { replayJournal } from './journal.js';
import { Row, TIERS, type Tier } from './rows.js';
import { metaFromTopic, TopicRecord } from './topic-record.js';

const storedMeta = z.object({
  deviceId: z.string(),
  device: z.string(),
  group: z.string(),
  name: z.string(),
  unit: z.string(),
});

export interface Loaded {
  records: TopicRecord[];
  nextId: number;
  /** The journal held rows: the next commit writes it afresh. */
  journalReplayed: boolean;
  problems: string[];
  quarantined: number;
}

export async function loadHistory(db: Db, readOnly: boolean): Promise<Loaded> {
  const problems: string[] = [];
  let quarantined = 0;
  const byId = new Map<number, TopicRecord>();
  let nextId = 1;
  const topics = await db.all<
    Array<{ id: number; topic: string; meta: string; scale: number; evicted_before: number }>
  >('SELECT id, topic, meta, scale, evicted_before FROM history_topics');
  for (const t of topics) {
    let meta = parseMeta(t.meta);
    const usable = meta !== undefined && Number.isInteger(t.scale) && t.scale >= 0 && t.scale <= 12;
    if (!usable) {
      problems.push(
        `history_topics row ${t.id} (${t.topic}) has a meta or scale this version cannot read; the topic keeps its history under a name made from its topic${readOnly ? '' : ' and its old meta was moved to history_quarantine'}`,
      );
      if (!readOnly) {
        await db.run(
          "INSERT INTO history_quarantine (kind, topic_id, data, reason, at) VALUES ('topic-meta', ?, ?, ?, ?)",
          t.id,
          `${t.meta} (scale ${t.scale})`,
          'unreadable meta',
          Date.now(),
        );
        quarantined++;
      }
      meta = metaFromTopic(t.topic);
    }
    const rec = new TopicRecord(
      t.id,
      t.topic,
      meta!,
      usable ? t.scale : 6,
      Number.isFinite(t.evicted_before) ? t.evicted_before : 0,
    );
    rec.dirty = !usable;
    byId.set(t.id, rec);
    nextId = Math.max(nextId, t.id + 1);
  }
  const rows = await db.all<Array<{ topic_id: number; tier: Tier; start: number; end: number; size: number }>>(
    'SELECT topic_id, tier, start, end, length(data) AS size FROM history_blocks',
  );
  for (const r of rows) {
    if (!(TIERS as readonly number[]).includes(r.tier)) continue;
    byId.get(r.topic_id)?.rows[r.tier].byStart.set(r.start, new Row(r.topic_id, r.tier, r.start, r.end, r.size));
  }
  const damaged = await db.all<Array<{ topic_id: number; tier: Tier; start: number; end: number }>>(
    "SELECT topic_id, tier, start, end FROM history_quarantine WHERE kind = 'block'",
  );
  for (const d of damaged) byId.get(d.topic_id)?.damaged.push({ tier: d.tier, start: d.start, end: d.end });

  const journal = await db.all<Array<{ id: number; data: Buffer }>>('SELECT id, data FROM history_journal ORDER BY id');
  for (const { id, data } of journal) {
    try {
      // Decoded in full before any slot is applied, so a bad row changes nothing.
      replayJournal(data, byId, true);
      replayJournal(data, byId);
    } catch (err) {
      problems.push(
        `history journal row ${id} could not be read (${err instanceof Error ? err.message : String(err)}): up to one flush interval of readings is missing${readOnly ? '' : '; the row was moved to history_quarantine'}`,
      );
      if (!readOnly) {
        await db.run(
          "INSERT INTO history_quarantine (kind, data, reason, at) SELECT 'journal', data, ?, ? FROM history_journal WHERE id = ?",
          'unreadable journal row',
          Date.now(),
          id,
        );
        await db.run('DELETE FROM history_journal WHERE id = ?', id);
        quarantined++;
      }
    }
  }
  return { records: [...byId.values()], nextId, journalReplayed: journal.length > 0, problems, quarantined };
}

function parseMeta(text: string) {
  try {
    const parsed = storedMeta.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
