#!/usr/bin/env node
// Runs every compiled test (`*.test.js` under each package's dist/test and test/dist) with
// node's own test runner. Node 20's --test takes no globs, so the files are listed here.
// Arguments narrow the run to files whose path contains one of them: `npm test -- history`.
import { readdirSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
files.sort();
if (files.length === 0) {
  console.error('no test files found: run `npm run build` first');
  process.exit(1);
}
const child = spawn(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=120000', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { HELIOGRAPH_LOG_LEVEL: 'silent', ...process.env },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
