// History's rows in memory, on a real SQLite file: where each tier's segments and rows start
// and end, which row holds a time, and the row cache's promises: a row missing from the
// database or damaged on disk fails loudly, a row being written is never dropped, memory held
// stays under its limits (least recently used first) and is all given back on release.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptySegment, encodeSegment, packContainer, type Segment } from '../../src/history/codec.js';
import { HistoryDamageError } from '../../src/history/damage.js';
import { historyMigrations } from '../../src/history/migrations.js';
import { Row, RowCache, RowSet } from '../../src/history/rows.js';
import { maxLastOff, segmentEnd, segmentLength, segmentStart, type Tier } from '../../src/history/tiers.js';
import { migrate, openDatabase, type Db } from '../../src/db.js';
import { tempDbFile } from './support.js';

const DAY = 86_400;
const utc = (iso: string): number => Date.parse(iso) / 1000;

test('each tier keeps a day, a month or a year per segment', () => {
  const t = utc('2024-02-10T13:14:15Z');
  assert.equal(segmentStart(10, t), utc('2024-02-10T00:00:00Z'));
  assert.equal(segmentStart(60, t), utc('2024-02-10T00:00:00Z'));
  assert.equal(segmentStart(3600, t), utc('2024-02-01T00:00:00Z'));
  assert.equal(segmentStart(86400, t), utc('2024-01-01T00:00:00Z'));
  assert.equal(segmentStart(10, -1), -DAY, 'a time before 1970 belongs to the day before');
  assert.equal(segmentStart(10, utc('2024-02-10T00:00:00Z')), utc('2024-02-10T00:00:00Z'), 'midnight starts its day');

  assert.equal(segmentEnd(10, utc('2024-02-10T00:00:00Z')), utc('2024-02-11T00:00:00Z'));
  assert.equal(segmentEnd(3600, utc('2024-02-01T00:00:00Z')), utc('2024-03-01T00:00:00Z'));
  assert.equal(segmentEnd(86400, utc('2024-01-01T00:00:00Z')), utc('2025-01-01T00:00:00Z'));

  assert.equal(segmentLength(10, utc('2024-02-10T00:00:00Z')), 8640);
  assert.equal(segmentLength(60, utc('2024-02-10T00:00:00Z')), 1440);
  assert.equal(segmentLength(3600, utc('2024-02-01T00:00:00Z')), 29 * 24, 'a leap February');
  assert.equal(segmentLength(86400, utc('2024-01-01T00:00:00Z')), 366);
  assert.equal(segmentLength(86400, utc('2025-01-01T00:00:00Z')), 365);

  assert.deepEqual(
    [10, 60, 3600, 86400].map((tier) => maxLastOff(tier as Tier)),
    [0, 5, 359, 8639],
  );
});

