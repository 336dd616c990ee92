// Simulated systemctl for test/install/readme.test.ts: runs a unit's ExecStart as written, its
// fixed paths mapped into the test's root ($HG_ROOT), on loopback with a free port. As systemd
// does for Type=simple, start returns once the process runs, and the journal
// ($HG_ROOT/journal.log, each line after its time in ms) gets the process's output and, when it
// ends, "Main process exited, code=exited, status=N/FAILURE" or "Deactivated successfully".
// A supervisor process (this file with `supervise`) stays beside the service to write those.
// stop sends SIGTERM and waits for the end.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = process.env.HG_ROOT;
const repoRoot = process.env.HG_REPO_ROOT;
const { readUnit, execStartWords, unitValue } = await import(`${repoRoot}/test/dist/install/unit-file.js`);
const journal = join(root, 'journal.log');
const pidFile = (name) => join(root, `${name}.pid`);
const mapped = (word) => (/^\/(opt|var|etc)\//.test(word) ? join(root, word) : word);
const log = (line) => appendFileSync(journal, `${Date.now()} ${line}\n`);
const DEADLINE_MS = 15_000;

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

async function until(what, check) {
  const deadline = Date.now() + DEADLINE_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`systemctl (simulated): ${what} within ${DEADLINE_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The supervisor: runs the unit's command, its output into the journal line by line. */
function supervise(name) {
  const unit = readUnit(join(root, 'etc', 'systemd', 'system', `${name}.service`));
  const state = join(root, 'var', 'lib', unitValue(unit, 'Service', 'StateDirectory'));
  mkdirSync(state, { recursive: true, mode: 0o700 });
  const [command, ...args] = execStartWords(unit).map(mapped);
  const child = spawn(command, args, {
    cwd: mapped(unitValue(unit, 'Service', 'WorkingDirectory')),
    env: { ...process.env, HELIOGRAPH_HOST: '127.0.0.1', HELIOGRAPH_PORT: '0', HELIOGRAPH_MDNS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', log);
  child.once('spawn', () => writeFileSync(pidFile(name), String(child.pid)));
  child.once('error', (err) => log(`${name}.service: ${err.message}`));
  child.once('close', (code, signal) => {
    if (code === 0) log(`${name}.service: Deactivated successfully.`);
    else
      log(
        `${name}.service: Main process exited, code=${signal ? 'killed' : 'exited'}, status=${signal ?? code}/FAILURE`,
      );
  });
}

async function start(name) {
  if (running(name)) return;
  rmSync(pidFile(name), { force: true });
  const supervisor = spawn(process.execPath, [process.argv[1], 'supervise', name], {
    env: process.env,
    stdio: 'ignore',
    detached: true,
  });
  supervisor.unref();
  await until(`${name} started`, () => existsSync(pidFile(name)));
}

async function stop(name) {
  const pid = running(name);
  if (pid === undefined) return;
  process.kill(pid, 'SIGTERM');
  // Not a child of this process: its end can only be seen from outside.
  await until(`${name} (pid ${pid}) stopped`, () => running(name) === undefined);
  rmSync(pidFile(name), { force: true });
}

const args = process.argv.slice(2).filter((a) => a !== '--now');
const now = process.argv.includes('--now');
const [verb, unitName] = args;
const name = unitName?.replace(/\.service$/, '');
if (verb === 'supervise') supervise(name);
else {
  writeFileSync(join(root, 'simulated.log'), `systemctl ${process.argv.slice(2).join(' ')}\n`, { flag: 'a' });
  if (verb === 'daemon-reload') process.exit(0);
  if (verb === 'start' || (verb === 'enable' && now)) await start(name);
  else if (verb === 'stop' || (verb === 'disable' && now)) await stop(name);
  else if (verb === 'restart') {
    await stop(name);
    await start(name);
  } else if (verb !== 'enable' && verb !== 'disable') throw new Error(`systemctl ${verb}: not simulated`);
}
