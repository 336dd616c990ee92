// The import graph's rules (.dependency-cruiser.cjs, `npm run check:deps`) catch what they
// are for: a small tree of core files, written to a temp folder, has a cycle of type-only
// imports, an upward import, and an import a known exception spares, beside one it does not.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT, tempDir } from '../helpers/server.js';

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: Array<{ name: string }>;
}

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

async function violations(root: string): Promise<Violation[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      join(REPO_ROOT, 'test', 'lint', 'depcruise.mjs'),
      '--config',
      join(REPO_ROOT, '.dependency-cruiser.cjs'),
      '--output-type',
      'json',
      'core/src',
    ],
    { cwd: root, maxBuffer: 1 << 24 },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

test('a cycle, an upward import and an unlisted exception fail the check; a listed one passes', async () => {
  const root = tempDir();
  write(root, {
    'core/tsconfig.json': JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }),
    // A cycle of type-only imports inside one folder.
    'core/src/topics/a.ts': "import type { B } from './b.js';\nexport type A = { b?: B };\n",
    'core/src/topics/b.ts': "import type { A } from './a.js';\nexport type B = { a?: A };\n",
    // A domain file importing the server: upward.
    'core/src/topics/up.ts': "import type { S } from '../server.js';\nexport type U = S;\n",
    'core/src/server.ts': 'export type S = string;\n',
    // auth/scopes.ts -> api/errors.ts is a known exception; auth/scopes.ts -> api/other.ts is not.
    'core/src/auth/scopes.ts':
      "import type { E } from '../api/errors.js';\nimport type { O } from '../api/other.js';\nexport type X = E | O;\n",
    'core/src/api/errors.ts': 'export type E = string;\n',
    'core/src/api/other.ts': 'export type O = number;\n',
    // Downward imports are fine: the server may import anything, a service a domain file.
    'core/src/history/low.ts': "import type { A } from '../topics/a.js';\nexport type L = A;\n",
  });
  const found = await violations(root);
  const seen = found.map((v) => `${v.rule.name} ${v.from} -> ${v.to}`).sort();
  assert.deepEqual(
    seen,
    [
      'layer-domain core/src/auth/scopes.ts -> core/src/api/other.ts',
      'layer-domain core/src/topics/up.ts -> core/src/server.ts',
      // A cycle is reported once, from the first file of it.
      'no-circular core/src/topics/a.ts -> core/src/topics/b.ts',
    ],
    'the rules found exactly the planted violations',
  );
});