test('a row set finds the row holding a time: day rows, or the month row they were merged into', () => {
  const day = new RowSet(10);
  const feb10 = utc('2024-02-10T00:00:00Z');
  const jan = utc('2024-01-01T00:00:00Z');
  const dayRow = new Row(1, 10, feb10, feb10 + DAY, 0);
  const monthRow = new Row(1, 10, jan, jan + 20 * DAY, 0); // a month row covering Jan 1-20
  day.byStart.set(feb10, dayRow);
  day.byStart.set(jan, monthRow);
  assert.equal(day.containing(feb10 + 3600), dayRow);
  assert.equal(day.containing(feb10 - 1), undefined, 'the day before has no row');
  assert.equal(day.containing(jan + 5 * DAY + 7), monthRow, 'inside the month row');
  assert.equal(day.containing(jan + 20 * DAY - 1), monthRow, 'its last second');
  assert.equal(day.containing(jan + 20 * DAY), undefined, 'past its end');

  const hours = new RowSet(3600);
  const hourRow = new Row(1, 3600, utc('2024-02-01T00:00:00Z'), utc('2024-03-01T00:00:00Z'), 0);
  hours.byStart.set(hourRow.start, hourRow);
  assert.equal(hours.containing(utc('2024-02-29T23:00:00Z')), hourRow);
  assert.equal(hours.containing(utc('2024-03-01T00:00:00Z')), undefined);

  const days = new RowSet(86400);
  const yearRow = new Row(1, 86400, jan, utc('2025-01-01T00:00:00Z'), 0);
  days.byStart.set(jan, yearRow);
  assert.equal(days.containing(utc('2024-12-31T00:00:00Z')), yearRow);
  assert.equal(days.containing(utc('2025-01-01T00:00:00Z')), undefined);

  // Rows overlapping a range, by start, touching ends excluded.
  const set = new RowSet(10);
  const rows = [3, 1, 2].map((d) => new Row(1, 10, d * DAY, (d + 1) * DAY, 0));
  for (const r of rows) set.byStart.set(r.start, r);
  assert.deepEqual(
    set.overlapping(DAY, 4 * DAY).map((r) => r.start),
    [DAY, 2 * DAY, 3 * DAY],
  );
  assert.deepEqual(
    set.overlapping(2 * DAY, 3 * DAY).map((r) => r.start),
    [2 * DAY],
    'rows ending at from or starting at to are left out',
  );
  assert.deepEqual(
    set.overlapping(2 * DAY + 1, 2 * DAY + 2).map((r) => r.start),
    [2 * DAY],
  );
});

interface Fixture {
  db: Db;
  cache: RowCache;
  close(): Promise<void>;
}

async function fixture(rowLimit?: number, decodedLimit?: number): Promise<Fixture> {
  const db = await openDatabase(tempDbFile());
  await migrate(db, historyMigrations);
  await db.run("INSERT INTO history_topics (id, topic, meta, scale, evicted_before) VALUES (1, 'a/b', '{}', 0, 0)");
  return { db, cache: new RowCache(db, rowLimit, decodedLimit), close: () => db.close() };
}

/** A day of 10-s slots with one reading in slot `i` of value `v`. */
function daySegment(i: number, v: number): Segment {
  const seg = emptySegment(8640, 0, false);
  seg.count[i] = 1;
  seg.sum[i] = seg.min[i] = seg.max[i] = seg.last[i] = v;
  return seg;
}

/**
 * Reads a row's segment again: 'kept' when the cache answers `held` as it was, 'decoded' when
 * the bytes were decoded anew (into new arrays, or into `held`'s own arrays once it was dropped:
 * a mark put into it is gone then).
 */
function readAgain(cache: RowCache, row: Row, held: Segment): 'kept' | 'decoded' {
  const mark = -12345;
  held.sum[0] = mark;
  const seg = cache.segment(row, row.start)!;
  return seg === held && seg.sum[0] === mark ? 'kept' : 'decoded';
}

/** Stores a row of topic 1 and answers it, not yet loaded. */
async function storedRow(db: Db, tier: Tier, start: number, bytes: Buffer): Promise<Row> {
  const end = segmentEnd(tier, start);
  await db.run(
    'INSERT INTO history_blocks (topic_id, tier, start, end, data) VALUES (1, ?, ?, ?, ?)',
    tier,
    start,
    end,
    bytes,
  );
  return new Row(1, tier, start, end, bytes.length);
}

/** Stores a 10-s day row holding `seg` and answers the row, not yet loaded. */
async function storedDay(db: Db, start: number, seg: Segment | Buffer = daySegment(0, 1)): Promise<Row> {
  return storedRow(
    db,
    10,
    start,
    Buffer.isBuffer(seg) ? seg : packContainer(start, new Map([[start, encodeSegment(seg)]])),
  );
}

