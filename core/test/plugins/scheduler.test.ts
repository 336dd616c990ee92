import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { PluginScheduler } from '../../src/plugins/scheduling/scheduler.js';

test('a daily job without times is refused rather than run over and over', () => {
  const abort = new AbortController();
  const scheduler = new PluginScheduler(new ManualClock(Date.parse('2026-11-22T10:00:00Z')), abort.signal, {
    succeeded() {},
    failed() {},
  });
  const run = () => assert.fail('a refused job must never run');
  try {
    assert.throws(
      () => scheduler.daily({ name: 'prices', times: [], timeZone: 'UTC', run }),
      /job prices: times must list at least one HH:MM time/,
    );
    assert.throws(
      () => scheduler.daily({ name: 'prices', times: ['25:00'], timeZone: 'UTC', run }),
      /job prices: time "25:00" is not HH:MM/,
    );
  } finally {
    abort.abort();
  }
});
