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

// Runs in a child of its own with npm start's young generation: 1 000 Buffers of 256 kB, each
// held while the next 16 are made (so it outlives scavenges, as a history page's buffers do),
// then dropped. Prints the most memory outside V8's heap seen, in MB.
const PILE_UP_CHILD = `
import { getHeapStatistics } from 'node:v8';
import { collectPiledUpBuffers } from ${JSON.stringify(MODULE)};
const collect = process.argv[1] === 'collect';
const held = [];
let most = 0;
for (let i = 0; i < 1000; i++) {
  held.push({ data: Buffer.allocUnsafeSlow(262144), i });
  if (held.length > 16) held.shift();
  if (i % 4 === 0) await new Promise((resolve) => setImmediate(resolve));
  if (collect) collectPiledUpBuffers();
  most = Math.max(most, getHeapStatistics().external_memory);
}
console.log(most / 1048576);
`;

describe('collecting Buffers that pile up while work runs', () => {
  const most = (mode: 'collect' | 'leave to V8') =>
    Number(
      execFileSync(process.execPath, ['--max-semi-space-size=1', '--input-type=module', '-e', PILE_UP_CHILD, mode], {
        encoding: 'utf8',
        timeout: 30_000,
      }),
    );

  it('keeps dead Buffers within a collection step of the live ones, where V8 alone lets them pile up', () => {
    const left = most('leave to V8');
    const collected = most('collect');
    // 16 Buffers of 256 kB are live at a time (4 MB); collections start 16 MB above that.
    assert.ok(collected < 40, `at most ${collected.toFixed(1)} MB outside the heap with collections (under 40)`);
    assert.ok(
      left > collected + 16,
      `V8 alone let ${left.toFixed(1)} MB pile up (the setup must show what is kept from piling up)`,
    );
  });
});
