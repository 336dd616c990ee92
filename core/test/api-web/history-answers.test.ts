// Kept history answers (api/history/answer-cache.ts) are reused only while they are exactly what
// reading again gives: any write to the topic within the page, a merge, a renamed topic makes
// the next request read again; writes elsewhere do not. Driven with a real store on a SQLite
// file; every kept answer is compared with the same request read without keeping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RELEASE_IDLE_MS } from '../../src/history/store.js';
import type { Agg } from '../../src/history/slots.js';
import { meta, random } from '../history/support.js';
import { keptAnswersFixture } from './kept-answers-support.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-03-10T12:30:00Z');
const TOPIC = 'total/pv_power';

async function fixture(t: { after(fn: () => Promise<void>): void }) {
  const { clock, opened, registry, answers, answer: checked } = await keptAnswersFixture(t, NOW);
  let undefine = registry.define(meta(TOPIC, { name: 'PV power' }));
  /** The topic declared again under another name, as a reconfigured plugin does. */
  const rename = (name: string) => {
    undefine();
    undefine = registry.define(meta(TOPIC, { name }));
  };
  const answer = (fromMs: number, toMs: number, groupBy = '10s', agg: Agg = 'mean') =>
    checked(TOPIC, fromMs, toMs, groupBy, agg);
  const handle = opened.store.topic({ ...meta(TOPIC), topic: TOPIC });
  return { clock, opened, rename, answers, answer, handle };
}

test('a page asked again is the kept one until a write within it, a merge or a rename', async (t) => {
  const fx = await fixture(t);
  const start = NOW - 6 * HOUR;
  const readings: Array<[number, number]> = [];
  for (let ms = start; ms < NOW - 2 * HOUR; ms += 10_000) readings.push([ms, (ms / 10_000) % 613]);
  await fx.opened.store.recordPast(meta(TOPIC), readings);
  const page = () => fx.answer(start, start + 3 * HOUR);

  const first = await page();
  const second = await page();
  const third = await page();
  assert.notEqual(first, second, 'the first answer is read');
  assert.equal(third, second, 'then the kept one is given');
  assert.ok(fx.answers.heldBytes >= second.length);

  // Writes outside the page leave it kept: a live reading after it, a backfilled one days
  // before it (a write into the page's day would rewrite the day's stored segment).
  fx.opened.store.record(fx.handle, NOW - 30_000, 5);
  await fx.opened.store.recordPast(meta(TOPIC), [[start - 2 * 86_400_000, 7]]);
  assert.equal(await page(), second, 'writes before and after the page');

  // A live reading within it (an unsaved hour changes).
  fx.opened.store.record(fx.handle, start + HOUR + 5_000, 1000);
  const afterLive = await page();
  assert.notEqual(afterLive, second);
  assert.ok(!afterLive.equals(second), 'the reading shows');

  // A backfill within it.
  const kept = await page();
  await fx.opened.store.recordPast(meta(TOPIC), [[start + 2 * HOUR + 20_000, 9999]]);
  assert.ok(!(await page()).equals(kept), 'the backfilled reading shows');

  // Hours merged into stored rows: the same bytes, read again from the rows.
  const beforeMerge = await page();
  fx.clock.advance(3 * HOUR);
  await fx.opened.store.flush();
  const merged = await page();
  assert.notEqual(merged, beforeMerge, 'read again');
  assert.ok(merged.equals(beforeMerge), 'to the same bytes');
  assert.equal(await page(), await page(), 'kept again');

  // The topic renamed by its plugin.
  fx.rename('Solar power');
  const renamed = await page();
  assert.match(renamed.toString('utf8'), /"name":"Solar power"/);
});

test('kept answers are dropped once history requests stop, as the store drops its rows', async (t) => {
  const fx = await fixture(t);
  await fx.opened.store.recordPast(meta(TOPIC), [[NOW - HOUR, 1]]);
  await fx.answer(NOW - 2 * HOUR, NOW);
  assert.ok(fx.answers.heldBytes > 0);
  fx.clock.advance(RELEASE_IDLE_MS - 1);
  fx.answers.releaseIfIdle();
  assert.ok(fx.answers.heldBytes > 0, 'not idle long enough');
  fx.clock.advance(1);
  fx.answers.releaseIfIdle();
  assert.equal(fx.answers.heldBytes, 0);
});

test('whatever the writes, merges and queries, a kept answer is what reading gives', async (t) => {
  const fx = await fixture(t);
  const rnd = random(27);
  const at = (hours: number) => fx.clock.now() - Math.floor(rnd() * hours * 360) * 10_000;
  for (let step = 0; step < 120; step++) {
    const op = rnd();
    if (op < 0.3) fx.opened.store.record(fx.handle, at(2), Math.floor(rnd() * 1000) / 10);
    else if (op < 0.45) await fx.opened.store.recordPast(meta(TOPIC), [[at(30), Math.floor(rnd() * 5000)]]);
    else if (op < 0.55) {
      fx.clock.advance(Math.floor(rnd() * 2 * HOUR));
      await fx.opened.store.flush();
    }
    const to = fx.clock.now() - Math.floor(rnd() * 4) * HOUR;
    const [groupBy, span] = [['10s', 3 * HOUR] as const, ['1m', 8 * HOUR] as const, ['1h', 40 * HOUR] as const][
      Math.floor(rnd() * 3)
    ]!;
    const agg = (['mean', 'max', 'min', 'sum', 'last'] as const)[Math.floor(rnd() * 5)]!;
    // `answer` compares the kept answer with a fresh read; asked twice, the second may be kept.
    await fx.answer(to - span, to, groupBy, agg);
    await fx.answer(to - span, to, groupBy, agg);
  }
});
