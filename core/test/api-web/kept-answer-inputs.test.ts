// A kept history answer (api/history/answer-cache.ts) is given again only while everything the
// page was read from is unchanged (planner.ts, inputsOf): each test changes exactly one of those
// inputs — the topic's scale, one day's segment of a month row, the month row of the hour tier,
// a topic's first reading — and shows the next answer reflects it; and that writes to other
// days of the same month row leave the kept answer in use. Driven with a real store on a SQLite
// file; every kept answer is compared with the same request read without keeping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { meta } from '../history/support.js';
import { keptAnswersFixture } from './kept-answers-support.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-03-10T12:30:00Z');
/** A day of February, a month that is over: its 10-s history goes into one month row. */
const FEB10 = Date.parse('2026-02-10T00:00:00Z');
const TOPIC = 'total/pv_power';
const EMPTY = 'total/load_power';

async function fixture(t: { after(fn: () => Promise<void>): void }) {
  const { opened, registry, answer: checked } = await keptAnswersFixture(t, NOW);
  registry.define(meta(TOPIC));
  registry.define(meta(EMPTY));
  const answer = (fromMs: number, toMs: number, groupBy = '10s', topic = TOPIC) =>
    checked(topic, fromMs, toMs, groupBy);
  /** Readings in the past, merged into stored rows at once: nothing of them is left unsaved. */
  const backfill = async (readings: Array<[number, number]>, topic = TOPIC) => {
    await opened.store.recordPast(meta(topic), readings);
    await opened.store.flush();
  };
  const handle = opened.store.topic({ ...meta(TOPIC), topic: TOPIC });
  return { opened, answer, backfill, handle };
}

/** February 10th, 10:00 to 13:00, one reading every 10 s. */
function feb10Readings(): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let ms = FEB10 + 10 * HOUR; ms < FEB10 + 13 * HOUR; ms += 10_000) out.push([ms, (ms / 10_000) % 97]);
  return out;
}

test("a page of a topic without history is kept, and the topic's first reading shows", async (t) => {
  const fx = await fixture(t);
  const page = () => fx.answer(FEB10, FEB10 + 3 * HOUR, '10s', EMPTY);
  const first = await page();
  assert.match(first.toString('utf8'), /"points":\[\]/);
  const second = await page();
  assert.equal(await page(), second, 'the kept answer of an empty page is given');
  await fx.backfill([[FEB10 + HOUR, 42]], EMPTY);
  assert.match((await page()).toString('utf8'), /"points":\[\["2026-02-10T01:00:00Z",42\]\]/);
});

test("a reading with more decimals after the page changes the page's means: read again", async (t) => {
  const fx = await fixture(t);
  // 1, 2 and 2 in one slot: a mean of 5/3, written to three more decimals than the scale.
  await fx.backfill([
    ...feb10Readings(),
    [FEB10 + 9 * HOUR, 1],
    [FEB10 + 9 * HOUR + 1000, 2],
    [FEB10 + 9 * HOUR + 2000, 2],
  ]);
  const page = () => fx.answer(FEB10 + 9 * HOUR, FEB10 + 12 * HOUR);
  await page();
  const kept = await page();
  assert.equal(await page(), kept, 'kept');
  assert.match(kept.toString('utf8'), /\["2026-02-10T09:00:00Z",1\.667\]/);
  // Only the scale changes for the page: the reading is today, in an hour the page does not read.
  fx.opened.store.record(fx.handle, NOW - 30_000, 0.25);
  const after = await page();
  assert.match(after.toString('utf8'), /\["2026-02-10T09:00:00Z",1\.66667\]/, 'means at the new scale');
});

test("a write into one day of a month row rereads that day's pages, and only those", async (t) => {
  const fx = await fixture(t);
  await fx.backfill([...feb10Readings(), [FEB10 + 23 * HOUR, 5]]);
  const page = () => fx.answer(FEB10 + 10 * HOUR, FEB10 + 13 * HOUR);
  // Ends at midnight: the day after it is not read.
  const evening = () => fx.answer(FEB10 + 21 * HOUR, FEB10 + DAY);
  await page();
  await evening();
  const kept = await page();
  const keptEvening = await evening();

  // Other days of the month row, before and after both pages, stored at once.
  await fx.backfill([[FEB10 - 5 * DAY, 1]]);
  await fx.backfill([[FEB10 + DAY + 5 * HOUR, 2]]);
  await fx.backfill([[FEB10 + 10 * DAY, 3]]);
  assert.equal(await page(), kept, 'writes to other days of the month row leave the page kept');
  assert.equal(await evening(), keptEvening, 'the day after a page that ends at midnight is not read');

  // The page's own day, stored at once (no unsaved hour is left to show the change).
  await fx.backfill([[FEB10 + 11 * HOUR + 5_000, 9999]]);
  const changed = await page();
  assert.ok(!changed.equals(kept), 'the stored write shows');
  assert.match(changed.toString('utf8'), /\["2026-02-10T11:00:00Z",9999\]/);
  assert.notEqual(await evening(), keptEvening, 'the same day: read again');
});

test('a write merged into the month row of the hour tier rereads an hourly page', async (t) => {
  const fx = await fixture(t);
  await fx.backfill(feb10Readings());
  // Hour-aligned and inside the month: read from the 1-h tier's month row alone.
  const page = () => fx.answer(FEB10 + 9 * HOUR, FEB10 + 15 * HOUR, '1h');
  await page();
  const kept = await page();
  assert.equal(await page(), kept, 'kept');
  await fx.backfill([[FEB10 + 14 * HOUR + 30_000, 500]]);
  assert.match((await page()).toString('utf8'), /\["2026-02-10T14:00:00Z",500\]/, 'the merged hour shows');
});
