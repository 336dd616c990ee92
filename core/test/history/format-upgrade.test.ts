// A database written by the version before segment format 2 (deflate segments, format 1), as
// it was left on disk: this version answers every query from it exactly as that version did,
// writes what changes in format 2 beside the old segments, and still answers the rest the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../src/db.js';
import { SEGMENT_MARK, unpackContainer } from '../../src/history/codec.js';
import { KNOWN_MIGRATIONS, refuseNewer, schemaState } from '../../src/schema.js';
import type { Agg } from '../../src/history/slots.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { allPages, ManualClock, meta, openStore, tempDbFile } from './support.js';

const FIXTURES = join(REPO_ROOT, 'core', 'test', 'history', 'fixtures');

interface Answer {
  topic: string;
  fromMs: number;
  toMs: number;
  groupMs: number;
  agg: Agg;
  points: Array<[number, number]>;
}

/**
 * format1.db: two topics (PV power in W, battery voltage at 0.01 V with some slots of two
 * readings) from 08:00 to 10:00 UTC on 2025-06-29, 06-30 and 07-01, June's day rows packed
 * into its month row; format1-answers.json: what that version answered from it (nowMs: its clock).
 * Both written once by the version before format 2 (commit cd2a82a: recordPast, an hour's
 * upkeep, VACUUM, then store.query page by page); this version cannot write them.
 */
const EXPECTED = JSON.parse(readFileSync(join(FIXTURES, 'format1-answers.json'), 'utf8')) as {
  nowMs: number;
  queries: Answer[];
};

/** The first byte of every segment in the file, by tier. */
async function segmentMarks(db: Awaited<ReturnType<typeof openStore>>['db']): Promise<Array<[number, number, number]>> {
  const rows = await db.all<Array<{ tier: number; start: number; end: number; data: Buffer }>>(
    'SELECT tier, start, end, data FROM history_blocks ORDER BY topic_id, tier, start',
  );
  const out: Array<[number, number, number]> = [];
  for (const row of rows)
    for (const [start, bytes] of unpackContainer(row.start, row.data, row.end)) out.push([row.tier, start, bytes[0]!]);
  return out;
}

test('a database of format-1 segments answers as the version that wrote it did, before and after new writes', async () => {
  const file = tempDbFile();
  copyFileSync(join(FIXTURES, 'format1.db'), file);
  const raw = await openDatabase(file);
  const written = await schemaState(raw);
  await raw.close();
  assert.deepEqual(
    written.pending.filter((id) => id.startsWith('history:')),
    ['history:segment-format-2'],
    "of history's steps, the format step is all that is new",
  );
  const clock = new ManualClock(EXPECTED.nowMs);
  let opened = await openStore(file, clock);
  // The version that wrote the file knew exactly the steps it had applied: opened by this
  // one, the file has a step it does not know, so it refuses to start on it.
  const now = await schemaState(opened.db);
  assert.ok(KNOWN_MIGRATIONS.includes('history:segment-format-2'));
  const olderView = { ...now, unknown: now.applied.filter((id) => !written.applied.includes(id)) };
  assert.throws(() => refuseNewer(olderView, file), /written by a newer Heliograph.*history:segment-format-2/);
  const before = await segmentMarks(opened.db);
  assert.ok(before.length >= 8, 'the fixture holds segments of every tier');
  assert.ok(
    before.every(([, , first]) => (first & 0b110) !== 0b110),
    'all of them in format 1',
  );
  assert.equal(EXPECTED.queries.length, 22);
  for (const q of EXPECTED.queries) {
    const points = await allPages(opened.store, q.topic, q);
    assert.deepEqual(points, q.points, `${q.topic} ${q.groupMs / 1000}s ${q.agg}`);
  }

  // One more PV reading on 07-01 at 12:00: its day, month and year segments are written again.
  const TOPIC = 'inverter_1/pv_power';
  const at = Date.parse('2025-07-01T12:00:00Z');
  await opened.store.recordPast(meta(TOPIC), [[at, 777]]);
  await opened.close();
  opened = await openStore(file, clock);
  const after = await segmentMarks(opened.db);
  const rewritten = after.filter(([, , first]) => first === SEGMENT_MARK);
  assert.ok(rewritten.length >= 3, 'the 10-s day, its month of hours and year of days are now format 2');
  assert.ok(
    after.some(([tier, start, first]) => tier === 10 && start < at / 1000 - 86_400 && (first & 0b110) !== 0b110),
    'June stays in format 1',
  );

  const hour = at / 1000;
  const day = Date.parse('2025-07-01T00:00:00Z') / 1000;
  const daySum = EXPECTED.queries.find((e) => e.topic === TOPIC && e.groupMs === 86_400_000 && e.agg === 'sum')!;
  const oldSum = daySum.points.find(([t]) => t === day)![1];
  for (const q of EXPECTED.queries) {
    const what = `after the new reading: ${q.topic} ${q.groupMs / 1000}s ${q.agg}`;
    const points = await allPages(opened.store, q.topic, q);
    if (q.topic !== TOPIC || q.groupMs === 10_000) {
      assert.deepEqual(points, q.points, what);
    } else if (q.groupMs < 86_400_000) {
      // Minutes and hours: a bucket of its own, at the reading.
      const expected = [...q.points, [hour, 777]].sort((a, b) => a[0]! - b[0]!);
      assert.deepEqual(points, expected, what);
    } else {
      // Days: 07-01 holds its 720 readings and this one.
      const expected = q.points.map(([t, v]): [number, number] => {
        if (t !== day) return [t, v];
        if (q.agg === 'sum') return [t, oldSum + 777];
        if (q.agg === 'max') return [t, Math.max(v, 777)];
        return [t, (oldSum + 777) / 721];
      });
      assert.equal(points.length, expected.length, what);
      points.forEach(([t, v], i) => {
        assert.equal(t, expected[i]![0], what);
        assert.ok(Math.abs(v - expected[i]![1]) <= 0.0005, `${what}: ${v} against ${expected[i]![1]}`);
        if (q.agg !== 'mean') assert.equal(v, expected[i]![1], what);
      });
    }
  }
  await opened.close();
});
