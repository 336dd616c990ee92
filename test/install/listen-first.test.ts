// The service answers before its plugins are loaded: "listening on" comes while a plugin's
// code is still loading (the late-import fixture holds its module's evaluation until the test
// writes a file), the API answers meanwhile, and a request about plugins waits for the load
// and then gets the whole list, never the part loaded so far.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InstanceStatus } from '@heliograph/core/testing';
import { startChildServer } from '../helpers/child-server.js';
import { within } from '../helpers/deadline.js';
import { tempDir } from '../helpers/server.js';

test('the API answers while a plugin loads; GET /api/v1/plugins waits for the load', async () => {
  const release = join(tempDir(), 'release');
  const starting = startChildServer({
    plugins: [{ id: 'late', plugin: 'late-import' }],
    fixtures: ['late-import'],
    env: { HELIOGRAPH_MDNS: '0', HELIOGRAPH_FIXTURE_RELEASE: release },
  });
  const server = await within(starting, '"listening on" line while the plugin is still loading').catch(
    async (err: unknown) => {
      // A server that listens only after its plugins load does so once released: stop it.
      writeFileSync(release, '');
      await (await starting.catch(() => undefined))?.stop();
      throw err;
    },
  );
  try {
    let answered = false;
    const plugins = server.api('/api/v1/plugins').then((res) => {
      answered = true;
      return res;
    });
    // Answered meanwhile, after the plugins request was sent on its own connection.
    assert.equal((await server.api('/api/v1/metrics')).status, 200, 'GET /api/v1/metrics while the plugin loads');
    assert.equal((await server.api('/api/v1/system')).status, 200, 'GET /api/v1/system while the plugin loads');
    assert.equal(answered, false, 'GET /api/v1/plugins answered before the plugins were loaded');
    writeFileSync(release, '');
    const res = await within(plugins, 'GET /api/v1/plugins answer once the plugin has loaded');
    assert.equal(res.status, 200);
    const listed = (await res.json()) as InstanceStatus[];
    assert.deepEqual(
      listed.filter((s) => s.id === 'late').map((s) => s.plugin),
      ['late-import'],
    );
  } finally {
    writeFileSync(release, '');
    await server.stop();
  }
});