test('loading reads rows from the database once, and a row missing or damaged there is reported', async () => {
  const f = await fixture();
  const row = await storedDay(f.db, 0, daySegment(5, 42));
  assert.equal(row.loaded, false);
  await f.cache.load([row]);
  assert.equal(row.loaded, true);
  assert.equal(f.cache.segment(row, 0)!.last[5], 42);
  assert.equal(f.cache.segment(row, DAY), undefined, 'a segment the row does not hold');

  // Loaded rows are not read again: the database row going away changes nothing.
  await f.db.run('DELETE FROM history_blocks');
  await f.cache.load([row]);
  assert.equal(f.cache.segment(row, 0)!.last[5], 42);

  const missing = new Row(1, 10, DAY, 2 * DAY, 0);
  await assert.rejects(
    f.cache.load([missing]),
    (err: unknown) =>
      err instanceof HistoryDamageError && err.start === DAY && /missing from the database/.test(err.message),
  );
  const gone = new Row(1, 10, 3 * DAY, 4 * DAY, 0);
  gone.deleted = true;
  await f.cache.load([gone]);
  assert.equal(gone.loaded, false, 'a row deleted meanwhile is not brought back');

  const damaged = await storedDay(f.db, 2 * DAY, Buffer.from([0x91, 0x03]));
  await assert.rejects(
    f.cache.load([damaged]),
    (err: unknown) =>
      err instanceof HistoryDamageError && err.start === 2 * DAY && /at most 400 segments/.test(err.message),
  );
  await f.close();
});

test('a segment that does not decode, or of the wrong length, is damage of its row', async () => {
  const f = await fixture();
  const start = 5 * DAY;
  const garbage = packContainer(start, new Map([[start, Buffer.from([1, 2, 3, 4])]]));
  const row = await storedDay(f.db, start, garbage);
  await f.cache.load([row]);
  assert.throws(() => f.cache.segment(row, start), HistoryDamageError);

  const short = packContainer(start + DAY, new Map([[start + DAY, encodeSegment(emptySegment(100, 0, false))]]));
  const shortRow = await storedDay(f.db, start + DAY, short);
  await f.cache.load([shortRow]);
  assert.throws(
    () => f.cache.segment(shortRow, start + DAY, true),
    (err: unknown) =>
      err instanceof HistoryDamageError && /a segment of 100 entries where 8640 belong/.test(err.message),
  );
  await f.close();
});

test('decoded segments are kept for the next read, transient reads share one scratch segment', async () => {
  const f = await fixture();
  const a = await storedDay(f.db, 0, daySegment(1, 10));
  const b = await storedDay(f.db, DAY, daySegment(2, 20));
  await f.cache.load([a, b]);
  const kept = f.cache.segment(a, 0)!;
  assert.equal(f.cache.segment(a, 0), kept, 'the second read is the kept segment');

  const first = f.cache.segment(b, DAY, true)!;
  assert.equal(first.last[2], 20);
  const held = f.cache.heldBytes;
  const second = f.cache.segment(b, DAY, true)!;
  assert.equal(second, first, 'transient reads reuse one segment');
  assert.equal(f.cache.heldBytes, held, 'and keep nothing');
  assert.notEqual(f.cache.segment(b, DAY), first, 'a kept read does not hand out the scratch');

  // A new version of a segment replaces the kept one; the row is to be written.
  const next = daySegment(3, 30);
  f.cache.putSegment(a, 0, next);
  assert.equal(f.cache.segment(a, 0), next);
  assert.equal(a.dirty, true);
  assert.ok(f.cache.dirty.has(a));
  await f.close();
});

test('the bytes held count the rows and the decoded arrays, and release gives back all but rows being written', async () => {
  const f = await fixture();
  const a = await storedDay(f.db, 0, daySegment(1, 10));
  const b = await storedDay(f.db, DAY, daySegment(2, 20));
  assert.equal(f.cache.heldBytes, 0);
  await f.cache.load([a, b]);
  const rowsOnly = f.cache.heldBytes;
  assert.ok(rowsOnly >= a.size + b.size, `rows of ${a.size + b.size} bytes counted as ${rowsOnly}`);
  f.cache.segment(a, 0);
  const decoded = f.cache.heldBytes - rowsOnly;
  // Five Float64Arrays of 8640 entries.
  assert.ok(decoded >= 8640 * 40 && decoded < 8640 * 64, `a decoded day counted as ${decoded} bytes`);
  f.cache.segment(a, 0);
  assert.equal(f.cache.heldBytes - rowsOnly, decoded, 'the same segment is counted once');

  f.cache.putSegment(b, DAY, daySegment(4, 40));
  f.cache.release();
  assert.equal(a.loaded, false, 'a clean row is dropped');
  assert.equal(b.loaded, true, 'a row being written stays');
  const held = f.cache.heldBytes;
  assert.ok(held > 0 && held < rowsOnly, `only the dirty row is held (${held} of ${rowsOnly} bytes)`);
  f.cache.segment(b, DAY);
  assert.equal(f.cache.heldBytes - held, decoded, 'decoded segments were let go too: reading one counts it again');
  await f.close();
});

