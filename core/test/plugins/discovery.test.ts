// Discovery while the server already answers: it reads every package in node_modules, and
// lets the event loop turn between slices of that work, so a request that came in meanwhile is
// answered before discovery ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { discoverPlugins } from '../../src/plugins/discovery/discovery.js';
import { tempDir } from '../helpers/tmp.js';

/** A root whose node_modules holds `others` packages that are not plugins, and one that is. */
function rootWithPackages(others: number): string {
  const root = tempDir();
  const modules = join(root, 'node_modules');
  for (let i = 0; i < others; i++) {
    const dir = join(modules, `package-${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: `package-${i}`, version: '1.0.0', main: 'index.js' }),
    );
  }
  const plugin = join(modules, '@acme', 'heliograph-acme');
  mkdirSync(plugin, { recursive: true });
  writeFileSync(
    join(plugin, 'package.json'),
    JSON.stringify({
      name: '@acme/heliograph-acme',
      main: 'index.js',
      keywords: ['heliograph-plugin'],
      heliograph: { id: 'acme', kind: 'inverter', sdk: '^1' },
    }),
  );
  return root;
}

test('discovery lets the event loop turn while it reads node_modules, and still finds the plugin', async () => {
  // 3000 packages take tens of ms to read on a Raspberry Pi class core: many slices of work.
  const root = rootWithPackages(3000);
  const order: string[] = [];
  setImmediate(() => order.push('a turn of the event loop'));
  const found = await discoverPlugins(root);
  order.push('discovery ended');
  assert.deepEqual(order, ['a turn of the event loop', 'discovery ended']);
  assert.deepEqual([...found.keys()], ['acme']);
  assert.equal(found.get('acme')!.packageName, '@acme/heliograph-acme');
});
