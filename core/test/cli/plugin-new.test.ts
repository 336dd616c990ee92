// `heliograph plugin new` as an author runs it: each kind's package builds and passes its own
// test at once (its dependencies lent from this checkout's node_modules; the out-of-tree
// walkthrough installs them from tarballs), and mistakes on the command line say what to do.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { manifestSchema } from '@heliograph/plugins-sdk';
import { MAIN, REPO_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp.js';

const exec = promisify(execFile);
const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** The plugin's own `node --test` must report to itself, not to this runner. */
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_TEST_CONTEXT'));

function heliograph(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

for (const kind of ['driver', 'prices', 'forecast', 'integration']) {
  test(`plugin new --kind ${kind} writes a package that builds and passes its own test`, async () => {
    const dir = tempDir();
    const id = `acme-${kind}`;
    const made = await heliograph(['plugin', 'new', id, '--kind', kind], dir);
    assert.equal(made.code, 0, made.stderr);
    const plugin = join(dir, id);
    const pkg = JSON.parse(readFileSync(join(plugin, 'package.json'), 'utf8')) as { heliograph: unknown };
    const manifest = manifestSchema.parse(pkg.heliograph);
    assert.equal(manifest.id, id);
    assert.equal(manifest.emulator, kind === 'driver' ? 'dist/src/emulator/main.js' : undefined);
    assert.match(readFileSync(join(plugin, 'src', 'index.ts'), 'utf8'), new RegExp(`id: '${id}'`));
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(plugin, 'node_modules'));
    await exec(process.execPath, [TSC, '-p', plugin], { cwd: plugin });
    const run = await exec(process.execPath, ['--test', 'dist/test/**/*.test.js'], { cwd: plugin, env }).catch(
      (err: { stdout: string }) => err,
    );
    // `# fail 0` (TAP) or `ℹ fail 0` (spec), as the Node version reports it.
    assert.match(run.stdout, /^(#|ℹ) fail 0$/m, run.stdout);
    assert.match(run.stdout, /^(#|ℹ) pass [1-9]\d*$/m, run.stdout);
  });
}

test('plugin new refuses a bad id, an unknown kind and a folder that is not empty', async () => {
  const dir = tempDir();
  const badId = await heliograph(['plugin', 'new', 'Acme_Meter', '--kind', 'driver'], dir);
  assert.equal(badId.code, 2, 'a usage error');
  assert.match(badId.stderr, /"Acme_Meter" is no plugin id: lower-case letters, digits and dashes/);
  const badKind = await heliograph(['plugin', 'new', 'acme', '--kind', 'meter'], dir);
  assert.equal(badKind.code, 2, 'a usage error');
  assert.match(badKind.stderr, /--kind is one of driver, prices, forecast, integration/);
  mkdirSync(join(dir, 'acme'));
  writeFileSync(join(dir, 'acme', 'notes.txt'), 'mine');
  const taken = await heliograph(['plugin', 'new', 'acme', '--kind', 'prices'], dir);
  assert.equal(taken.code, 1);
  assert.match(taken.stderr, /acme exists and is not empty; choose another --dir/);
  assert.equal(readFileSync(join(dir, 'acme', 'notes.txt'), 'utf8'), 'mine');
});