test('over its limit the cache drops the least recently used clean rows down to 80 % of it', async () => {
  const f = await fixture();
  const rows = await Promise.all([0, 1, 2, 3].map((d) => storedDay(f.db, d * DAY)));
  const probe = new RowCache(f.db);
  await probe.load([rows[0]!]);
  const one = probe.heldBytes; // what one such row counts
  for (const r of rows) r.container = null;

  // Limit 3.9 rows: holding 4 drops one (3 <= 0.8 * 3.9), the least recently used.
  const cache = new RowCache(f.db, Math.floor(3.9 * one));
  await cache.load([rows[0]!, rows[1]!]);
  await cache.load([rows[2]!]);
  cache.touch(rows[0]!);
  await cache.load([rows[3]!]);
  assert.deepEqual(
    rows.map((r) => r.loaded),
    [true, false, true, true],
    'row 1 was used least recently (row 0 was touched after it)',
  );

  // At the limit nothing is dropped.
  for (const r of rows) r.container = null;
  const exact = new RowCache(f.db, 4 * one);
  await exact.load(rows);
  assert.deepEqual(
    rows.map((r) => r.loaded),
    [true, true, true, true],
  );

  // A tiny limit drops every clean row, but never one being written.
  for (const r of rows) r.container = null;
  const tiny = new RowCache(f.db, 1);
  await tiny.load(rows);
  assert.deepEqual(
    rows.map((r) => r.loaded),
    [false, false, false, false],
  );
  const set = new RowSet(10);
  const fresh = tiny.create(set, 1, 10 * DAY, 11 * DAY);
  assert.equal(set.byStart.get(10 * DAY), fresh);
  assert.ok(fresh.dirty && tiny.dirty.has(fresh), 'a new row is to be written');
  tiny.trim();
  assert.equal(fresh.loaded, true, 'a dirty row stays in memory over the limit');

  tiny.remove(set, fresh);
  assert.equal(set.byStart.size, 0);
  assert.deepEqual(tiny.deleted, [fresh]);
  assert.equal(fresh.deleted, true);
  assert.equal(fresh.dirty, false);
  assert.equal(tiny.dirty.size, 0);
  await f.close();
});

test('decoded segments over their limit go least recently used first, down to 80 % of it', async () => {
  const f = await fixture();
  const rows = await Promise.all([0, 1, 2, 3].map((d) => storedDay(f.db, d * DAY)));
  const probe = new RowCache(f.db);
  await probe.load(rows);
  const rowBytes = probe.heldBytes;
  probe.segment(rows[0]!, 0);
  const one = probe.heldBytes - rowBytes;
  for (const r of rows) r.container = null;

  const cache = new RowCache(f.db, undefined, Math.floor(3.9 * one));
  await cache.load(rows);
  const segs = rows.slice(0, 3).map((r) => cache.segment(r, r.start)!);
  assert.equal(cache.segment(rows[0]!, 0), segs[0], 'reading segment 0 again makes it the most recent');
  cache.segment(rows[3]!, rows[3]!.start);
  cache.trimDecoded();
  assert.equal(cache.heldBytes - rowBytes, 3 * one, 'one decoded segment was dropped');
  assert.equal(readAgain(cache, rows[0]!, segs[0]!), 'kept', 'segment 0 was kept');
  assert.equal(readAgain(cache, rows[2]!, segs[2]!), 'kept', 'segment 2 was kept');
  assert.equal(readAgain(cache, rows[1]!, segs[1]!), 'decoded', 'segment 1, least recently used, is decoded again');
  await f.close();
});

