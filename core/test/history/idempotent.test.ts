// Backfill and import written twice (a resumed backfill, an import run again)
// must store one copy: count and sum of every slot, hour and day as if written once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  allPages,
  ManualClock,
  meta,
  openStore,
  random,
  readings,
  reference,
  tempDbFile,
  type Reading,
} from './support.js';

const NOW = Date.parse('2025-06-05T08:09:10Z');
const START = NOW - 5 * 86_400_000;
const TOPIC = 'inverter_1/pv_power';

/** Chunks cut at slot boundaries, as a backfill sends them. */
function chunks(list: readonly Reading[], rnd: () => number): Reading[][] {
  const out: Reading[][] = [];
  for (let i = 0; i < list.length;) {
    let n = 1 + Math.floor(rnd() * list.length * 0.2);
    while (i + n < list.length && Math.floor(list[i + n]!.t / 10_000) === Math.floor(list[i + n - 1]!.t / 10_000)) n++;
    out.push(list.slice(i, i + n));
    i += n;
  }
  return out;
}

describe('bulk writes of the past are idempotent', () => {
  it('a backfill sent twice (overlapping, in other chunks, across a reopen) stores every slot once', async () => {
    const rnd = random(915);
    const clock = new ManualClock(NOW);
    const file = tempDbFile();
    const list = readings(rnd, START, NOW - 3_600_000, () => 1);
    let opened = await openStore(file, clock);
    // A live reading in a slot the backfill covers too: the backfill's value replaces it.
    opened.store.record(opened.store.topic(meta(TOPIC)), list[10]!.t, 99999);
    const first = chunks(list.slice(0, Math.floor(list.length * 0.6)), rnd);
    for (const c of first)
      await opened.store.recordPast(
        meta(TOPIC),
        c.map((r) => [r.t, r.units / 10] as const),
      );
    await opened.close();
    // "Killed at 60 %, resumed from 45 %": the overlap is written again after a reopen. A
    // backfill resumes where a chunk began, never inside a slot.
    opened = await openStore(file, clock);
    let resume = Math.floor(list.length * 0.45);
    while (Math.floor(list[resume]!.t / 10_000) === Math.floor(list[resume - 1]!.t / 10_000)) resume++;
    for (const c of chunks(list.slice(resume), rnd))
      await opened.store.recordPast(
        meta(TOPIC),
        c.map((r) => [r.t, r.units / 10] as const),
      );
    for (const groupS of [10, 3600, 86400]) {
      for (const agg of ['sum', 'max', 'min', 'last'] as const) {
        const want = reference(list, { fromMs: START - 86_400_000, toMs: NOW, groupMs: groupS * 1000 }, agg);
        const got = await allPages(opened.store, TOPIC, {
          fromMs: START - 86_400_000,
          toMs: NOW,
          groupMs: groupS * 1000,
          agg,
        });
        assert.deepEqual(got, want, `${agg} at ${groupS}s`);
      }
    }
    const counts = await opened.store.query(TOPIC, {
      fromMs: START - 86_400_000,
      toMs: NOW,
      groupMs: 864_000_000,
      agg: 'sum',
    });
    let n = 0;
    for (let b = 0; b < counts.buckets.n; b++) n += counts.buckets.count[b]!;
    assert.equal(n, list.length, 'one reading counted per reading sent, however often it was sent');
    await opened.close();
  });
});
