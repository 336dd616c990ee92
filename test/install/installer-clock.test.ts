// The installer's wait for the next second (config/release/installer.mjs `untilClock`): it
// reads the journal from the second a start is in, so the wait must never end in the second
// before, where a failed start's "Main process exited" would be read as the next start's (a
// rollback reported as failed while the old version ran). Node's timers end up to 1 ms before
// the wall clock reaches their target; the installer checks the clock itself.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers/server.js';

const INSTALLER = join(REPO_ROOT, 'config', 'release', 'installer.mjs');

test('the installer never ends its wait before the wall clock reaches the target', async () => {
  const exitCode = process.exitCode;
  const { untilClock } = (await import(pathToFileURL(INSTALLER).href)) as { untilClock: (ms: number) => Promise<void> };
  assert.equal(process.exitCode, exitCode, 'importing the installer runs nothing (no usage error)');
  const early: number[] = [];
  // Short targets, each a few ms ahead: a plain timer ends early in about 1 of 100 of them.
  for (let k = 0; k < 400; k++) {
    const target = Date.now() + 2 + (k % 11);
    await untilClock(target);
    const now = Date.now();
    if (now < target) early.push(now - target);
  }
  assert.deepEqual(early, [], 'waits that ended before their target (ms)');
});
