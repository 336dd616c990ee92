// The figures of the code's shape (`npm run figures [-- <checkout>]`): files in import
// cycles, upward imports between the core's layers and the page's folders
// (.dependency-cruiser.cjs), source files over 400 lines and the longest functions.
// Counts lines as `wc -l` does (comments and blank lines included); the lint's limits skip
// them (eslint max-lines, max-lines-per-function). Last, duplicated code (duplicates.mjs,
// jscpd) against its limit. Another checkout's figures are taken with this checkout's rules,
// so two versions compare by one measure.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLONE_LIMIT, findClones } from './duplicates.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = resolve(here, '../..');
const root = resolve(process.argv[2] ?? repo);
const require = createRequire(import.meta.url);
const ts = require('typescript');

const pluginSources = readdirSync(join(root, 'plugins'))
  .map((id) => join('plugins', id, 'src'))
  .filter((dir) => statSync(join(root, dir), { throwIfNoEntry: false })?.isDirectory());
const graphDirs = ['core/src', 'plugins-sdk/src', ...pluginSources, 'web/src'];
const sourceDirs = graphDirs;

function cruise() {
  const out = execFileSync(
    process.execPath,
    [
      join(here, 'depcruise.mjs'),
      '--config',
      join(repo, '.dependency-cruiser.cjs'),
      '--output-type',
      'json',
      ...graphDirs,
    ],
    { cwd: root, maxBuffer: 1 << 28 },
  );
  return JSON.parse(out.toString());
}

const all = cruise();
const inCycles = new Set(
  all.modules
    .filter((m) => m.dependencies.some((d) => d.circular && graphDirs.some((dir) => m.source.startsWith(dir))))
    .map((m) => m.source),
);
const upward = (result) => result.summary.violations.filter((v) => v.rule.name.startsWith('layer-'));
const upwardAll = upward(all);
const upwardFolders = new Set(upwardAll.map((v) => `${folder(v.from)} -> ${folder(v.to)}`));

function folder(path) {
  if (path.startsWith('web/src/')) return `web/${path.slice('web/src/'.length).replace(/\/.*$|\.ts$/, '')}`;
  return path.replace(/^core\/src\//, '').replace(/\/.*$|\.ts$/, '');
}

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['test', 'node_modules', 'dist'].includes(entry.name)) yield* sources(path);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

const long = [];
const functions = [];
for (const dir of sourceDirs) {
  for (const file of sources(join(root, dir))) {
    const text = readFileSync(file, 'utf8');
    const name = relative(root, file);
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > 400) long.push([lines, name]);
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.end).line;
        const label = node.name?.getText(source) ?? node.parent?.name?.getText?.(source) ?? '(anonymous)';
        functions.push([end - start + 1, `${name}:${start + 1} ${label}`]);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}
long.sort((a, b) => b[0] - a[0]);
functions.sort((a, b) => b[0] - a[0]);

console.log(`checkout: ${root}`);
console.log(`files in import cycles: ${inCycles.size}`);
for (const file of [...inCycles].sort()) console.log(`  ${file}`);
console.log(
  `upward imports between the core's layers and the page's folders: ${upwardAll.length} (${upwardFolders.size} folder pairs)`,
);
for (const v of upwardAll) console.log(`  ${v.from} -> ${v.to}`);
console.log(`source files over 400 lines: ${long.length}`);
for (const [lines, name] of long) console.log(`  ${lines} ${name}`);
console.log(`functions over 80 lines: ${functions.filter(([n]) => n > 80).length}; longest:`);
for (const [lines, name] of functions.slice(0, 5)) console.log(`  ${lines} ${name}`);
console.log(`duplicated code (jscpd clones of 6+ lines): ${(await findClones(root)).length} (limit ${CLONE_LIMIT})`);