test('a row dropped or removed no longer counts, however often it is loaded again', async () => {
  const f = await fixture();
  const row = await storedDay(f.db, 0);
  const tiny = new RowCache(f.db, 1);
  for (let i = 0; i < 3; i++) {
    await tiny.load([row]);
    assert.equal(row.loaded, false, `load ${i + 1}: over the limit, dropped again`);
    assert.equal(tiny.heldBytes, 0, `load ${i + 1}: nothing held`);
  }

  const cache = new RowCache(f.db);
  await cache.load([row]);
  const one = cache.heldBytes;
  assert.ok(one > 0);
  cache.release();
  assert.equal(cache.heldBytes, 0);
  await cache.load([row]);
  assert.equal(cache.heldBytes, one, 'loaded again after a release: counted once');

  const set = new RowSet(10);
  set.byStart.set(0, row);
  cache.remove(set, row);
  assert.equal(cache.heldBytes, 0, 'a removed row is not counted');
  cache.release();
  assert.equal(cache.heldBytes, 0, 'nor is it let go a second time');

  // Removing a stale row leaves the row that took its place in the set.
  const stale = new Row(1, 10, DAY, 2 * DAY, 0);
  const current = cache.create(set, 1, DAY, 2 * DAY);
  cache.remove(set, stale);
  assert.equal(set.byStart.get(DAY), current);
  const held = cache.heldBytes;
  assert.ok(Number.isFinite(held) && held > 0, `removing a row never loaded leaves the count alone (${held})`);
  await f.close();
});

test('a row edited in place is counted at its new size', async () => {
  const f = await fixture();
  const row = await storedDay(f.db, 0);
  await f.cache.load([row]);
  const before = f.cache.heldBytes;
  row.container!.set(DAY, Buffer.alloc(5000));
  f.cache.changed(row);
  assert.ok(f.cache.heldBytes >= before + 5000, `${f.cache.heldBytes} bytes after adding 5000 to ${before}`);
  // Many small segments: each costs more than its bytes.
  const small = new Map(Array.from({ length: 10 }, (_, i) => [i * DAY, Buffer.alloc(1)] as [number, Buffer]));
  const other = new Row(1, 10, 20 * DAY, 30 * DAY, 10);
  const cache = new RowCache(f.db);
  cache.attach(other, small, 10);
  assert.ok(cache.heldBytes > 10 * 48, `ten 1-byte segments counted as ${cache.heldBytes} bytes`);
  await f.close();
});

test('a segment replaced under its row is decoded again, never answered from the old copy', async () => {
  const f = await fixture();
  const row = await storedDay(f.db, 0, daySegment(1, 10));
  await f.cache.load([row]);
  assert.equal(f.cache.segment(row, 0)!.last[1], 10);
  f.cache.attach(row, new Map([[0, encodeSegment(daySegment(1, 99))]]), 100);
  assert.equal(f.cache.segment(row, 0)!.last[1], 99, 'the new bytes');
  await f.close();
});

test('a transient read never overwrites a kept segment', async () => {
  const f = await fixture();
  const a = await storedDay(f.db, 0, daySegment(1, 10));
  const b = await storedDay(f.db, DAY, daySegment(1, 20));
  await f.cache.load([a, b]);
  const kept = f.cache.segment(a, 0)!;
  f.cache.segment(b, DAY, true);
  assert.equal(kept.last[1], 10, 'the kept segment still holds its own values');
  assert.equal(f.cache.segment(a, 0)!.last[1], 10);
  await f.close();
});

