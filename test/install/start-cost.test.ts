// What keeps a start cheap: Node's compile cache in the directory systemd gives the unit
// (CacheDirectory=, passed as CACHE_DIRECTORY; the unit's PrivateTmp= empties the temporary
// directory at every start), and the service's code not loading Node's bundled fetch library.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, tempDir } from '../helpers/server.js';
import { MAIN, startService } from './service.js';

const node = process.execPath;

/** `serve` on a fresh data directory with no plugins, CACHE_DIRECTORY set as systemd sets it. */
async function serveOnce(dir: string, cacheDirectory: string, env: Record<string, string> = {}) {
  const plugins = join(dir, 'plugins.json');
  writeFileSync(plugins, JSON.stringify({ plugins: [] }));
  const service = await startService([node, MAIN, 'serve', '--data', join(dir, 'data'), '--plugins', plugins], {
    env: { CACHE_DIRECTORY: cacheDirectory, ...env },
  });
  try {
    assert.equal((await service.api('/api/v1/metrics')).status, 200, 'the service answers');
  } finally {
    assert.equal(await service.stop(), 0);
  }
  return service.output();
}

/** Every file under `dir` (the cache keeps one folder per Node version). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

test('the compile cache is kept in CACHE_DIRECTORY, and the next start reads the service from it', async () => {
  const dir = tempDir();
  const cache = join(dir, 'cache');
  await serveOnce(dir, cache);
  const written = filesUnder(join(cache, 'node-compile-cache'));
  assert.ok(written.length > 100, `the first start wrote the cache (${written.length} files)`);
  // Node says, with this debug switch, which module it compiled from the cache.
  const output = await serveOnce(dir, cache, { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
  const server = pathToFileURL(join(REPO_ROOT, 'core', 'dist', 'src', 'server.js')).href;
  // Node 24 says "V8 code cache for ESM <url> was accepted", Node 22 "cache for <url> was accepted".
  const accepted = output.split('\n').filter((line) => line.includes(server) && line.includes('accepted'));
  assert.ok(
    accepted.some((line) => / cache for (ESM )?\S+ was accepted/.test(line)),
    `the second start took server.js from the cache; what Node said of it:\n${output
      .split('\n')
      .filter((line) => line.includes(server))
      .join('\n')}`,
  );
});

test('a compile cache that cannot be written leaves the service starting without it', async () => {
  const dir = tempDir();
  // A file where the directory should be: the cache cannot be made even as root.
  const notADirectory = join(dir, 'cache');
  writeFileSync(notADirectory, '');
  await serveOnce(dir, notADirectory);
});

test("loading the service does not load Node's bundled fetch library (an ES import of node:http would)", () => {
  // About 60 ms of CPU before the service listens (core/src/api/node-http.ts).
  const script = `await import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'core', 'dist', 'src', 'server.js')).href)});
process.stdout.write(JSON.stringify(process.moduleLoadList.filter((name) => name.includes('undici'))));`;
  const loaded = JSON.parse(
    execFileSync(node, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
  ) as string[];
  assert.deepEqual(loaded, [], 'undici was loaded');
});
