// A plugin's identity: the id in its manifest is the one its code gives definePlugin, checked
// before anything starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO_ROOT, startTestServer } from '../helpers/server.js';

const MISNAMED = join(REPO_ROOT, 'test', 'fixtures', 'plugins', 'misnamed');
const FIX = `plugin heliograph-fixture-misnamed (${MISNAMED}): its package.json says "heliograph": { "id": "misnamed" } but its code says definePlugin({ id: "mis-named" }): make the two the same (plugins.json names a plugin by the manifest's id)`;

test('a plugin under development whose code and manifest disagree on its id stops the start', async () => {
  await assert.rejects(startTestServer({ pluginDirs: ['misnamed'], plugins: [] }), (err: Error) => {
    assert.equal(err.name, 'ConfigError');
    assert.equal(err.message, `plugin folder: ${FIX}`);
    return true;
  });
});

test('an installed plugin with that mistake stops the start of an instance that uses it', async () => {
  for (const isolation of ['worker', 'process-local']) {
    await assert.rejects(
      startTestServer({ external: ['misnamed'], plugins: [{ id: 'm', plugin: 'misnamed', isolation }] }),
      (err: Error) => {
        assert.match(
          err.message,
          /^\S+plugins\.json: plugins\[0\]\.plugin: plugin heliograph-fixture-misnamed \(\S+\/node_modules\/misnamed\): its package\.json says "heliograph": \{ "id": "misnamed" \} but its code says definePlugin\(\{ id: "mis-named" \}\): make the two the same/,
        );
        return true;
      },
    );
  }
});
