#!/usr/bin/env node
// Runs every compiled test (`*.test.js` under each package's dist/test and test/dist) with
// node's own test runner, listing the files itself so that arguments can narrow the run to
// files whose path contains one of them: `npm test -- history`.
import { readdirSync, existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The run ends with the failed tests by name (from test/failures-reporter.mjs), then node's totals.
const root = fileURLToPath(new URL('..', import.meta.url));
// web/build/tsc/test: the page's pure modules (formatting, calendar, energy), compiled by web's tsc.
const roots = ['plugins-sdk/dist/test', 'core/dist/test', 'test/dist', 'web/build/tsc/test'];
for (const p of readdirSync(join(root, 'plugins'))) roots.push(`plugins/${p}/dist/test`);

const filters = process.argv.slice(2);
const files = [];
for (const dir of roots) {
  const abs = join(root, dir);
  if (!existsSync(abs)) continue;
  for (const entry of readdirSync(abs, { recursive: true })) {
    const file = join(abs, String(entry));
    if (!file.endsWith('.test.js') || file.includes(`${join('dist', 'bench')}`)) continue;
    const rel = relative(root, file);
    if (filters.length === 0 || filters.some((f) => rel.includes(f))) files.push(rel);
  }
}
// The files that wait longest (a packed npm install, a clone built from scratch, a browser, a
// server taken through a night on its clock) start first, so no long one is left running alone
// at the end; the rest in path order.
const SLOW_FIRST = ['install', 'outoftree', 'browser', 'integrations'].map((dir) => join('test', 'dist', dir) + sep);
const rank = (file) => {
  const i = SLOW_FIRST.findIndex((prefix) => file.startsWith(prefix));
  return i < 0 ? SLOW_FIRST.length : i;
};
files.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
if (files.length === 0) {
  console.error('no test files found: run `npm run build` first');
  process.exit(1);
}

const env = { HELIOGRAPH_LOG_LEVEL: 'silent', ...process.env };
// Without Chromium the browser suites skip: said once here, not once per file.
if (files.some((f) => f.startsWith(join('test', 'dist', 'browser')))) {
  try {
    const browser = await import(pathToFileURL(join(root, 'test', 'dist', 'browser', 'browser.js')).href);
    env[browser.SKIP_ANNOUNCED_ENV] = '1';
  } catch {
    // HELIOGRAPH_REQUIRE_BROWSER without a browser: each browser file fails saying so.
  }
}

// Node's own reporter as before (spec on a terminal, TAP otherwise; spec always from node 23),
// and the failures reporter into a file of its own.
const [major] = process.versions.node.split('.').map(Number);
const reporter = process.stdout.isTTY || major >= 23 ? 'spec' : 'tap';
if (process.stdout.isTTY && env.FORCE_COLOR === undefined) env.FORCE_COLOR = '1';
const scratch = mkdtempSync(join(tmpdir(), 'heliograph-test-run-'));
const failuresFile = join(scratch, 'failures.jsonl');
// Files at once: one more than the cores. About half of a file's time is spent waiting (for a
// device's next poll, a child process, npm, a browser), so with one file per core the cores
// idle about half the run; HELIOGRAPH_TEST_CONCURRENCY overrides it.
const concurrency = Number(process.env.HELIOGRAPH_TEST_CONCURRENCY) || availableParallelism() + 1;
// The timeout bounds every test file too: the install tests (a clone built from scratch, a
// packed install) take minutes on a loaded small machine; each of their waits has its own deadline.
const child = spawn(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-timeout=600000',
    // A file whose tests are done exits even if a handle is left open (a leak the suite should
    // still find and fix): without it one such file keeps the whole run waiting for ever.
    '--test-force-exit',
    // …and reports all of its results before it exits (node passes `--import` on to each file).
    `--import=${pathToFileURL(join(root, 'test', 'blocking-stdout.mjs')).href}`,
    `--test-reporter=${reporter}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${pathToFileURL(join(root, 'test', 'failures-reporter.mjs')).href}`,
    `--test-reporter-destination=${failuresFile}`,
    ...files,
  ],
  { cwd: root, stdio: ['inherit', 'pipe', 'inherit'], env },
);

// Node's totals (`# pass 12` / `ℹ pass 12`) come last: from the first of them on, the output
// is held, and printed at the end with the totals after the summary.
const TOTALS = /^(?:# |ℹ )(?:tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) /;
// eslint-disable-next-line no-control-regex
const plain = (line) => line.replace(/\u001b\[[0-9;]*m/g, '');
const totals = [];
const after = [];
createInterface({ input: child.stdout }).on('line', (line) => {
  if (TOTALS.test(plain(line))) totals.push(line);
  else if (totals.length) after.push(line);
  else process.stdout.write(line + '\n');
});

child.on('close', (code, signal) => {
  const failed = existsSync(failuresFile)
    ? readFileSync(failuresFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
  rmSync(scratch, { recursive: true, force: true });
  if (after.length) process.stdout.write(after.join('\n') + '\n');
  if (failed.length > 0) {
    process.stdout.write(`\nFAILED TESTS (${failed.length}):\n`);
    for (const f of failed) {
      const where = f.file ? relative(root, f.file.startsWith('file:') ? fileURLToPath(f.file) : f.file) : '';
      const name = where && f.name !== f.file && !where.endsWith(f.name) ? `${where}: ${f.name}` : where || f.name;
      process.stdout.write(`  ✖ ${name}${f.message ? `\n      ${f.message}` : ''}\n`);
    }
    process.stdout.write('\n');
  }
  if (totals.length) process.stdout.write(totals.join('\n') + '\n');
  process.exit(code ?? (signal ? 1 : 0));
});
