// `heliograph backup` of a running service and `heliograph restore` into an empty data
// directory: the restored service answers with the same site id, password, token, plugin
// setup and history; every file is readable by its owner only; the checkout's plugins.json is
// copied at the first start and never written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, tempDir } from '../helpers/server.js';
import { createToken, MAIN, run, siteSnapshot, startService } from './service.js';

const node = process.execPath;
const mode = (path: string) => statSync(path).mode & 0o777;

test('backup of a running service, restore into an empty data directory: nothing is lost', async () => {
  const dir = tempDir();
  const data = join(dir, 'data');
  const tracked = readFileSync(join(REPO_ROOT, 'plugins.json'), 'utf8');
  const started = Date.now();
  const first = await startService([node, MAIN, 'serve', '--data', data]);
  try {
    await first.waitFor(/backfill complete/, "the simulator's backfill");
    const token = await createToken(first, 'dashboard');
    const patched = await first.api('/api/v1/plugins/sim', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: false }),
    });
    assert.equal(patched.status, 200);
    assert.equal(
      readFileSync(join(REPO_ROOT, 'plugins.json'), 'utf8'),
      tracked,
      'the tracked plugins.json is never written',
    );
    const saved = readFileSync(join(data, 'plugins.json'), 'utf8');
    assert.match(saved, /"enabled": false/, 'the change went to the data directory');
    const before = await siteSnapshot(first, token, started);
    assert.ok(before.points.length > 24, `the backfill is in history: ${before.points.length} hours`);

    assert.equal(mode(data), 0o700, 'the data directory');
    for (const name of readdirSync(data)) assert.equal(mode(join(data, name)), 0o600, name);

    const file = join(dir, 'site.backup');
    const refused = await run([node, MAIN, 'restore', file, '--data', data]);
    assert.equal(refused.code, 1, 'no such file');
    const backup = await run([node, MAIN, 'backup', file, '--data', data]);
    assert.equal(backup.code, 0, backup.output);
    assert.match(backup.output, /backup written: .*site-id.*plugins\.json/);
    assert.equal(mode(file), 0o600, 'the backup holds the password hash: owner only');
    const again = await run([node, MAIN, 'backup', file, '--data', data]);
    assert.equal(again.code, 1);
    assert.match(again.output, /exists already/);

    const whileRunning = await run([node, MAIN, 'restore', file, '--data', data]);
    assert.equal(whileRunning.code, 1, whileRunning.output);
    assert.match(whileRunning.output, /stop the service first/);

    assert.equal(await first.stop(), 0);
    const restoredData = join(dir, 'restored');
    const restore = await run([node, MAIN, 'restore', file, '--data', restoredData]);
    assert.equal(restore.code, 0, restore.output);
    assert.equal(readFileSync(join(restoredData, 'plugins.json'), 'utf8'), saved);
    assert.equal(mode(restoredData), 0o700);
    for (const name of readdirSync(restoredData)) assert.equal(mode(join(restoredData, name)), 0o600, name);

    const second = await startService([node, MAIN, 'serve', '--data', restoredData]);
    try {
      assert.deepEqual(await siteSnapshot(second, token, started), before);
    } finally {
      await second.stop();
    }
  } finally {
    if (first.child.exitCode === null) await first.stop();
  }
});

test('restore refuses a file that is not a backup, and changes nothing', async () => {
  const dir = tempDir();
  const notBackup = join(dir, 'notes.txt');
  writeFileSync(notBackup, 'hello');
  const result = await run([node, MAIN, 'restore', notBackup, '--data', join(dir, 'data')]);
  assert.equal(result.code, 1);
  assert.match(result.output, /not a backup file/);
  assert.deepEqual(readdirSync(join(dir, 'data')), [], 'nothing written');
});

test('backup refuses to carry a plugin file whose name has control characters, naming it, and writes nothing', async () => {
  const dir = tempDir();
  const data = join(dir, 'data');
  const set = await run([node, MAIN, 'password', 'set', '--data', data], { stdin: 'a-long-password\n' });
  assert.equal(set.code, 0, set.output);
  mkdirSync(join(data, 'plugins', 'sim'), { recursive: true });
  writeFileSync(join(data, 'plugins', 'sim', 'state\u001b[2J.json'), '{}');
  const file = join(dir, 'site.backup');
  const backup = await run([node, MAIN, 'backup', file, '--data', data]);
  assert.equal(backup.code, 1, backup.output);
  assert.match(backup.output, /control characters \("plugins\/sim\/state\\u001b\[2J\.json"\)/);
  assert.ok(!backup.output.includes('\u001b'), 'the name is shown escaped, not sent to the terminal');
  assert.ok(!existsSync(file), 'no backup written');
  assert.deepEqual(
    readdirSync(dir).filter((n) => n.startsWith('site.backup')),
    [],
    'no partial file left',
  );
});
