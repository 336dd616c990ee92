// The duplicate check (test/lint/duplicates.mjs, jscpd) holds the checkout to its limit, and
// catches what it is for: a block copied between two files of a small git tree, and not two
// files that only share their shape or an import list.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT, tempDir } from '../helpers/server.js';

const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'test', 'lint', 'duplicates.mjs');

/** The script's exit code and output over `root` with `args`. */
async function check(root: string, args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [SCRIPT, ...args, root], { maxBuffer: 1 << 24 });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, out: (e.stdout ?? '') + (e.stderr ?? '') };
  }
}

/** A git tree of `files` (the script reads what git tracks). */
async function gitTree(files: Record<string, string>): Promise<string> {
  const root = tempDir();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  await run('git', ['init', '-q'], { cwd: root });
  await run('git', ['add', '.'], { cwd: root });
  return root;
}

/** A function `name` of eight statements whose numbers follow from `seed`. */
function body(name: string, seed: number): string {
  const lines = [`export function ${name}(input: number[]): number {`, '  let total = 0;'];
  for (let i = 0; i < 8; i++) lines.push(`  total += input[${i}]! * ${seed + i} + Math.max(total, ${i});`);
  lines.push('  return total;', '}', '');
  return lines.join('\n');
}

test('the checkout holds no more clones than its limit', async () => {
  const { code, out } = await check(REPO_ROOT, ['--check']);
  assert.equal(code, 0, out);
  assert.match(out, /duplicated code \(jscpd clones of 6\+ lines\): \d+/);
});

test('a block copied into a second file is a clone, named with both places', async () => {
  const root = await gitTree({ 'src/a.ts': body('first', 1), 'src/b.ts': `// b\n${body('first', 1)}` });
  const { code, out } = await check(root, ['--list', '--max', '0']);
  assert.equal(code, 1, out);
  assert.match(out, /clones of 6\+ lines\): 1\n/);
  assert.match(out, /src\/a\.ts:1-\d+ ~ src\/b\.ts:2-\d+/);
  assert.match(out, /1 clones, above the limit of 0/);
});

/** An import of 30 names from one module, one name a line as prettier writes it. */
const IMPORTS = `import {\n${Array.from({ length: 30 }, (_, i) => `  name${i},\n`).join('')}} from './names.js';\n`;

test('files that only share their shape or their imports are not clones', async () => {
  const root = await gitTree({
    'src/a.ts': IMPORTS + body('first', 1),
    'src/b.ts': IMPORTS + body('second', 20),
  });
  const { code, out } = await check(root, ['--max', '0']);
  assert.equal(code, 0, out);
  assert.match(out, /clones of 6\+ lines\): 0\n/);
});
