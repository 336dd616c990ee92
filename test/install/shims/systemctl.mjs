// Simulated systemctl for test/install/readme.test.ts: runs a unit's ExecStart as written,
// its fixed paths mapped into the test's root ($HG_ROOT), on loopback with a free port, the
// log appended to $HG_ROOT/journal.log. start waits for "listening on"; stop for the exit.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = process.env.HG_ROOT;
const repoRoot = process.env.HG_REPO_ROOT;
const { readUnit, execStartWords, unitValue } = await import(`${repoRoot}/test/dist/install/unit-file.js`);
const journal = join(root, 'journal.log');
const pidFile = (name) => join(root, `${name}.pid`);
const mapped = (word) =>
  word === '/usr/bin/node' ? process.execPath : /^\/(opt|var|etc)\//.test(word) ? join(root, word) : word;
const DEADLINE_MS = 60_000;

function running(name) {
  if (!existsSync(pidFile(name))) return undefined;
  const pid = Number(readFileSync(pidFile(name), 'utf8'));
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

async function start(name) {
  if (running(name)) return;
  const unit = readUnit(join(root, 'etc', 'systemd', 'system', `${name}.service`));
  const state = join(root, 'var', 'lib', unitValue(unit, 'Service', 'StateDirectory'));
  mkdirSync(state, { recursive: true, mode: 0o700 });
  const [command, ...args] = execStartWords(unit).map(mapped);
  const before = existsSync(journal) ? readFileSync(journal, 'utf8').length : 0;
  const out = openSync(journal, 'a');
  const child = spawn(command, args, {
    cwd: mapped(unitValue(unit, 'Service', 'WorkingDirectory')),
    env: { ...process.env, HELIOGRAPH_HOST: '127.0.0.1', HELIOGRAPH_PORT: '0', HELIOGRAPH_MDNS: '0' },
    stdio: ['ignore', out, out],
    detached: true,
  });
  closeSync(out);
  writeFileSync(pidFile(name), String(child.pid));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.unref();
  await new Promise((resolve, reject) => {
    const watcher = watch(journal);
    const done = (err) => {
      clearTimeout(timer);
      watcher.close();
      if (err) reject(err);
      else resolve();
    };
    const check = () => {
      if (/listening on http/.test(readFileSync(journal, 'utf8').slice(before))) done();
    };
    const timer = setTimeout(() => done(new Error(`${name} did not answer within ${DEADLINE_MS} ms`)), DEADLINE_MS);
    watcher.on('change', check);
    void exited.then((code) => done(new Error(`${name} exited with ${code} at the start; see ${journal}`)));
    check();
  });
}

async function stop(name) {
  const pid = running(name);
  if (pid === undefined) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 15_000;
  // Not a child of this process: its end can only be seen from outside.
  while (running(name) !== undefined) {
    if (Date.now() > deadline) throw new Error(`${name} (pid ${pid}) did not stop within 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  rmSync(pidFile(name), { force: true });
}

const args = process.argv.slice(2).filter((a) => a !== '--now');
const now = process.argv.includes('--now');
const [verb, unitName] = args;
const name = unitName?.replace(/\.service$/, '');
writeFileSync(join(root, 'simulated.log'), `systemctl ${process.argv.slice(2).join(' ')}\n`, { flag: 'a' });
if (verb === 'daemon-reload') process.exit(0);
if (verb === 'start' || (verb === 'enable' && now)) await start(name);
else if (verb === 'stop' || (verb === 'disable' && now)) await stop(name);
else if (verb === 'restart') {
  await stop(name);
  await start(name);
} else if (verb !== 'enable' && verb !== 'disable') throw new Error(`systemctl ${verb}: not simulated`);
