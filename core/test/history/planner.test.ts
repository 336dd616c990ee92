// The history query planner's edges that whole-store tests do not reach on their own: a
// query while a flush merges the past hours, the tiers a span is split into, and which
// ranges a damage report names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cover, runQuery } from '../../src/history/planner.js';
import { RowCache, type Row } from '../../src/history/rows.js';
import { openDatabase } from '../../src/db.js';
import { ManualClock, meta, openStore, tempDbFile } from './support.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const T = Date.parse('2026-06-10T10:00:00Z');
const TOPIC = 'inverter_1/pv_power';

test('a query while a flush merges the past hour still counts that hour', async () => {
  const clock = new ManualClock(T);
  const opened = await openStore(tempDbFile(), clock);
  const rec = opened.store.topic(meta(TOPIC));
  for (let t = T; t < T + HOUR; t += 10_000) opened.store.record(rec, t, 100);
  clock.set(T + HOUR + 5_000);
  const flushing = opened.store.flush();
  // The flush takes the hour out of the open hours first, then waits on the database.
  for (let spins = 0; rec.compacting.length === 0; spins++) {
    if (spins > 10_000) assert.fail('the flush never started merging the past hour');
    await Promise.resolve();
  }
  assert.equal(rec.pending.size, 0, 'the hour is no longer among the open hours');
  const page = await opened.store.query(TOPIC, { fromMs: T, toMs: T + HOUR, groupMs: HOUR, agg: 'mean' });
  assert.equal(page.buckets.count[0], 360, 'every reading of the hour being merged');
  await flushing;
  const after = await opened.store.query(TOPIC, { fromMs: T, toMs: T + HOUR, groupMs: HOUR, agg: 'mean' });
  assert.equal(after.buckets.count[0], 360, 'and after the merge, from the rows');
  await opened.close();
});

test('a range is covered by the tiers that divide the bucket size, coarsest in the middle', () => {
  const day = 86_400;
  // 1 h buckets over 00:00:10 to 02:00:30: 10 s up to the minute, 1 min up to the hour,
  // the hour, then 1 min and 10 s back down.
  assert.deepEqual(cover(10, 2 * 3600 + 90, 3600), [
    { tier: 10, from: 10, to: 60 },
    { tier: 60, from: 60, to: 3600 },
    { tier: 3600, from: 3600, to: 7200 },
    { tier: 60, from: 7200, to: 7260 },
    { tier: 10, from: 7260, to: 7290 },
  ]);
  // 50 s buckets: only 10 s divides them.
  assert.deepEqual(cover(0, 300, 50), [{ tier: 10, from: 0, to: 300 }]);
  // Day buckets over whole days read the day tier alone.
  assert.deepEqual(cover(0, 3 * day, day), [{ tier: 86_400, from: 0, to: 3 * day }]);
  // A range inside one minute never climbs.
  assert.deepEqual(cover(20, 50, 3600), [{ tier: 10, from: 20, to: 50 }]);
  assert.deepEqual(cover(60, 60, 3600), [], 'an empty range has no spans');
});

test('a topic without history answers empty buckets, paged at 2000', async () => {
  const clock = new ManualClock(T);
  const opened = await openStore(tempDbFile(), clock);
  const page = await runQuery(
    undefined,
    { fromMs: T + 5_000, toMs: T + 3 * HOUR, groupMs: 10_000, agg: 'mean' },
    opened.store['cache'],
  );
  assert.equal(page.buckets.n, 1080, '10:00 to 13:00 in 10 s buckets, the first cut to start at 10:00:05');
  assert.equal(page.endMs, T + 3 * HOUR);
  assert.equal(page.nextMs, undefined);
  const long = await runQuery(
    undefined,
    { fromMs: T, toMs: T + 8 * HOUR, groupMs: 10_000, agg: 'mean' },
    opened.store['cache'],
  );
  assert.equal(long.buckets.n, 2000);
  assert.equal(long.endMs, T + 2000 * 10_000);
  assert.equal(long.nextMs, T + 2000 * 10_000);
  await opened.close();
});

/**
 * A row cache whose loaded rows leave memory again right after each load, `times` times: as
 * when another query's trim (or a flush) drops them while this query waits on the database.
 */