test('decoded segments are counted once however often replaced, and a replaced one is the most recent', async () => {
  const f = await fixture();
  const rows = await Promise.all([0, 1, 2].map((d) => storedDay(f.db, d * DAY)));
  await f.cache.load(rows);
  const rowBytes = f.cache.heldBytes;
  f.cache.segment(rows[0]!, 0);
  const one = f.cache.heldBytes - rowBytes;
  f.cache.putSegment(rows[0]!, 0, daySegment(2, 2));
  f.cache.putSegment(rows[0]!, 0, daySegment(3, 3));
  const rowsAfter = f.cache.heldBytes - one;
  assert.ok(rowsAfter > 0 && rowsAfter < rowBytes + 1000, 'one decoded segment counted, not three');

  // Limit 2.5 segments: holding 3 drops one (2 <= 0.8 * 2.5), the least recently used.
  const cache = new RowCache(f.db, undefined, 2.5 * one);
  for (const r of rows) r.container = null;
  await cache.load(rows);
  const first = cache.segment(rows[0]!, 0)!;
  const second = cache.segment(rows[1]!, DAY);
  const replaced = daySegment(4, 4);
  cache.putSegment(rows[0]!, 0, replaced);
  assert.notEqual(first, replaced);
  cache.segment(rows[2]!, 2 * DAY);
  cache.trim();
  assert.equal(cache.segment(rows[0]!, 0), replaced, 'the replaced segment was used last but one: kept');
  assert.equal(
    readAgain(cache, rows[1]!, second!),
    'decoded',
    'segment 1, least recently used, was dropped by the trim',
  );
  await f.close();
});

test('decoded segments are trimmed only over their limit, down to exactly 80 % of it', async () => {
  const f = await fixture();
  const rows = await Promise.all([0, 1, 2, 3].map((d) => storedDay(f.db, d * DAY)));
  const one = 8640 * 41; // what a decoded day counts (checked below)
  const probe = new RowCache(f.db);
  await probe.load([rows[0]!]);
  const rowBytes = probe.heldBytes;
  probe.segment(rows[0]!, 0);
  assert.equal(probe.heldBytes - rowBytes, one);
  for (const r of rows) r.container = null;

  /** Three segments decoded in a cache of `limit` bytes: a trim keeps all three. */
  const assertThreeKept = async (limit: number) => {
    const cache = new RowCache(f.db, undefined, limit);
    await cache.load(rows);
    const kept = rows.slice(0, 3).map((r) => cache.segment(r, r.start)!);
    cache.trimDecoded();
    kept.forEach((seg, i) => assert.equal(cache.segment(rows[i]!, rows[i]!.start), seg, `segment ${i} kept`));
    for (const r of rows) r.container = null;
  };
  // At exactly the limit nothing goes.
  await assertThreeKept(3 * one);
  // Under the limit but over 80 % of it nothing goes either.
  await assertThreeKept(3.5 * one);

  // Over it: down to 80 %, and a segment landing exactly there stays.
  const limit = 3.75 * one;
  assert.equal(limit * 0.8, 3 * one, 'the test needs 80 % of the limit to be exactly three segments');
  const over = new RowCache(f.db, undefined, limit);
  await over.load(rows);
  const segs = rows.map((r) => over.segment(r, r.start)!);
  over.trimDecoded();
  const held = [1, 2, 3].map((i) => readAgain(over, rows[i]!, segs[i]!));
  assert.deepEqual(held, ['kept', 'kept', 'kept'], 'the other three stay: at 80 % exactly, trimming stops');
  assert.equal(readAgain(over, rows[0]!, segs[0]!), 'decoded', 'the least recently used was dropped');
  await f.close();
});

test('a decoded segment dropped over the limit lends its arrays to the next day decoded; one a writer put never does', async () => {
  const f = await fixture();
  const rows = await Promise.all([0, 1, 2, 3].map((d) => storedDay(f.db, d * DAY, daySegment(d, d + 1))));
  // Room for one decoded day: each trim after a second one drops the least recently used.
  const cache = new RowCache(f.db, undefined, 1.5 * 8640 * 41);
  await cache.load(rows);
  const written = daySegment(5, 5);
  cache.putSegment(rows[0]!, 0, written);
  const second = cache.segment(rows[1]!, DAY)!;
  cache.trimDecoded();
  const third = cache.segment(rows[2]!, 2 * DAY)!;
  assert.ok(third !== written && third !== second, 'a writer’s segment, dropped, is not decoded into');
  cache.trimDecoded();
  const fourth = cache.segment(rows[3]!, 3 * DAY)!;
  assert.equal(fourth, second, 'the arrays of the segment dropped before are decoded into');
  assert.equal(fourth.last[3], 4, 'holding the new day');
  assert.equal(fourth.count[1], 0, 'and nothing of the day before');
  assert.equal(cache.segment(rows[2]!, 2 * DAY), third, 'the segment kept is not touched');
  assert.equal(third.last[2], 3);
  await f.close();
});

