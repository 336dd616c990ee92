// Plugin folders under development (--plugin-dir): what is found in them, and the message
// each mistake stops the start with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../src/config/load.js';
import { discoverPlugins, SDK_VERSION } from '../../src/plugins/discovery/discovery.js';
import { withPluginDirs } from '../../src/plugins/discovery/plugin-dirs.js';
import { pluginRoot } from '../helpers/plugins.js';
import { tempDir } from '../helpers/tmp.js';

/** A plugin package in `dir`: its package.json, and its entry module unless `built` is false. */
function writePlugin(dir: string, heliograph: unknown, options: { built?: boolean } = {}): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'acme-plugin', main: 'index.js', heliograph }));
  if (options.built !== false) writeFileSync(join(dir, 'index.js'), 'export default {};\n');
  return dir;
}

const noInstalled = new Map();
const manifest = (id: string) => ({ id, kind: 'inverter', sdk: '^1' });

test('a plugin folder is the package itself, or a folder of packages', () => {
  const one = writePlugin(tempDir(), manifest('solo'));
  const many = tempDir();
  writePlugin(join(many, 'a'), manifest('alpha'));
  writePlugin(join(many, 'b'), manifest('beta'));
  mkdirSync(join(many, 'notes'));
  writeFileSync(join(many, 'tools.json'), '{}');
  mkdirSync(join(many, 'node_modules'));

  const found = withPluginDirs(noInstalled, [one, many]);
  assert.deepEqual([...found.keys()], ['solo', 'alpha', 'beta']);
  const solo = found.get('solo')!;
  assert.equal(solo.dir, one);
  assert.equal(solo.entry, join(one, 'index.js'));
  assert.equal(solo.bundled, false, 'runs as third-party code: in a worker by default');
});

test('the installed plugins are kept next to the ones under development', async () => {
  const installed = await discoverPlugins(pluginRoot({ fixtures: ['ticker'] }));
  const found = withPluginDirs(installed, [writePlugin(tempDir(), manifest('solo'))]);
  assert.deepEqual([...found.keys()].sort(), ['solo', 'ticker']);
});

test('a folder that does not exist stops the start', () => {
  const missing = join(tempDir(), 'nope');
  assert.throws(
    () => withPluginDirs(noInstalled, [missing]),
    (err) => err instanceof ConfigError && err.message === `plugin folder ${missing} (--plugin-dir): no such folder`,
  );
});

test('a folder without a manifest says where one is looked for', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'just-a-package' }));
  mkdirSync(join(dir, 'src'));
  assert.throws(
    () => withPluginDirs(noInstalled, [dir]),
    (err) =>
      err instanceof ConfigError &&
      err.message.startsWith(
        `plugin folder ${dir}: no plugin here: neither ${join(dir, 'package.json')} nor the package.json of a sub-folder has a "heliograph" field`,
      ),
  );
});

test('a bad manifest names the field', () => {
  const dir = writePlugin(tempDir(), { id: 'Bad Id', kind: 'inverter', sdk: '^1' });
  assert.throws(
    () => withPluginDirs(noInstalled, [dir]),
    /^ConfigError: plugin folder .*: plugin package acme-plugin: package.json heliograph: id: lower-case/,
  );
});

test('an sdk range this SDK does not satisfy is refused with both versions', () => {
  const dir = writePlugin(tempDir(), { id: 'future', kind: 'inverter', sdk: '^1.99' });
  assert.throws(
    () => withPluginDirs(noInstalled, [dir]),
    (err) =>
      err instanceof ConfigError &&
      err.message.includes(
        `needs SDK "^1.99", this Heliograph has SDK ${SDK_VERSION}: change package.json heliograph.sdk`,
      ),
  );
});

test('an id found twice names both folders', async () => {
  const first = writePlugin(tempDir(), manifest('twin'));
  const second = writePlugin(tempDir(), manifest('twin'));
  assert.throws(
    () => withPluginDirs(noInstalled, [first, second]),
    (err) =>
      err instanceof ConfigError &&
      err.message.startsWith(`plugin folders: two plugins have the id "twin": ${second} and ${first}`),
  );
  const installed = await discoverPlugins(pluginRoot({ fixtures: ['ticker'] }));
  assert.throws(() => withPluginDirs(installed, [writePlugin(tempDir(), manifest('ticker'))]), /the id "ticker"/);
});

test('a plugin that is not built yet says so', () => {
  const dir = writePlugin(tempDir(), manifest('raw'), { built: false });
  assert.throws(
    () => withPluginDirs(noInstalled, [dir]),
    (err) =>
      err instanceof ConfigError &&
      err.message ===
        `plugin folder ${dir}: plugin raw has no index.js (its package.json "main"): build it first (npx tsc)`,
  );
});

test("the package's own fields are checked before anything is loaded, and each mistake is named", () => {
  const withPackage = (fields: Record<string, unknown>) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...fields, heliograph: manifest('acme') }));
    writeFileSync(join(dir, 'index.js'), 'export default {};\n');
    return dir;
  };
  const refusals: Array<[Record<string, unknown>, RegExp]> = [
    [{ name: 42 }, /package\.json.*name: .*expected string/i],
    [{ name: 'acme', main: '../elsewhere/index.js' }, /main: must be a path inside the package/],
    [{ name: 'acme', main: '/usr/lib/evil.js' }, /main: must be a path inside the package/],
    [{ name: 'acme', keywords: ['heliograph-plugin', 7] }, /keywords\[1\]: .*expected string/i],
    [{ name: 'acme', description: ['not', 'text'] }, /description: .*expected string/i],
  ];
  for (const [fields, message] of refusals) {
    const dir = withPackage(fields);
    assert.throws(
      () => withPluginDirs(noInstalled, [dir]),
      (err) =>
        err instanceof ConfigError && message.test(err.message) && err.message.includes(join(dir, 'package.json')),
      `package.json ${JSON.stringify(fields)} is refused with ${String(message)}`,
    );
  }
  const good = withPackage({ name: 'acme', main: './index.js', description: 'An acme meter', keywords: ['solar'] });
  assert.equal(withPluginDirs(noInstalled, [good]).get('acme')?.description, 'An acme meter');
});