class EvictingCache extends RowCache {
  loads = 0;
  constructor(
    db: ConstructorParameters<typeof RowCache>[0],
    private times: number,
  ) {
    super(db);
  }
  override async load(rows: readonly Row[]): Promise<void> {
    this.loads++;
    await super.load(rows);
    if (this.times-- > 0) for (const row of rows) row.container = null;
  }
}

/** A store file holding `TOPIC` at 100 every `stepMs` for three days from `start`; how many readings it holds. */
async function threeDaysStored(
  start: number,
  stepMs: number,
  clock: ManualClock,
): Promise<{ file: string; readings: number }> {
  const file = tempDbFile();
  const first = await openStore(file, clock);
  const readings: Array<[number, number]> = [];
  for (let t = start; t < start + 3 * DAY; t += stepMs) readings.push([t, 100]);
  await first.store.recordPast(meta(TOPIC), readings);
  await first.close();
  return { file, readings: readings.length };
}

test('rows that leave memory while a query loads them are loaded again; a cache too small to hold them fails clearly', async () => {
  const start = Date.parse('2026-06-01T00:00:00Z');
  const clock = new ManualClock(start + 5 * DAY);
  const { file, readings } = await threeDaysStored(start, 60_000, clock);

  const opened = await openStore(file, clock);
  const rec = opened.store.topic(meta(TOPIC));
  const q = { fromMs: start, toMs: start + 3 * DAY, groupMs: HOUR, agg: 'sum' as const };
  const never = new EvictingCache(opened.db, Infinity);
  await assert.rejects(
    runQuery(rec, q, never),
    /^Error: history rows keep leaving memory while a query loads them; the row cache is too small$/,
  );
  assert.equal(never.loads, 6, 'six tries');
  const twice = new EvictingCache(opened.db, 1);
  const page = await runQuery(rec, q, twice);
  assert.equal(twice.loads, 2, 'loaded, dropped, loaded again');
  let count = 0;
  for (let b = 0; b < page.buckets.n; b++) count += page.buckets.count[b]!;
  assert.equal(count, readings, 'every reading, once');
  await opened.close();
});

test("a damage report names only the damaged tier's part of the page, in time order, and nothing for a page that ends where it starts", async () => {
  const start = Date.parse('2025-06-01T00:00:00Z');
  const day2 = start + DAY;
  const clock = new ManualClock(start + 4 * DAY + 5_000);
  const { file } = await threeDaysStored(start, 10_000, clock);
  const db = await openDatabase(file);
  const day3 = day2 + DAY;
  for (const day of [day2, day3])
    await db.run(
      'UPDATE history_blocks SET data = ? WHERE tier = 10 AND start = ?',
      Buffer.from('not a block'),
      day / 1000,
    );
  await db.close();

  const opened = await openStore(file, clock);
  const minutes = (fromMs: number, toMs: number) =>
    opened.store.query(TOPIC, { fromMs, toMs, groupMs: 60_000, agg: 'mean' });
  // The third day's damage is found first, so the store lists it before the second day's.
  const third = await minutes(day3, day3 + HOUR);
  assert.deepEqual(third.unreadable, [{ fromMs: day3, toMs: day3 + HOUR }]);
  const around = await minutes(day2 - HOUR, day2 + HOUR);
  assert.deepEqual(
    around.unreadable,
    [{ fromMs: day2, toMs: day2 + HOUR }],
    'only the hour of the page in the damaged day',
  );
  assert.equal(around.buckets.count[0], 6, 'the hour before is served');
  const across = await minutes(day3 - HOUR, day3 + HOUR);
  assert.deepEqual(
    across.unreadable,
    [
      { fromMs: day3 - HOUR, toMs: day3 },
      { fromMs: day3, toMs: day3 + HOUR },
    ],
    'in time order',
  );
  const before = await minutes(day2 - HOUR, day2);
  assert.equal(before.unreadable, undefined, 'a page ending where the damage starts has none of it');
  const hourly = await opened.store.query(TOPIC, { fromMs: day2, toMs: day2 + 3 * HOUR, groupMs: HOUR, agg: 'mean' });
  assert.equal(hourly.unreadable, undefined, 'hourly answers come from the hour tier, which is whole');
  assert.equal(hourly.buckets.count[0], 360);
  await opened.close();
});
