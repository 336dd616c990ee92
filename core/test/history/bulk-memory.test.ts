// A backfill written hour by hour, as the simulator writes it, holds a bounded number of
// decoded segments however many days it covers (one per topic and tier, reused from day to
// day), and answers exactly as written; live merges keep none once their flush is over.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RELEASE_IDLE_MS } from '../../src/history/store.js';
import { allPages, ManualClock, meta, openStore, random, readings, reference, tempDbFile } from './support.js';

const NOW = Date.parse('2025-06-05T08:09:10Z');
const HOUR = 3_600_000;
const DAYS = 4;
const START = NOW - DAYS * 86_400_000;
const TOPICS = [
  'inverter_1/pv_power',
  'inverter_1/load_power',
  'inverter_2/pv_power',
  'total/pv_power',
  'total/load_power',
];
/** The tiers a merge edits: 10 s, hours and days. */
const TIERS_EDITED = 3;

describe('history memory during a backfill', () => {
  it('keeps at most one decoded segment per topic and tier across days, and answers as written', async () => {
    const clock = new ManualClock(NOW);
    const opened = await openStore(tempDbFile(), clock);
    const { store } = opened;
    const rnd = random(5);
    const all = TOPICS.map(() => readings(rnd, START, NOW - HOUR, () => 1));
    let mostEditing = 0;
    let mostKept = 0;
    for (let from = START; from < NOW - HOUR; from += HOUR) {
      // One call per hour with every topic, as columns (a backfill's form).
      await store.recordPastSeries(
        TOPICS.map((topic, k) => {
          const hour = all[k]!.filter((r) => r.t >= from && r.t < from + HOUR);
          return [meta(topic), { times: hour.map((r) => r.t), values: hour.map((r) => r.units / 10) }] as const;
        }),
      );
      const status = store.memoryStatus;
      mostEditing = Math.max(mostEditing, status.editing);
      mostKept = Math.max(mostKept, status.segments);
    }
    assert.ok(
      mostEditing <= TOPICS.length * TIERS_EDITED,
      `${mostEditing} segments held for editing, at most ${TOPICS.length * TIERS_EDITED} (one per topic and tier) over ${DAYS} days`,
    );
    assert.ok(mostEditing >= TOPICS.length, `every topic's day was edited in place (${mostEditing} held)`);
    assert.equal(mostKept, 0, 'merges leave no decoded segment in the query cache');

    const q = { fromMs: START, toMs: NOW, groupMs: 60_000 };
    for (const [k, topic] of TOPICS.entries())
      assert.deepEqual(
        await allPages(store, topic, { ...q, agg: 'max' }),
        reference(all[k]!, q, 'max'),
        `${topic} answers as written`,
      );

    clock.advance(RELEASE_IDLE_MS);
    await store.flush();
    assert.deepEqual(
      store.memoryStatus,
      { rows: 0, rowBytes: 0, segments: 0, segmentBytes: 0, editing: 0, spare: 0 },
      'idle: nothing is held',
    );
    await opened.close();
  });

  it('keeps no segment decoded after a live hour is merged', async () => {
    const clock = new ManualClock(NOW - RELEASE_IDLE_MS);
    const opened = await openStore(tempDbFile(), clock);
    const { store } = opened;
    // A store open for a while: what opening read is released already.
    clock.set(NOW);
    await store.flush();
    const handles = TOPICS.map((topic) => store.topic({ ...meta(topic), topic }));
    for (let t = NOW; t < NOW + HOUR; t += 10_000) {
      clock.set(t);
      for (const h of handles) store.record(h, t, (t / 10_000) % 97);
    }
    clock.set(NOW + HOUR);
    await store.flush();
    const status = store.memoryStatus;
    assert.ok(status.rows > 0, 'the hour went into rows');
    assert.equal(status.editing, 0, 'no segment is kept for the next merge, an hour away');
    assert.equal(status.segments, 0, 'nor in the query cache');
    await opened.close();
  });
});
