// The core's package exports are the short list docs/architecture.md ("The packages") gives,
// each with its reason: the package's list and the document's must agree, no file in the
// repository names another path of the core, and the compiler refuses an import of a path the
// core no longer exports (planted in a small project of its own, beside one of each kept path).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { within } from '../helpers/deadline.js';
import { REPO_ROOT, tempDir } from '../helpers/server.js';

/** Issue 41: what clients and plugin tests need, not every module a test once reached into. */
const MAX_ENTRIES = 8;

const packageExports = (): string[] =>
  Object.keys(
    (JSON.parse(readFileSync(join(REPO_ROOT, 'core', 'package.json'), 'utf8')) as { exports: object }).exports,
  );

/** The entries docs/architecture.md lists after "The core's are these", each `- \`<entry>\`: <reason>`. */
function documentedExports(): Array<{ entry: string; reason: string }> {
  const text = readFileSync(join(REPO_ROOT, 'docs', 'architecture.md'), 'utf8');
  const start = text.indexOf("The core's are these");
  assert.ok(start >= 0, 'docs/architecture.md introduces the core\'s entry points with "The core\'s are these"');
  const listed: Array<{ entry: string; reason: string }> = [];
  for (const line of text.slice(start).split('\n').slice(1)) {
    if (line.trim() === '' && listed.length === 0) continue;
    const item = /^- `([^`]+)`: (.*)$/.exec(line);
    if (!item) break;
    listed.push({ entry: item[1]!, reason: item[2]!.trim() });
  }
  return listed;
}

test("the core's exports are the entries docs/architecture.md lists, each with a reason", () => {
  const documented = documentedExports();
  assert.deepEqual(
    packageExports(),
    documented.map((d) => d.entry),
    'core/package.json "exports" and docs/architecture.md ("The packages") list the same entries, in the same order',
  );
  for (const { entry, reason } of documented) assert.ok(reason.length > 0, `${entry} has a reason beside it`);
  assert.ok(documented.length <= MAX_ENTRIES, `at most ${MAX_ENTRIES} entries, not ${documented.length}`);
});

const SKIPPED = new Set(['node_modules', 'dist', 'build', 'test-artifacts']);
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|md)$/;
/** A quoted (or back-quoted) specifier of the core; patterns with `*` (eslint's, a wildcard entry) are not one. */
const SPECIFIER = /['"`](@heliograph\/core(?:\/[\w.@-]+)*)['"`]/g;

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (SOURCE.test(entry.name)) yield path;
  }
}

test('every path of the core that a file in the repository names is one the core exports', () => {
  const own = join('test', 'shape', 'exports.test.ts');
  const unexported: string[] = [];
  let seen = 0;
  for (const file of sourceFiles(REPO_ROOT)) {
    const rel = relative(REPO_ROOT, file);
    if (rel === own) continue; // its planted imports below
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      seen++;
      try {
        // A wildcard entry resolves any name: the file must be there too (the core is built).
        if (!existsSync(fileURLToPath(import.meta.resolve(specifier!))))
          unexported.push(`${rel}: ${specifier} (no such file)`);
      } catch (err) {
        unexported.push(`${rel}: ${specifier} (${(err as { code?: string }).code ?? String(err)})`);
      }
    }
  }
  assert.ok(seen > 50, `the scan found the repository's imports of the core (${seen})`);
  assert.deepEqual(unexported, [], 'paths of the core that it does not export');
});

test('the compiler refuses an import of a path the core does not export; the kept ones compile', async () => {
  const root = tempDir();
  mkdirSync(join(root, 'node_modules', '@heliograph'), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'core'), join(root, 'node_modules', '@heliograph', 'core'), 'dir');
  const files: Record<string, string> = {
    'tsconfig.json': JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2023',
        strict: true,
        skipLibCheck: true,
        noEmit: true,
        types: [],
      },
      include: ['*.ts'],
    }),
    'kept.ts': [
      "import type { Heliograph } from '@heliograph/core';",
      "import type { Metric } from '@heliograph/core/api-types';",
      "import type { ManualClock } from '@heliograph/core/clock';",
      "import type { openDatabase } from '@heliograph/core/testing';",
      "import type { tempDir } from '@heliograph/core/test/helpers/tmp';",
      'export type K = [Heliograph, Metric, ManualClock, typeof openDatabase, typeof tempDir];',
      '',
    ].join('\n'),
    // Paths the core exported before issue 41: its modules by name, and the server's file.
    'removed.ts': [
      "import type { openDatabase } from '@heliograph/core/db';",
      "import type { InstanceStatus } from '@heliograph/core/plugins/host';",
      "import type { startHeliograph } from '@heliograph/core/server';",
      'export type R = [typeof openDatabase, InstanceStatus, typeof startHeliograph];',
      '',
    ].join('\n'),
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  const { stdout } = await within(
    promisify(execFile)(
      process.execPath,
      [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root, '--pretty', 'false'],
      { cwd: root, maxBuffer: 1 << 24 },
    ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' })),
    'tsc on the planted imports',
    90_000,
  );
  const errors = stdout
    .split('\n')
    .map((line) => /^(\S+)\((\d+),\d+\): error (TS\d+)/.exec(line))
    .filter((m) => m !== null)
    .map((m) => `${m[1]}:${m[2]} ${m[3]}`);
  assert.deepEqual(
    errors,
    ['removed.ts:1 TS2307', 'removed.ts:2 TS2307', 'removed.ts:3 TS2307'],
    `only the removed paths refused (tsc said:\n${stdout})`,
  );
});
