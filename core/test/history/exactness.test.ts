import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cover } from '../../src/history/planner.js';
import type { Agg } from '../../src/history/slots.js';
import {
  allPages,
  assertSameAnswer,
  ManualClock,
  meta,
  openStore,
  random,
  readings,
  reference,
  tempDbFile,
  type OpenedStore,
  type Reading,
} from './support.js';

const AGGS: Agg[] = ['mean', 'max', 'min', 'sum', 'last'];
const START = Date.parse('2025-01-27T13:17:42.500Z');
// The clock stands in March: January and February are packed into month rows, March is in day rows.
const NOW = Date.parse('2025-03-04T12:34:56.789Z');
const SIZES = [10, 20, 30, 90, 60, 420, 600, 3600, 18000, 86400, 172800];

describe('cover()', () => {
  it('splits a range into contiguous spans aligned to tiers that divide the bucket size', () => {
    const rnd = random(7);
    for (let k = 0; k < 2000; k++) {
      const from = Math.floor(rnd() * 10_000_000) * 10;
      const to = from + Math.floor(rnd() ** 3 * 30_000_000) * 10 + 10;
      const size = SIZES[Math.floor(rnd() * SIZES.length)]!;
      const spans = cover(from, to, size);
      let at = from;
      for (const s of spans) {
        assert.equal(s.from, at);
        assert.ok(s.to > s.from);
        assert.equal(size % s.tier, 0);
        assert.equal(s.from % s.tier, 0);
        assert.equal(s.to % s.tier, 0);
        at = s.to;
      }
      assert.equal(at, to);
    }
  });
});

