// returnFreeMemory gives back what a finished burst of work used: Buffers no longer referenced
// (which V8 frees in C only when it collects them) whose heap pages lie below blocks still in
// use (which glibc's free() cannot return) stay resident until asked. collectPiledUpBuffers
// keeps such garbage from piling up while the work runs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const MODULE = fileURLToPath(new URL('../../src/system/free-memory.js', import.meta.url));
const glibc =
  process.platform === 'linux' &&
  (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime !== undefined;

// Runs in a child of its own (without --expose-gc): 4 000 Buffers of 16 kB (on the C heap:
// below every mmap threshold), every 16th kept, so the 60 MB dropped lie between blocks in use.
// Prints private resident MB after dropping them, and after returnFreeMemory().
const CHILD = `
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { returnFreeMemory } from ${JSON.stringify(MODULE)};
const anonMb = () => Number(/RssAnon:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
let all = Array.from({ length: 4000 }, () => Buffer.allocUnsafeSlow(16384).fill(1));
const kept = all.filter((_, i) => i % 16 === 15);
all = null;
const freed = anonMb();
const returned = await returnFreeMemory();
const gc = [typeof globalThis.gc, runInNewContext('typeof gc')];
console.log(JSON.stringify({ freed, trimmed: anonMb(), returned, gc, kept: kept.length }));
`;

describe('returning the C allocator’s free memory', { skip: !glibc && 'the C library is not glibc' }, () => {
  it('hands freed heap pages between blocks in use back to the system', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', CHILD], {
      encoding: 'utf8',
      // glibc's own thresholds, whatever the shell running the tests sets.
      env: { ...process.env, GLIBC_TUNABLES: '' },
      timeout: 30_000,
    });
    const { freed, trimmed, returned, gc } = JSON.parse(out) as {
      freed: number;
      trimmed: number;
      returned: unknown;
      gc: string[];
    };
    assert.equal(returned, true, 'malloc_trim reports memory released (is @heliograph/malloc-trim built?)');
    assert.deepEqual(gc, ['undefined', 'undefined'], 'gc() is given neither to the process nor to new contexts');
    assert.ok(
      freed - trimmed > 40,
      `about 60 MB of freed heap goes back to the system: ${freed.toFixed(1)} MB before, ${trimmed.toFixed(1)} MB after`,
    );
  });
});

// Runs in a child of its own with npm start's young generation, counting V8's major collections
// as node reports them. Memory outside the heap grows in live Buffers of 1 MB, with a call to
// collectPiledUpBuffers after each (as the store calls it after each history page); prints
// whether each stretch of growth started a collection. V8's memory reducer is off there: it
// collects a second or so after a collection, on its own clock.
//
// This checks when collections start, not how much they free: whether V8 frees dead Buffers in a
// collection is V8's part, and how early it collects by itself differs between its versions (on
// Node 22, once 33-60 MB had piled up; on Node 24, 70-180 MB). bench:serve-history measures the
// peak this keeps down.
const STEP_CHILD = `
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { collectPiledUpBuffers } from ${JSON.stringify(MODULE)};
const call = process.argv[1] === 'collect' ? collectPiledUpBuffers : () => {};
let majors = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
}).observe({ entryTypes: ['gc'] });
const held = [];
// Grows by mb MB, then waits up to ms for a major collection (one started here is reported
// within milliseconds).
async function collects(mb, ms) {
  const before = majors;
  for (let i = 0; i < mb; i++) {
    held.push(Buffer.allocUnsafeSlow(1 << 20));
    call();
  }
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(10)) if (majors > before) return true;
  return false;
}
call(); // the first call takes the level to grow from
const seen = [await collects(12, 3000), await collects(8, 3000)];
await sleep(100); // that collection's promise settles
// Briefly: the limits V8 sets at that collection may start one of its own a few seconds on.
seen.push(await collects(2, 300));
console.log(JSON.stringify(seen));
`;

describe('collecting Buffers that pile up while work runs', () => {
  const run = (mode: 'collect' | 'leave to V8') =>
    JSON.parse(
      execFileSync(
        process.execPath,
        ['--max-semi-space-size=1', '--no-memory-reducer', '--input-type=module', '-e', STEP_CHILD, mode],
        {
          encoding: 'utf8',
          timeout: 30_000,
        },
      ),
    ) as boolean[];

  it('starts a collection once memory outside the heap has grown 16 MB, and not before', () => {
    const [at12, at20, at22] = run('collect');
    assert.equal(at12, false, '12 MB of growth starts no collection');
    assert.equal(at20, true, 'a collection starts once growth reaches 16 MB (waited 3 s for it)');
    assert.equal(at22, false, 'growth counts again from that collection: 2 MB more starts none');
  });

  it('is needed: V8 alone starts no collection for those 22 MB', () => {
    assert.deepEqual(
      run('leave to V8'),
      [false, false, false],
      'V8 collected by itself: the test above proves nothing',
    );
  });
});
