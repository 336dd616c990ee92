// One Heliograph per data directory: a second `heliograph serve` on a directory a running
// server holds stops at once, naming the directory and the running server's pid; after a
// kill -9 of the first, the next start is not blocked by what it left; restore and history
// import refuse while a server runs. The lock's own rules (a dead pid, a pid reused by
// another process, a lock from before the last boot) are checked on the module itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startChildServer } from '../helpers/child-server.js';
import { within } from '../helpers/deadline.js';
import { serveArgs } from '../helpers/serve-command.js';
import { REPO_ROOT, tempDir } from '../helpers/server.js';
import { MAIN, run } from './service.js';

const node = process.execPath;
/** Bound on a command that refuses at once (it still loads the command's modules). */
const REFUSAL_MS = 30_000;

interface LockModule {
  LOCK_FILE: string;
  lockDataDir: (dataDir: string, options: { command: string; hint: string }) => { release: () => void };
  processIdentity: (pid: number) => string | undefined;
}
// Not among the core package's exports: loaded from the build, as the command loads it.
const lockModule = (): Promise<LockModule> =>
  import(
    pathToFileURL(join(REPO_ROOT, 'core', 'dist', 'src', 'system', 'data-dir-lock.js')).href
  ) as Promise<LockModule>;

const inUse = (dataDir: string, pid: number, command: string) =>
  new RegExp(
    `the data directory ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by another Heliograph \\(pid ${pid}: ${command}\\)`,
  );

test('a second serve on a held data directory refuses in words; after kill -9 of the first a new one starts; restore and history import refuse meanwhile', async () => {
  const first = await startChildServer({ plugins: [] });
  try {
    const pid = first.child.pid!;
    const lockFile = join(first.dataDir, 'heliograph.lock');
    assert.equal((JSON.parse(readFileSync(lockFile, 'utf8')) as { pid: number }).pid, pid, 'the lock names the server');

    const second = await within(
      run([node, MAIN, ...serveArgs({ data: first.dataDir, plugins: first.pluginsFile })]),
      'exit of the second `heliograph serve` on the same data directory',
      REFUSAL_MS,
    );
    assert.equal(second.code, 1, second.output);
    assert.match(second.output, inUse(first.dataDir, pid, 'heliograph serve'));
    assert.match(second.output, /stop it first, or use another --data/);
    assert.doesNotMatch(second.output, /listening on/);

    // Any file will do: the lock is checked before the backup is read.
    const backup = join(first.dir, 'some.backup');
    writeFileSync(backup, 'not read');
    const restore = await within(
      run([node, MAIN, 'restore', backup, '--data', first.dataDir]),
      'exit of `heliograph restore` while a server runs',
      REFUSAL_MS,
    );
    assert.equal(restore.code, 1, restore.output);
    assert.match(restore.output, inUse(first.dataDir, pid, 'heliograph serve'));
    assert.match(restore.output, /stop the service first/);

    const csv = join(first.dir, 'history.csv');
    writeFileSync(csv, 'time,topic,value\n');
    const imported = await within(
      run([node, MAIN, 'history', 'import', csv, '--data', first.dataDir]),
      'exit of `heliograph history import` while a server runs',
      REFUSAL_MS,
    );
    assert.equal(imported.code, 1, imported.output);
    assert.match(imported.output, inUse(first.dataDir, pid, 'heliograph serve'));

    assert.equal(
      (JSON.parse(readFileSync(lockFile, 'utf8')) as { pid: number }).pid,
      pid,
      'the refused commands left the lock as it was',
    );
    const answer = await first.api('/api/v1/system');
    assert.equal(answer.status, 200, 'the first server still answers');

    first.child.kill('SIGKILL');
    await within(first.exited, 'exit of the first server after SIGKILL');
    assert.ok(existsSync(lockFile), 'kill -9 left the lock file behind');
    await first.restart();
    assert.notEqual(first.child.pid, pid);
    assert.equal(
      (JSON.parse(readFileSync(lockFile, 'utf8')) as { pid: number }).pid,
      first.child.pid,
      'the new server took the stale lock over',
    );
    await first.stop();
    assert.ok(!existsSync(lockFile), 'a stop gives the lock up');
  } finally {
    await first.stop();
  }
});

test('the lock: a live holder refuses; a dead pid, a pid now another process, a lock from before the boot are taken over', async () => {
  const { LOCK_FILE, lockDataDir, processIdentity } = await lockModule();
  const options = { command: 'heliograph test', hint: 'do something' };
  const write = (dir: string, holder: object) => writeFileSync(join(dir, LOCK_FILE), JSON.stringify(holder));
  const takes = (dir: string, why: string) => {
    const lock = lockDataDir(dir, options);
    assert.equal((JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as { pid: number }).pid, process.pid, why);
    lock.release();
    assert.ok(!existsSync(join(dir, LOCK_FILE)), `${why}: released`);
  };

  // A live process of its own (not this one: a process holding its own lock is another case).
  const sleeper = spawn(node, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    await within(
      new Promise<void>((resolve, reject) => {
        sleeper.once('spawn', resolve);
        sleeper.once('error', reject);
      }),
      'the spawn of a helper process',
    );
    const live = { pid: sleeper.pid!, command: 'heliograph serve', since: Date.now() - 1000 };
    const identity = processIdentity(sleeper.pid!);

    const held = tempDir();
    write(held, { ...live, identity });
    assert.throws(
      () => lockDataDir(held, options),
      /is in use by another Heliograph \(pid \d+: heliograph serve\); do something/,
    );

    if (identity !== undefined) {
      const reused = tempDir();
      write(reused, { ...live, identity: identity.replace(/\/\d+$/, '/1') });
      takes(reused, 'the pid now belongs to another process (another start time)');
    }

    const beforeBoot = tempDir();
    write(beforeBoot, { ...live, identity, since: Date.now() - 10 * 365 * 86_400_000 });
    takes(beforeBoot, 'a lock taken before the last boot');

    const cut = tempDir();
    writeFileSync(join(cut, LOCK_FILE), '{"pid": 12');
    assert.throws(() => lockDataDir(cut, options), /in use by another Heliograph \(starting now\)/);
  } finally {
    sleeper.kill('SIGKILL');
  }
  const dead = tempDir();
  await within(
    new Promise((resolve) =>
      sleeper.exitCode !== null || sleeper.signalCode ? resolve(null) : sleeper.once('exit', resolve),
    ),
    'exit of the helper process after SIGKILL',
  );
  write(dead, { pid: sleeper.pid!, command: 'heliograph serve', since: Date.now() - 1000 });
  takes(dead, 'a lock of a process that is gone');

  const twice = tempDir();
  const lock = lockDataDir(twice, options);
  try {
    assert.throws(() => lockDataDir(twice, options), /in use by another Heliograph/, 'a second server in one process');
  } finally {
    lock.release();
  }
  takes(twice, 'given up, it is free again');
});