describe('history answers equal a brute-force reference', () => {
  const clock = new ManualClock(NOW);
  const rnd = random(20250127);
  const file = tempDbFile();
  let opened: OpenedStore;
  // pv: two decimals throughout; grid: whole numbers until mid-February, then one decimal,
  // so stored segments of an older scale must be brought up to the newer one.
  const pv = readings(rnd, START, NOW - 1000, () => 2);
  const grid = readings(rnd, START, NOW - 1000, (t) => (t < Date.parse('2025-02-14T00:00:00Z') ? 0 : 1));
  const series: Array<[string, Reading[], number]> = [
    ['inverter_1/pv_power', pv, 2],
    ['total/grid_power', grid, 1],
  ];

  before(async () => {
    opened = await openStore(file, clock);
    for (const [topic, list] of series) {
      // In chunks cut at random slot boundaries, so later chunks merge into hours and days
      // already written (a bulk write replaces the slots it writes, so a chunk never splits
      // one). The last minutes go through the live path and stay unsaved.
      const live = list.filter((r) => r.t >= NOW - 20 * 60_000);
      const past = list.filter((r) => r.t < NOW - 20 * 60_000);
      for (let i = 0; i < past.length;) {
        let n = 1 + Math.floor(rnd() * past.length * 0.3);
        while (i + n < past.length && Math.floor(past[i + n]!.t / 10_000) === Math.floor(past[i + n - 1]!.t / 10_000))
          n++;
        await opened.store.recordPast(
          meta(topic),
          past.slice(i, i + n).map((r) => [r.t, r.units / 10 ** r.decimals] as const),
        );
        i += n;
      }
      const handle = opened.store.topic(meta(topic));
      for (const r of live) opened.store.record(handle, r.t, r.units / 10 ** r.decimals);
    }
  });
  after(() => opened.close());

  function randomQuery(size: number) {
    const from = START - 86_400_000 + Math.floor(rnd() * (NOW - START + 86_400_000));
    const buckets = 1 + Math.floor(rnd() ** 2 * 5000);
    return {
      fromMs: from,
      toMs: Math.min(from + buckets * size * 1000 + Math.floor(rnd() * 10_000), NOW + 86_400_000),
      groupMs: size * 1000,
    };
  }

  it('for every agg and bucket size, over random ranges that cut slots, hours, days and pages', async () => {
    let pagesChecked = 0;
    for (const [topic, list, decimals] of series) {
      for (const size of SIZES) {
        for (let k = 0; k < 4; k++) {
          const q = randomQuery(size);
          if (q.fromMs >= q.toMs) continue;
          for (const agg of AGGS) {
            const what = `${topic} ${size}s ${agg} ${new Date(q.fromMs).toISOString()}..${new Date(q.toMs).toISOString()}`;
            assertSameAnswer(
              await allPages(opened.store, topic, { ...q, agg }),
              reference(list, q, agg),
              agg,
              decimals,
              what,
            );
          }
          if ((q.toMs - Math.floor(q.fromMs / (size * 1000)) * size * 1000) / (size * 1000) > 2000) pagesChecked++;
        }
      }
    }
    assert.ok(pagesChecked >= 5, `enough queries spanned several pages (${pagesChecked})`);
  });

  it('over the whole history at 1 h, 5 h and 1 d, read from the rollup tiers', async () => {
    const q = { fromMs: START - 3 * 86_400_000, toMs: NOW + 3_600_000 };
    for (const [topic, list, decimals] of series) {
      for (const groupS of [3600, 18000, 86400]) {
        for (const agg of AGGS) {
          assertSameAnswer(
            await allPages(opened.store, topic, { ...q, groupMs: groupS * 1000, agg }),
            reference(list, { ...q, groupMs: groupS * 1000 }, agg),
            agg,
            decimals,
            `${topic} ${groupS}s ${agg}`,
          );
        }
      }
    }
  });

  it('gives the same hours from the hour rollups as from folding the 10-s answers', async () => {
    const q = { fromMs: Date.parse('2025-02-01T00:00:00Z'), toMs: Date.parse('2025-02-08T00:00:00Z') };
    for (const agg of ['sum', 'min', 'max', 'last'] as const) {
      const hourly = await allPages(opened.store, 'inverter_1/pv_power', { ...q, groupMs: 3_600_000, agg });
      const slots = await allPages(opened.store, 'inverter_1/pv_power', { ...q, groupMs: 10_000, agg });
      const folded = new Map<number, number>();
      for (const [t, v] of slots) {
        const h = t - (t % 3600);
        const prev = folded.get(h);
        folded.set(
          h,
          prev === undefined
            ? v
            : agg === 'sum'
              ? Math.round((prev + v) * 100) / 100
              : agg === 'min'
                ? Math.min(prev, v)
                : agg === 'max'
                  ? Math.max(prev, v)
                  : v,
        );
      }
      assert.deepEqual(hourly, [...folded.entries()], agg);
    }
  });

  it('cuts the first bucket at from: only slots starting at or after from count', async () => {
    const slot = pv[Math.floor(pv.length / 2)]!;
    const slotStart = Math.floor(slot.t / 10_000) * 10_000;
    for (const fromMs of [slotStart, slotStart + 1, slotStart + 9_999, slotStart - 86_400_000 + 4321]) {
      const q = { fromMs, toMs: slotStart + 7 * 86_400_000, groupMs: 86_400_000 };
      for (const agg of AGGS) {
        assertSameAnswer(
          await allPages(opened.store, 'inverter_1/pv_power', { ...q, agg }),
          reference(pv, q, agg),
          agg,
          2,
          `from ${new Date(fromMs).toISOString()} ${agg}`,
        );
      }
    }
  });

  it('answers the same after a restart, unsaved minutes included', async () => {
    const queries = [
      { fromMs: START, toMs: NOW + 60_000, groupMs: 86_400_000 },
      { fromMs: NOW - 3_600_000, toMs: NOW + 60_000, groupMs: 10_000 },
      { fromMs: NOW - 40 * 60_000 + 3333, toMs: NOW, groupMs: 90_000 },
    ];
    const before = [];
    for (const q of queries)
      for (const agg of AGGS) before.push(await allPages(opened.store, 'total/grid_power', { ...q, agg }));
    await opened.close();
    opened = await openStore(file, clock);
    const afterRestart = [];
    for (const q of queries)
      for (const agg of AGGS) afterRestart.push(await allPages(opened.store, 'total/grid_power', { ...q, agg }));
    assert.deepEqual(afterRestart, before);
    assert.ok(before[5]!.length > 0, 'the last hour has points');
  });
});
