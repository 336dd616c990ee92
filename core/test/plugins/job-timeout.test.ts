// A job's timeout: a run that never settles is reported hung by its name (the host restarts
// the instance), the job's other runs and the other jobs are not held, and the default follows
// the schedule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../../src/clock.js';
import { jobTimeoutMs, PluginScheduler } from '../../src/plugins/scheduling/scheduler.js';

test('a run past its timeout is reported hung by name while another job keeps running', async () => {
  const abort = new AbortController();
  const succeeded: string[] = [];
  let reportHung!: (report: { job: string; message: string }) => void;
  const hung = new Promise<{ job: string; message: string }>((resolve) => (reportHung = resolve));
  const scheduler = new PluginScheduler(systemClock, abort.signal, {
    succeeded: (job) => succeeded.push(job),
    failed: (job, err) => assert.fail(`job ${job} failed: ${String(err)}`),
    hung: (job, message) => reportHung({ job, message }),
  });
  try {
    scheduler.every({ name: 'stuck', intervalMs: 60_000, timeoutMs: 300, run: () => new Promise(() => {}) });
    scheduler.every({ name: 'tick', intervalMs: 20, run() {} });
    const reported = await hung;
    assert.deepEqual(reported, {
      job: 'stuck',
      message: 'job stuck did not finish within 300 ms (JOB_TIMEOUT); the plugin is restarted',
    });
    assert.ok(succeeded.filter((job) => job === 'tick').length >= 3, `tick ran ${succeeded.length} times meanwhile`);
  } finally {
    abort.abort();
  }
});

test('the default timeout follows the schedule', () => {
  assert.equal(jobTimeoutMs({ intervalMs: 5000 }), 60_000, 'a 5 s poll: 1 minute');
  assert.equal(jobTimeoutMs({ intervalMs: 10 * 60_000 }), 20 * 60_000, 'twice a 10 min interval');
  assert.equal(jobTimeoutMs({ intervalMs: 3_600_000 }), 30 * 60_000, 'an hourly fetch: 30 minutes at most');
  assert.equal(jobTimeoutMs({}), 30 * 60_000, 'a daily job');
  assert.equal(jobTimeoutMs({ intervalMs: 5000, timeoutMs: 1234 }), 1234, "the job's own");
});
