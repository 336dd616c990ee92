// A port another program holds: `heliograph serve` stops with the port and address in words
// and what to do (another --port, or HELIOGRAPH_PORT), not a raw EADDRINUSE; exit code 1.
// The refused start gives the data directory's lock back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { within } from '../helpers/deadline.js';
import { serveArgs } from '../helpers/serve-command.js';
import { tempDir } from '../helpers/server.js';
import { MAIN, run } from './service.js';

/** Bound on a start that fails at its listen (storage and the core are opened first). */
const REFUSAL_MS = 60_000;

test('serve on a port in use by another program refuses in words, exit 1', async () => {
  const other: Server = createServer((_req, res) => res.end('another program'));
  await within(
    new Promise<void>((resolve, reject) => {
      other.once('error', reject);
      other.listen(0, '127.0.0.1', resolve);
    }),
    'a plain node server listening on 127.0.0.1',
  );
  try {
    const port = (other.address() as AddressInfo).port;
    const dir = tempDir();
    const pluginsFile = join(dir, 'plugins.json');
    writeFileSync(pluginsFile, '{ "plugins": [] }');
    const data = join(dir, 'data');
    const result = await within(
      run([process.execPath, MAIN, ...serveArgs({ port, data, plugins: pluginsFile })]),
      'exit of `heliograph serve` on a port in use',
      REFUSAL_MS,
    );
    assert.equal(result.code, 1, result.output);
    assert.match(
      result.output,
      new RegExp(
        `port ${port} on 127\\.0\\.0\\.1 is in use by another program; stop it or start Heliograph with --port N \\(or HELIOGRAPH_PORT=N`,
      ),
    );
    assert.doesNotMatch(result.output, /EADDRINUSE/, 'no raw error code');
    assert.doesNotMatch(result.output, /listening on/);
    assert.ok(!existsSync(join(data, 'heliograph.lock')), 'the failed start gave the lock back');
  } finally {
    await within(new Promise((resolve) => other.close(resolve)), 'the close of the plain node server');
  }
});
