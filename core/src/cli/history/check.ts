/**
 * `heliograph history check` reads the whole database without changing it: SQLite's own
 * integrity check, then every history row decoded, and lists what is damaged and what was
 * set aside before. Exit 0 when nothing is damaged, 1 when something is.
 *
 * `heliograph history repair` (server stopped) fixes what check finds, deleting nothing:
 * damaged rows go to history_quarantine; a file SQLite itself finds malformed is rebuilt
 * from everything still readable, and the damaged file is kept as
 * `heliograph.db.damaged-<time>`.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { systemClock } from '../../clock.js';
import { openDatabase, type Db } from '../../db.js';
import { errorMessage } from '../../log.js';
import { decodeSegment, unpackContainer } from '../../history/codec.js';
import { setAside } from '../../history/open.js';
import { maxLastOff, segmentLength, type Tier } from '../../history/tiers.js';
import { databaseFile, openStore, parse, type HistoryCommandOptions } from './common.js';
import { rebuildDatabase } from './rebuild.js';

export async function checkHistory(rest: string[], options: HistoryCommandOptions): Promise<number> {
  parse(rest, false);
  const out = options.stdout ?? process.stdout;
  const file = databaseFile(options);
  if (!existsSync(file)) throw new Error(`${file} does not exist: nothing to check (is --data right?)`);
  let db: Db;
  try {
    db = await openDatabase(file);
  } catch (err) {
    out.write(
      `${file}: cannot be opened as a database (${errorMessage(err)}).\nRun \`heliograph history repair\`: it keeps this file and starts a new one.\n`,
    );
    return 1;
  }
  let damaged = 0;
  try {
    const integrity = await sqliteIntegrity(db);
    if (integrity.length > 0) {
      damaged += integrity.length;
      out.write(`SQLite finds the file damaged:\n${integrity.map((l) => `  ${l}`).join('\n')}\n`);
    }
    const bad = await undecodableRows(db);
    for (const b of bad) out.write(`damaged: ${b}\n`);
    damaged += bad.length;
    const kept = await db
      .all<Array<{ kind: string; n: number }>>('SELECT kind, count(*) AS n FROM history_quarantine GROUP BY kind')
      .catch(() => []);
    for (const k of kept) out.write(`set aside earlier (kept in history_quarantine): ${k.n} ${k.kind} row(s)\n`);
  } finally {
    await db.close();
  }
  if (damaged === 0) {
    out.write('history is readable: no damage found\n');
    return 0;
  }
  out.write(
    `${damaged} problem(s) found. Stop the server and run \`heliograph history repair\`; nothing is deleted (damaged rows are moved to history_quarantine, a damaged file is kept beside the new one).\n`,
  );
  return 1;
}

export async function repairHistory(rest: string[], options: HistoryCommandOptions): Promise<number> {
  parse(rest, false);
  const out = options.stdout ?? process.stdout;
  const clock = options.clock ?? systemClock;
  const file = databaseFile(options);
  if (!existsSync(file)) throw new Error(`${file} does not exist: nothing to repair (is --data right?)`);
  let fileOk: boolean;
  try {
    const db = await openDatabase(file);
    try {
      fileOk = (await sqliteIntegrity(db)).length === 0;
    } finally {
      await db.close();
    }
  } catch {
    fileOk = false;
  }
  if (!fileOk) {
    const next = `${file}.repairing`;
    rmSync(next, { force: true });
    const report = await rebuildDatabase(file, next);
    const aside = setAside(file, clock.now());
    renameSync(next, file);
    out.write(`${report}\nThe damaged file is kept as ${aside}.\n`);
  }
  const { db, store } = await openStore(options, false);
  try {
    const set = await store.scrub();
    const health = store.healthReport;
    for (const p of health.problems) out.write(`set aside: ${p}\n`);
    out.write(
      `repair done: ${set} damaged block(s) found now, ${health.quarantined} row(s) moved to history_quarantine in all; the rest of history is served as before\n`,
    );
  } finally {
    await store.close();
    await db.close();
  }
  return 0;
}

/** SQLite's integrity_check lines, empty when the file is sound. */
async function sqliteIntegrity(db: Db): Promise<string[]> {
  try {
    const rows = await db.all<Array<{ integrity_check: string }>>('PRAGMA integrity_check(20)');
    const lines = rows.map((r) => r.integrity_check);
    return lines.length === 1 && lines[0] === 'ok' ? [] : lines;
  } catch (err) {
    return [errorMessage(err)];
  }
}

/** Every history row (block, journal, topic) that does not decode, one line each. */
async function undecodableRows(db: Db): Promise<string[]> {
  const out: string[] = [];
  const hasHistory = await db.get<{ 1: number }>("SELECT 1 FROM sqlite_master WHERE name = 'history_blocks'");
  if (!hasHistory) return out;
  const topics = new Map<number, string>();
  for (const t of await db.all<Array<{ id: number; topic: string; meta: string }>>(
    'SELECT id, topic, meta FROM history_topics',
  )) {
    topics.set(t.id, t.topic);
    try {
      JSON.parse(t.meta);
    } catch {
      out.push(`history_topics row ${t.id} (${t.topic}): meta is not JSON`);
    }
  }
  // One row at a time (each() streams), so a large database is checked in little memory.
  await db.each<{ topic_id: number; tier: Tier; start: number; end: number; data: Buffer }>(
    'SELECT topic_id, tier, start, end, data FROM history_blocks',
    (err, row) => {
      if (err) return out.push(`history_blocks: ${errorMessage(err)}`);
      const where = `${topics.get(row.topic_id) ?? `topic ${row.topic_id}`} ${row.tier}-s block from ${new Date(row.start * 1000).toISOString()}`;
      try {
        const container = unpackContainer(row.start, row.data, row.end);
        for (const [start, bytes] of container) {
          const seg = decodeSegment(bytes, maxLastOff(row.tier));
          if (seg.count.length !== segmentLength(row.tier, start)) throw new Error('a segment of the wrong length');
        }
      } catch (e) {
        out.push(`${where}: ${errorMessage(e)}`);
      }
    },
  );
  return out;
}
