// The test host checks the plugin's real package.json as the server does, so a test cannot
// pass on a hand-written manifest the server would refuse.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import { definePlugin, z } from '../src/index.js';
import { startTestHost } from '../src/testing.js';

const root = mkdtempSync(join(tmpdir(), 'sdk-test-host-'));
after(() => rmSync(root, { recursive: true, force: true }));

const plugin = definePlugin({ id: 'acme-meter', configSchema: z.object({}), setup() {} });

/** A package folder whose package.json holds `pkg` over a valid one. */
function packageDir(name: string, pkg: Record<string, unknown>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const base = {
    name: 'heliograph-plugin-acme-meter',
    type: 'module',
    main: 'dist/src/index.js',
    keywords: ['heliograph-plugin'],
    heliograph: { id: 'acme-meter', kind: 'inverter', sdk: '^1.3', devices: { kinds: ['inverter'], min: 1, max: 1 } },
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...base, ...pkg }));
  return dir;
}

test("the package's own manifest is the one the test runs with", async () => {
  const dir = packageDir('good', {});
  const host = await startTestHost({ plugin, package: pathToFileURL(dir), devices: ['inverter_1'] });
  await host.stop();
  // Its device rule is the package's: two inverters are refused as the server refuses them.
  await assert.rejects(startTestHost({ plugin, package: dir, devices: ['inverter_1', 'inverter_2'] }), /at most 1/);
});

test('a manifest the server would refuse fails the start, in the words of the server', async () => {
  const sdk = packageDir('sdk2', {
    heliograph: { id: 'acme-meter', kind: 'inverter', sdk: '^2' },
  });
  await assert.rejects(
    startTestHost({ plugin, package: sdk }),
    /^Error: test host: plugin package heliograph-plugin-acme-meter: package.json heliograph: sdk: an SDK v1 range such as "\^1"/,
  );
  const id = packageDir('id', { heliograph: { id: 'acme', kind: 'inverter', sdk: '^1' } });
  await assert.rejects(
    startTestHost({ plugin, package: id }),
    /test host: .*says "heliograph": \{ "id": "acme" \} but its code says definePlugin\(\{ id: "acme-meter" \}\)/,
  );
  const keyword = packageDir('keyword', { keywords: [] });
  await assert.rejects(startTestHost({ plugin, package: keyword }), /lacks "keywords": \["heliograph-plugin"\]/);
});

test('a hand-written manifest that differs from the package is refused', async () => {
  const dir = packageDir('hand', {});
  await assert.rejects(
    startTestHost({ plugin, package: dir, manifest: { kind: 'battery' }, devices: ['inverter_1'] }),
    /the manifest option's kind \("battery"\) is not package\.json's \("inverter"\): remove the manifest option/,
  );
});
