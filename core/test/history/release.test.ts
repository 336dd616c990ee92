// What a backfill and large answers load is dropped once the store is idle, and answers stay
// the same after: the memory is released, not the history.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RELEASE_IDLE_MS } from '../../src/history/store.js';
import { allPages, ManualClock, meta, openStore, random, readings, reference, tempDbFile } from './support.js';

const NOW = Date.parse('2025-06-05T08:09:10Z');
const START = NOW - 7 * 86_400_000;
const TOPIC = 'inverter_1/pv_power';

describe('history memory after a backfill', () => {
  it('drops loaded rows and segments once idle for RELEASE_IDLE_MS, and answers the same after', async () => {
    const clock = new ManualClock(NOW);
    let trims = 0;
    const opened = await openStore(tempDbFile(), clock, {}, { returnFreeMemory: () => trims++ });
    const { store } = opened;
    const list = readings(random(27), START, NOW - 3_600_000, () => 1);
    await store.recordPast(
      meta(TOPIC),
      list.map((r) => [r.t, r.units / 10] as const),
    );
    const q = { fromMs: START, toMs: NOW, groupMs: 60_000 };
    const before = await allPages(store, TOPIC, { ...q, agg: 'max' });
    assert.deepEqual(before, reference(list, q, 'max'), 'the backfill answers as written');
    assert.ok(store.cachedBytes > 10_000, `the answer loaded rows (${store.cachedBytes} bytes held)`);

    clock.advance(RELEASE_IDLE_MS - 1000);
    await store.flush();
    assert.ok(store.cachedBytes > 10_000, 'nothing is dropped before the store has been idle long enough');
    assert.equal(trims, 0, 'free memory is not returned while the store is busy');

    clock.advance(1000);
    await store.flush();
    assert.equal(store.cachedBytes, 0, 'idle: every row and decoded segment is dropped');
    assert.equal(trims, 1, 'idle: free memory is returned once');
    await store.flush();
    assert.equal(trims, 1, 'and not again until the store has been busy');

    const after = await allPages(store, TOPIC, { ...q, agg: 'max' });
    assert.deepEqual(after, before, 'the same answer, read again from the database');
    await opened.close();
  });

  it('returns free memory once RELEASE_IDLE_MS after opening, when nothing used the store', async () => {
    const clock = new ManualClock(NOW);
    let trims = 0;
    const opened = await openStore(tempDbFile(), clock, {}, { returnFreeMemory: () => trims++ });
    clock.advance(RELEASE_IDLE_MS - 1000);
    await opened.store.flush();
    assert.equal(trims, 0, 'not while the start may still be loading');
    clock.advance(1000);
    await opened.store.flush();
    assert.equal(trims, 1, 'what the start allocated and freed is returned');
    clock.advance(RELEASE_IDLE_MS);
    await opened.store.flush();
    assert.equal(trims, 1, 'once');
    await opened.close();
  });
});
