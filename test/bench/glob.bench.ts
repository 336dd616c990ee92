// `npm run bench:glob`: pathological globs over 10 000 topics ("************X" once blocked
// the event loop for 346 s as a backtracking RegExp).
//
// In-process on purpose: the figure is the matcher's own (compileGlob, a pure function), not
// a client's, so no service is started. Its anchors, measured in the same run on the same
// topics: the backtracking RegExp the matcher replaced (`*` as `.*`, in a worker thread
// stopped after BENCH_GLOB_BUDGET_MS), and the same RegExp on V8's linear-time engine (the
// `l` flag), which cannot backtrack either.
import { once } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { compileGlob } from '@heliograph/core/testing';
import { loadAverage, tableRow } from './shipped.js';

// Before the first RegExp with the `l` flag is compiled; V8 reads it then.
setFlagsFromString('--enable-experimental-regexp-engine');

const BUDGET_MS = Number(process.env.BENCH_GLOB_BUDGET_MS ?? 2000);
const topics = Array.from({ length: 10_000 }, (_, i) => `inverter_${i}/${'a'.repeat(40)}_power`);
const patterns = [
  '*'.repeat(12) + 'X',
  '*a'.repeat(40) + 'X',
  'inverter_*/*a*a*a*a*a*a*a*a*b',
  'total/*',
  '?'.repeat(60),
];

/** The RegExp source a glob was once compiled to: `*` any run (`/` included), `?` one character. */
function regexSource(glob: string): string {
  const body = [...glob]
    .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return `^${body}$`;
}

/** Matches and ms of `test` over every topic, after one untimed pass (the JIT's warm-up). */
function timed(test: (topic: string) => boolean): { matched: number; ms: number } {
  for (const topic of topics) test(topic);
  const started = performance.now();
  let matched = 0;
  for (const topic of topics) if (test(topic)) matched++;
  return { matched, ms: performance.now() - started };
}

/** The backtracking RegExp over every topic in a worker thread, stopped after BUDGET_MS. */
async function backtracking(source: string): Promise<string> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const re = new RegExp(workerData.source, 's');
     const started = performance.now();
     let matched = 0;
     for (const topic of workerData.topics) if (re.test(topic)) matched++;
     parentPort.postMessage({ matched, ms: performance.now() - started });`,
    { eval: true, workerData: { source, topics } },
  );
  const timer = setTimeout(() => void worker.terminate(), BUDGET_MS);
  const [outcome] = (await Promise.race([once(worker, 'message'), once(worker, 'exit')])) as [
    { matched: number; ms: number } | number,
  ];
  clearTimeout(timer);
  await worker.terminate();
  return typeof outcome === 'number'
    ? `> ${BUDGET_MS} ms (stopped)`
    : `${outcome.ms.toFixed(1)} ms (${outcome.matched} matches)`;
}

console.log(
  `${topics.length} topics; anchors: backtracking RegExp (worker, stopped after ${BUDGET_MS} ms), linear RegExp; ` +
    `in-process; load average ${loadAverage()}`,
);
let worst = 0;
let first = { ms: 0, linearMs: 0, backtracking: '' };
for (const pattern of patterns) {
  const matcher = compileGlob(pattern);
  const glob = timed((topic) => matcher.test(topic));
  // `l`: V8's linear-time engine, enabled by the flag above; ESLint knows only the standard flags.
  const linear = new RegExp(regexSource(pattern), ['s', 'l'].join(''));
  const anchor = timed((topic) => linear.test(topic));
  if (anchor.matched !== glob.matched)
    throw new Error(`${pattern}: the matcher found ${glob.matched} matches, the linear RegExp ${anchor.matched}`);
  const slow = await backtracking(regexSource(pattern));
  console.log(
    `${pattern.slice(0, 40).padEnd(40)} ${String(glob.matched).padStart(6)} matches in ${glob.ms.toFixed(1).padStart(6)} ms` +
      ` | linear RegExp ${anchor.ms.toFixed(1)} ms | backtracking RegExp ${slow}`,
  );
  worst = Math.max(worst, glob.ms);
  if (pattern === patterns[0]) first = { ms: glob.ms, linearMs: anchor.ms, backtracking: slow };
}
tableRow({
  figure: `glob ${patterns[0]} x ${topics.length / 1000}k topics (in-process)`,
  value: `${first.ms.toFixed(1)} ms (slowest of ${patterns.length} globs ${worst.toFixed(1)} ms)`,
  anchor: `linear RegExp ${first.linearMs.toFixed(0)} ms, backtracking ${first.backtracking}`,
  target: 'linear in topic length (no backtracking)',
});
