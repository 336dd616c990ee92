// The import graph's rules (.dependency-cruiser.cjs, `npm run check:deps`) catch what they
// are for: a small tree of core files, written to a temp folder, has a cycle of type-only
// imports and upward imports, beside downward ones that pass; a small tree of page files
// (web/src) the same, and a page file outside the page's folders.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { within } from '../helpers/deadline.js';
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

/**
 * The violations found in a tree of `files` (beside the core's tsconfig, which the rules
 * use) below `dir`, each as `rule from -> to`, sorted.
 */
async function planted(files: Record<string, string>, dir = 'core/src'): Promise<string[]> {
  const root = tempDir();
  write(root, {
    'core/tsconfig.json': JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }),
    ...files,
  });
  const found = await violations(root, dir);
  return found.map((v) => `${v.rule.name} ${v.from} -> ${v.to}`).sort();
}

async function violations(root: string, dir = 'core/src'): Promise<Violation[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      join(REPO_ROOT, 'test', 'lint', 'depcruise.mjs'),
      '--config',
      join(REPO_ROOT, '.dependency-cruiser.cjs'),
      '--output-type',
      'json',
      dir,
    ],
    { cwd: root, maxBuffer: 1 << 24 },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

test('a cycle and upward imports fail the check; downward imports pass', async () => {
  const seen = await planted({
    // A cycle of type-only imports inside one folder.
    'core/src/topics/a.ts': "import type { B } from './b.js';\nexport type A = { b?: B };\n",
    'core/src/topics/b.ts': "import type { A } from './a.js';\nexport type B = { a?: A };\n",
    // A domain file importing the server: upward.
    'core/src/topics/up.ts': "import type { S } from '../server.js';\nexport type U = S;\n",
    'core/src/server.ts': 'export type S = string;\n',
    // A service importing a plugin: upward, as is a plugin importing the API.
    'core/src/history/up.ts': "import type { O } from '../plugins/other.js';\nexport type X = O;\n",
    'core/src/plugins/other.ts': "import type { W } from '../api/websocket/selection.js';\nexport type O = W;\n",
    'core/src/api/websocket/selection.ts': 'export type W = number;\n',
    // A more specific path wins: container/tokens.ts is domain, so a domain file may import it.
    'core/src/topics/uses-token.ts': "import type { T } from '../container/tokens.js';\nexport type U = T;\n",
    'core/src/container/tokens.ts': 'export type T = string;\n',
    // Downward imports are fine: the server may import anything, a service a domain file.
    'core/src/history/low.ts': "import type { A } from '../topics/a.js';\nexport type L = A;\n",
  });
  assert.deepEqual(
    seen,
    [
      'layer-domain core/src/topics/up.ts -> core/src/server.ts',
      'layer-plugins core/src/plugins/other.ts -> core/src/api/websocket/selection.ts',
      'layer-services core/src/history/up.ts -> core/src/plugins/other.ts',
      // A cycle is reported once, from the first file of it.
      'no-circular core/src/topics/a.ts -> core/src/topics/b.ts',
    ],
    'the rules found exactly the planted violations',
  );
});

