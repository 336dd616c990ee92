import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
} from './support.js';

const AGGS: Agg[] = ['mean', 'max', 'min', 'sum', 'last'];
const NOW = Date.parse('2025-03-20T06:00:00Z');
const START = Date.parse('2025-02-01T03:00:00Z');
const TOPIC = 'total/load_power';

describe('retention and the disk budget', () => {
  it('delete the oldest 10-s history, keeping rollups that still answer every coarser query exactly', async () => {
    const clock = new ManualClock(NOW);
    const file = tempDbFile();
    const rnd = random(11);
    const data = readings(rnd, Date.parse('2025-02-24T21:43:00Z'), NOW - 60_000, () => 1);
    let opened = await openStore(file, clock, { retentionDays: 10 });
    // In chunks: the first flush deletes the old 10-s history; later chunks of those days
    // then go straight into the 1-min rollups.
    for (let i = 0; i < data.length; i += 40_000) {
      await opened.store.recordPast(
        meta(TOPIC),
        data.slice(i, i + 40_000).map((r) => [r.t, r.units / 10] as const),
      );
    }
    const cutoff = Date.parse('2025-03-10T00:00:00Z') / 1000;
    const old = await opened.db.get<{ n: number }>(
      'SELECT count(*) AS n FROM history_blocks WHERE tier = 10 AND start < ?',
      cutoff,
    );
    const minutes = await opened.db.get<{ n: number }>('SELECT count(*) AS n FROM history_blocks WHERE tier = 60');
    assert.equal(old!.n, 0, 'no 10-s rows before the retention cutoff');
    assert.ok(minutes!.n > 0, '1-min rollups were written for the deleted days');

    const check = async (what: string, sizes: number[]) => {
      const whole = { fromMs: START + 12_345, toMs: NOW };
      for (const groupS of sizes) {
        for (const agg of AGGS) {
          assertSameAnswer(
            await allPages(opened.store, TOPIC, { ...whole, groupMs: groupS * 1000, agg }),
            reference(data, { ...whole, groupMs: groupS * 1000 }, agg),
            agg,
            1,
            `${what} ${groupS}s ${agg}`,
          );
        }
      }
      const recent = { fromMs: cutoff * 1000, toMs: NOW, groupMs: 10_000 };
      assertSameAnswer(
        await allPages(opened.store, TOPIC, { ...recent, agg: 'mean' }),
        reference(data, recent, 'mean'),
        'mean',
        1,
        `${what} recent 10s`,
      );
      const gone = await allPages(opened.store, TOPIC, {
        fromMs: START,
        toMs: cutoff * 1000,
        groupMs: 10_000,
        agg: 'mean',
      });
      assert.deepEqual(gone, [], `${what}: 10-s history before the cutoff is gone`);
    };
    await check('after retention', [60, 420, 3600, 18000, 86400]);
    await opened.close();
    opened = await openStore(file, clock, { retentionDays: 10 });
    await check('after a restart', [420, 86400]);
    await opened.close();
  });

  it('over the disk budget, delete the oldest 10-s rows first and never the last two days', async () => {
    const clock = new ManualClock(NOW);
    const file = tempDbFile();
    const rnd = random(12);
    const data = [];
    for (let t = START; t < NOW; t += 10_000) data.push({ t, units: Math.floor(rnd() * 1_000_000), decimals: 1 });
    let opened = await openStore(file, clock);
    await opened.store.recordPast(
      meta(TOPIC),
      data.map((r) => [r.t, r.units / 10] as const),
    );
    const before = await opened.store.usedBytes();
    await opened.close();

    opened = await openStore(file, clock, { diskBudgetMb: before / 2 / 1048576 });
    clock.advance(3_600_000);
    await opened.store.flush();
    const after = await opened.store.usedBytes();
    assert.ok(after < before, `the database shrank (${before} -> ${after} bytes of pages in use)`);
    const first10s = await opened.db.get<{ start: number }>(
      'SELECT min(start) AS start FROM history_blocks WHERE tier = 10',
    );
    assert.ok(first10s!.start * 1000 > START + 7 * 86_400_000, 'the oldest 10-s history went');
    const recent = { fromMs: NOW - 2 * 86_400_000, toMs: NOW, groupMs: 10_000 };
    assertSameAnswer(
      await allPages(opened.store, TOPIC, { ...recent, agg: 'max' }),
      reference(data, recent, 'max'),
      'max',
      1,
      'the last two days keep 10-s history',
    );
    const whole = { fromMs: START, toMs: NOW, groupMs: 3_600_000 };
    for (const agg of AGGS)
      assertSameAnswer(
        await allPages(opened.store, TOPIC, { ...whole, agg }),
        reference(data, whole, agg),
        agg,
        1,
        `hours ${agg}`,
      );
    await opened.close();
  });

  it('packs the day rows of a month into one row once the month is over, answers unchanged', async () => {
    const clock = new ManualClock(Date.parse('2025-01-31T12:00:00Z'));
    const file = tempDbFile();
    const rnd = random(13);
    const data = readings(rnd, Date.parse('2025-01-28T00:00:00Z'), Date.parse('2025-02-01T00:30:00Z'), () => 1);
    let opened = await openStore(file, clock);
    const past = data.filter((r) => r.t < clock.now());
    await opened.store.recordPast(
      meta(TOPIC),
      past.map((r) => [r.t, r.units / 10] as const),
    );
    const dayRows = await opened.db.all<Array<{ start: number; end: number }>>(
      'SELECT start, end FROM history_blocks WHERE tier = 10 ORDER BY start',
    );
    assert.deepEqual(
      dayRows.map((r) => r.end - r.start),
      [86400, 86400, 86400, 86400],
      'the open month is kept in day rows',
    );

    // The rest arrives live, into February; an hour after midnight the upkeep packs January.
    const handle = opened.store.topic(meta(TOPIC));
    for (const r of data.filter((r) => r.t >= clock.now())) {
      clock.set(r.t);
      opened.store.record(handle, r.t, r.units / 10);
    }
    clock.set(Date.parse('2025-02-01T01:00:00Z'));
    await opened.store.flush();
    const rows = await opened.db.all<Array<{ start: number; end: number }>>(
      'SELECT start, end FROM history_blocks WHERE tier = 10 ORDER BY start',
    );
    assert.deepEqual(
      rows.map((r) => [new Date(r.start * 1000).toISOString(), new Date(r.end * 1000).toISOString()]),
      [
        ['2025-01-01T00:00:00.000Z', '2025-02-01T00:00:00.000Z'],
        ['2025-02-01T00:00:00.000Z', '2025-02-02T00:00:00.000Z'],
      ],
    );
    const q = { fromMs: Date.parse('2025-01-27T00:00:00Z'), toMs: Date.parse('2025-02-02T00:00:00Z') };
    for (let round = 0; round < 2; round++) {
      for (const groupS of [10, 90, 3600]) {
        for (const agg of AGGS)
          assertSameAnswer(
            await allPages(opened.store, TOPIC, { ...q, groupMs: groupS * 1000, agg }),
            reference(data, { ...q, groupMs: groupS * 1000 }, agg),
            agg,
            1,
            `${groupS}s ${agg}`,
          );
      }
      await opened.close();
      opened = await openStore(file, clock);
    }
    await opened.close();
  });
});
