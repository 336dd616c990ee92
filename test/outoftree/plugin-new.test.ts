// `heliograph plugin new` prints the steps that install, build and test the package it wrote,
// and they work as printed: the SDK and the core are packed from this checkout (they are not
// on the npm registry, where `npm install` alone met E404), installed, and the package's own
// test passes on the test host, which checks its real package.json. The package names the SDK
// as a peer (the server hands a plugin its own SDK) and the SDK range it was made with.
// As in walkthrough.test.ts, npm resolves from its cache where it can and the install skips
// install scripts (SQLite's driver would fetch a binary): the checkout's built one is lent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MAIN } from '../helpers/child-server.js';
import { lendSqliteBinary, run } from './author-shell.js';
import { REPO_ROOT, tempDir } from '../helpers/server.js';

/** What the test adds to the printed `npm install`: the cache first, no install scripts. */
const OFFLINE = ['--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'];

test('plugin new: the printed steps install, build and test the package', async () => {
  const dir = tempDir('heliograph-plugin-new-');
  const printed = await run(process.execPath, [MAIN, 'plugin', 'new', 'acme-prices', '--kind', 'prices'], dir);
  const steps = printed
    .slice(printed.indexOf('\nnext'))
    .split('\n')
    .slice(2)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('cd '));
  const cd = printed.match(/^ {2}cd (\S+)$/m);
  assert.ok(cd, printed);
  const pkgDir = resolve(dir, cd[1]!);
  assert.deepEqual(
    steps.map((line) => line.split(' ').slice(0, 2).join(' ')),
    ['npm pack', 'npm install', 'npm run', 'npm test'],
    printed,
  );
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
    heliograph: { sdk: string };
    peerDependencies: Record<string, string>;
  };
  const sdkVersion = (
    JSON.parse(readFileSync(join(REPO_ROOT, 'plugins-sdk', 'package.json'), 'utf8')) as { version: string }
  ).version;
  assert.equal(pkg.peerDependencies['@heliograph/plugins-sdk'], `^${sdkVersion}`);
  assert.equal(pkg.heliograph.sdk, `^${sdkVersion.split('.').slice(0, 2).join('.')}`);

  for (const step of steps) {
    const [command, ...args] = step.split(' ');
    if (args[0] === 'install') args.push(...OFFLINE);
    if (args[0] === 'test') lendSqliteBinary(pkgDir);
    const out = await run(command!, args, pkgDir);
    if (args[0] === 'test') {
      assert.match(out, /^(#|ℹ) pass [1-9]\d*$/m, out);
      assert.match(out, /^(#|ℹ) fail 0$/m, out);
    }
  }
});
