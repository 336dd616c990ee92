// returnFreeMemory gives back what a finished burst of work used: Buffers no longer referenced
// (which V8 frees in C only when it collects them) whose heap pages lie below blocks still in
// use (which glibc's free() cannot return) stay resident until asked.
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
