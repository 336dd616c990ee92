import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { allPages, ManualClock, openStore, tempDbFile } from './support.js';
import { within } from '../helpers/deadline.js';

const CHILD = fileURLToPath(new URL('./fixtures/record-child.js', import.meta.url));

describe('a recording process killed with SIGKILL', () => {
  it('leaves a database that opens and misses at most the last 10 s', async () => {
    const file = tempDbFile();
    const child = spawn(process.execPath, [CHILD, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = once(child, 'exit');
    const seen: Array<{ n: number; t: number }> = [];
    let flushedUpTo = 0;
    let flushes = 0;
    // Reads to the end of the output, so readings written just before the kill are known too.
    const readToEnd = async () => {
      for await (const line of createInterface({ input: child.stdout })) {
        const [kind, a, b] = line.split(' ');
        if (kind === 'r') seen.push({ n: Number(a), t: Number(b) });
        if (kind === 'f') {
          flushedUpTo = Math.max(flushedUpTo, Number(a));
          // Several flushes in, with readings under way: pull the plug.
          if (++flushes === 4) child.kill('SIGKILL');
        }
      }
    };
    await within(readToEnd(), () => `the writer's 4th flush and its end (${flushes} flushes seen)`, 60_000);
    const [code, signal] = (await within(exited, 'the killed writer to exit')) as [
      number | null,
      NodeJS.Signals | null,
    ];
    assert.equal(signal, 'SIGKILL', `the child was killed (exit code ${code})`);

    const opened = await openStore(file, new ManualClock(Date.now()));
    const integrity = await opened.db.get<{ integrity_check: string }>('PRAGMA integrity_check');
    assert.equal(integrity!.integrity_check, 'ok');
    const from = seen[0]!.t - 10_000;
    const to = seen.at(-1)!.t + 60_000;
    const max = await allPages(opened.store, 'total/pv_power', {
      fromMs: from,
      toMs: to,
      groupMs: 3_600_000,
      agg: 'max',
    });
    const kept = max.length === 0 ? 0 : Math.max(...max.map(([, v]) => v));
    assert.ok(
      kept >= flushedUpTo,
      `every reading of a completed flush is there (kept ${kept}, flushed ${flushedUpTo})`,
    );

    // What is there is exactly readings 1..kept: slot by slot, sums and counts match.
    const expected = new Map<number, number>();
    for (const { n, t } of seen)
      if (n <= kept) expected.set(Math.floor(t / 10_000) * 10, (expected.get(Math.floor(t / 10_000) * 10) ?? 0) + n);
    const sums = await allPages(opened.store, 'total/pv_power', {
      fromMs: from,
      toMs: to,
      groupMs: 10_000,
      agg: 'sum',
    });
    assert.deepEqual(sums, [...expected.entries()]);

    const lost = seen.filter((r) => r.n > kept);
    if (lost.length > 0) {
      const window = seen.at(-1)!.t - lost[0]!.t;
      assert.ok(window <= 10_000, `only the last ${window} ms of readings are missing`);
    }
    await opened.close();
  });
});
