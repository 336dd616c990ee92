// npm run bench:all: the benchmarks that measure what ships, one after the other (never two at
// once: they share the cores), each printing its own detail, then the whole table: every
// figure beside its anchor measured in the same run and its target. Targets are printed, not
// asserted. BENCH_ONLY=snapshot,history,memory,stream picks some.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { TableRow } from './shipped.js';
import { NODE_FLAGS, PINNED, START_ENV_TEXT } from './support.js';

const BENCHES: Array<[string, string]> = [
  ['snapshot', 'metrics.bench.js'],
  ['history', 'serve-history.bench.js'],
  ['memory', 'demo-memory.bench.js'],
  ['stream', 'ws.bench.js'],
  ['slow-readers', 'ws-slow-readers.bench.js'],
  ['bridge', 'bridge.bench.js'],
  ['page', 'page.bench.js'],
  ['http', 'http-answer.bench.js'],
  ['glob', 'glob.bench.js'],
];
const only = process.env.BENCH_ONLY?.split(',');

const rows: TableRow[] = [];
const failed: string[] = [];
const started = new Date();
for (const [name, file] of BENCHES) {
  if (only && !only.includes(name)) continue;
  console.log(`\n=== ${name} (${file})`);
  const child = spawn(process.execPath, [fileURLToPath(new URL(`./${file}`, import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith('TABLE ')) rows.push(JSON.parse(line.slice(6)) as TableRow);
    else console.log(line);
  });
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) failed.push(`${name} exited with ${code}`);
}

const widths = [46, 50, 44];
const cell = (text: string, width: number) => (text.length > width ? text : text.padEnd(width));
console.log(
  `\nHeliograph as shipped: node ${process.version}, npm start's flags "${NODE_FLAGS.join(' ')}" and environment "${START_ENV_TEXT}", ` +
    `${PINNED ? 'service on core 0, load on core 1 (taskset)' : 'not pinned (no taskset)'}; ${started.toISOString()}`,
);
console.log(
  [cell('figure', widths[0]!), cell('measured', widths[1]!), cell('anchor, same run', widths[2]!), 'target'].join(
    ' | ',
  ),
);
for (const r of rows)
  console.log(
    [
      cell(r.figure, widths[0]!),
      cell(r.value, widths[1]!),
      cell(r.anchor, widths[2]!),
      `${r.target}${r.met === undefined ? '' : r.met ? ' ok' : ' MISSED'}`,
    ].join(' | '),
  );
for (const f of failed) console.log(`FAILED: ${f}`);
if (failed.length > 0) process.exitCode = 1;