/** Stores an hour-tier month row holding one reading and answers the row, not yet loaded. */
async function storedHours(db: Db, start: number): Promise<Row> {
  const seg = emptySegment(segmentLength(3600, start), 0, true);
  seg.count[0] = 1;
  seg.sum[0] = seg.min[0] = seg.max[0] = seg.last[0] = 7;
  seg.lastOff![0] = 3;
  return storedRow(db, 3600, start, packContainer(start, new Map([[start, encodeSegment(seg, maxLastOff(3600))]])));
}

test('dropped segments are lent by shape (a day to a day, a month of hours to a month of hours), at most four kept', async () => {
  const f = await fixture();
  const one = 8640 * 41;
  const jan = utc('2024-01-01T00:00:00Z');
  const mar = utc('2024-03-01T00:00:00Z'); // 744 hours, as January
  const days = await Promise.all([0, 1, 2, 3].map((d) => storedDay(f.db, d * DAY, daySegment(d, d + 1))));
  const [hoursJan, hoursMar] = [await storedHours(f.db, jan), await storedHours(f.db, mar)];
  const cache = new RowCache(f.db, undefined, 1.5 * one);
  await cache.load([...days, hoursJan, hoursMar]);
  const hours = cache.segment(hoursJan, jan)!;
  const day0 = cache.segment(days[0]!, 0)!;
  cache.segment(days[1]!, DAY);
  cache.trimDecoded(); // drops the hours, then day 0
  assert.equal(cache.status.spare, 2);
  assert.equal(cache.segment(days[2]!, 2 * DAY), day0, 'a day is decoded into a dropped day, not into the hours');
  const march = cache.segment(hoursMar, mar)!;
  assert.equal(march, hours, 'a month of hours into the dropped month of hours');
  assert.equal(march.last[0], 7);
  assert.equal(march.lastOff![0], 3);

  // Another month of hours, of another length, is not lent: February (696 hours in 2024)
  // stays spare while March (744) is decoded into arrays of its own.
  const hoursFeb = await storedHours(f.db, utc('2024-02-01T00:00:00Z'));
  hoursMar.container = null;
  const months = new RowCache(f.db, undefined, 1);
  await months.load([hoursFeb, hoursMar]);
  const february = months.segment(hoursFeb, hoursFeb.start)!;
  months.trimDecoded();
  assert.equal(months.status.spare, 1, 'February dropped, kept as a spare');
  const march2 = months.segment(hoursMar, mar)!;
  assert.notEqual(march2, february);
  assert.equal(march2.count.length, 744);
  assert.equal(months.status.spare, 1, 'February is still spare, not taken and thrown away');

  // Five dropped at once: four are kept.
  const many = await Promise.all([...Array(21).keys()].map((d) => storedDay(f.db, (10 + d) * DAY)));
  const big = new RowCache(f.db, undefined, 20 * one);
  await big.load(many);
  for (const row of many.slice(0, 20)) big.segment(row, row.start);
  big.trimDecoded();
  assert.equal(big.status.spare, 0, 'nothing dropped at the limit');
  big.segment(many[20]!, many[20]!.start);
  big.trimDecoded();
  assert.equal(big.status.segments, 16, 'five dropped, down to 80 % of the limit');
  assert.equal(big.status.spare, 4, 'four of them kept as spares');
  big.release();
  assert.equal(big.status.spare, 0, 'release drops the spares too');
  await f.close();
});