test('in the page, a cycle, upward imports and a file outside the folders fail; downward imports pass', async () => {
  const seen = await planted(
    {
      // The rules' tsconfig (the core's) needs a file to compile.
      'core/src/index.ts': 'export {};\n',
      // A cycle of type-only imports inside one folder (schema-form.ts and schema-list.ts were one).
      'web/src/forms/a.ts': "import type { B } from './b.js';\nexport type A = { b?: B };\n",
      'web/src/forms/b.ts': "import type { A } from './a.js';\nexport type B = { a?: A };\n",
      // State importing a screen (a screen's context type kept beside the screens): upward.
      'web/src/state/up.ts': "import type { S } from '../screens/s.js';\nexport type U = S;\n",
      'web/src/screens/s.ts': 'export type S = string;\n',
      // The API client importing the DOM helpers: upward (api < ui).
      'web/src/api/up.ts': "import { h } from '../ui/dom.js';\nexport const U = h;\n",
      'web/src/ui/dom.ts': 'export const h = 1;\n',
      // A file beside main.ts, in no folder: not placed.
      'web/src/loose.ts': "import { h } from './ui/dom.js';\nexport const L = h;\n",
      // Downward and sideways imports are fine: a chart may use a form (one layer), a screen a
      // card, main anything.
      'web/src/charts/c.ts': "import type { A } from '../forms/a.js';\nexport type C = A;\n",
      'web/src/cards/card.ts': "import type { C } from '../charts/c.js';\nexport type K = C;\n",
      'web/src/screens/t.ts': "import type { K } from '../cards/card.js';\nexport type T = K;\n",
      'web/src/main.ts':
        "import type { T } from './screens/t.js';\nimport { h } from './ui/dom.js';\nexport const M: T | number = h;\n",
    },
    'web/src',
  );
  assert.deepEqual(
    seen,
    [
      'layer-web-api web/src/api/up.ts -> web/src/ui/dom.ts',
      'layer-web-state web/src/state/up.ts -> web/src/screens/s.ts',
      'no-circular web/src/forms/a.ts -> web/src/forms/b.ts',
      'web-unplaced web/src/loose.ts -> web/src/ui/dom.ts',
    ],
    'the rules found exactly the planted violations',
  );
});

test("a plugin reaching into the core, the SDK's source or another plugin fails; its own files pass", async () => {
  const seen = await planted(
    {
      'core/src/clock.ts': 'export type Clock = number;\n',
      'plugins-sdk/src/index.ts': 'export type Sdk = string;\n',
      'plugins/other/src/index.ts': 'export type O = boolean;\n',
      'plugins/mine/src/core.ts': "import type { Clock } from '../../../core/src/clock.js';\nexport type C = Clock;\n",
      'plugins/mine/src/sdk.ts':
        "import type { Sdk } from '../../../plugins-sdk/src/index.js';\nexport type S = Sdk;\n",
      'plugins/mine/src/other.ts': "import type { O } from '../../other/src/index.js';\nexport type X = O;\n",
      // By name: unresolved here (no node_modules), as the module name it is.
      'plugins/mine/src/named.ts': "import type { Clock } from '@heliograph/core/clock';\nexport type N = Clock;\n",
      // Its own files, in any folder, are fine.
      'plugins/mine/src/emulator/main.ts': "import type { C } from '../core.js';\nexport type M = C;\n",
    },
    'plugins/mine/src',
  );
  assert.deepEqual(
    seen,
    [
      'plugin-outside plugins/mine/src/core.ts -> core/src/clock.ts',
      'plugin-outside plugins/mine/src/named.ts -> @heliograph/core/clock',
      'plugin-outside plugins/mine/src/other.ts -> plugins/other/src/index.ts',
      'plugin-outside plugins/mine/src/sdk.ts -> plugins-sdk/src/index.ts',
    ],
    'the rule found exactly the planted reaches',
  );
});

test('eslint refuses a plugin importing the core or another plugin by package name', async () => {
  const source = [
    "import type { ManualClock } from '@heliograph/core/clock';",
    "import type * as Deye from '@heliograph/plugin-deye';",
    "import { definePlugin } from '@heliograph/plugins-sdk';",
    'export type T = [ManualClock, typeof Deye, typeof definePlugin];',
    '',
  ].join('\n');
  const child = execFile(
    process.execPath,
    [
      '--require',
      join(REPO_ROOT, 'test', 'lint', 'typescript-6.cjs'),
      join(REPO_ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js'),
      '--format',
      'json',
      '--stdin',
      '--stdin-filename',
      // A file of the plugin's project (typed lint needs one); its text comes from stdin.
      'plugins/jkbms/src/index.ts',
    ],
    { cwd: REPO_ROOT, maxBuffer: 1 << 24 },
  );
  child.stdin!.end(source);
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  await within(new Promise((resolve) => child.on('close', resolve)), "ESLint's verdict on the planted file", 120_000);
  const [result] = JSON.parse(stdout) as Array<{ messages: Array<{ ruleId: string; line: number }> }>;
  const restricted = result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.line);
  assert.deepEqual(restricted, [1, 2], 'the core and another plugin refused, the SDK allowed');
});
