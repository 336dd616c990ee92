import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PluginContext } from '@heliograph/plugins-sdk';
import { FirstRuns } from '../../src/plugins/host/first-runs.js';

/** A context whose scheduler only records what was scheduled. */
function fakeContext() {
  const scheduled: string[] = [];
  const ctx = {
    scheduler: {
      every: (job: { name: string }) => {
        scheduled.push(job.name);
        return () => {};
      },
      daily: (job: { name: string }) => {
        scheduled.push(job.name);
        return () => {};
      },
    },
  } as unknown as PluginContext;
  return { ctx, scheduled };
}

test('start-up jobs are waited for until each has run once; daily and delayed jobs are not', () => {
  const { ctx, scheduled } = fakeContext();
  const runs = new FirstRuns();
  const tracked = runs.track(ctx);
  assert.equal(runs.done, true, 'nothing scheduled yet');
  tracked.scheduler.every({ name: 'poll', intervalMs: 1000, run() {} });
  tracked.scheduler.every({ name: 'fetch', intervalMs: 60_000, run() {} });
  tracked.scheduler.every({ name: 'later', intervalMs: 60_000, immediate: false, run() {} });
  tracked.scheduler.daily({ name: 'tomorrow', times: ['13:05'], run() {} });
  assert.deepEqual(scheduled, ['poll', 'fetch', 'later', 'tomorrow'], 'the jobs still reach the real scheduler');
  assert.equal(runs.done, false);
  runs.ran('poll');
  assert.equal(runs.done, false, 'fetch has not run yet');
  runs.ran('fetch');
  assert.equal(runs.done, true);
});

test('a job stopped before its first run is not waited for', () => {
  const { ctx } = fakeContext();
  const runs = new FirstRuns();
  const stop = runs.track(ctx).scheduler.every({ name: 'poll', intervalMs: 1000, run() {} });
  assert.equal(runs.done, false);
  stop();
  assert.equal(runs.done, true);
});
