// `heliograph serve --plugin-dir DIR` and HELIOGRAPH_PLUGIN_DIR as a user runs them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { delimiter, join } from 'node:path';
import type { InstalledPlugin } from '@heliograph/core/api-types';
import { startChildServer } from '../helpers/child-server.js';
import { REPO_ROOT, tempDir } from '../helpers/server.js';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'plugins');

test('HELIOGRAPH_PLUGIN_DIR lists plugin folders as PATH does; --plugin-dir given replaces it', async () => {
  const server = await startChildServer({
    plugins: [],
    args: ['--plugin-dir', join(FIXTURES, 'ticker'), '--plugin-dir', join(FIXTURES, 'keyed')],
    env: { HELIOGRAPH_MDNS: '0', HELIOGRAPH_PLUGIN_DIR: join(tempDir(), 'not-used') },
  });
  const fromEnv = await startChildServer({
    plugins: [],
    env: {
      HELIOGRAPH_MDNS: '0',
      HELIOGRAPH_PLUGIN_DIR: [join(FIXTURES, 'ticker'), join(FIXTURES, 'keyed')].join(delimiter),
    },
  });
  try {
    for (const s of [server, fromEnv]) {
      const installed = (await (await s.api('/api/v1/plugins/installed')).json()) as InstalledPlugin[];
      assert.deepEqual(
        installed.map((p) => p.plugin),
        ['keyed', 'ticker'],
      );
    }
  } finally {
    for (const s of [server, fromEnv]) {
      s.child.kill('SIGTERM');
      assert.equal(await s.exited, 0, s.stderr());
    }
  }
});

test('a plugin folder that does not exist stops the start, saying which', async () => {
  const missing = join(tempDir(), 'my-plugin');
  await assert.rejects(
    startChildServer({ plugins: [], args: ['--plugin-dir', missing], env: { HELIOGRAPH_MDNS: '0' } }),
    (err: Error) =>
      err.message.includes(`heliograph: cannot start:\nplugin folder ${missing} (--plugin-dir): no such folder\n`) &&
      err.message.startsWith('exited with 1 before listening'),
  );
});
