#!/usr/bin/env node
/*
 * Installs, upgrades and rolls back a Heliograph release on a Debian machine under systemd
 * (README.md, "Install on a Raspberry Pi or Debian"). install.sh checks Node.js, unpacks the
 * tarball beside the installed releases and runs `installer.mjs install DIR`, or `rollback`.
 *
 *   /opt/heliograph/releases/<version>/   one folder per release, the checkout's layout, built
 *   /opt/heliograph/current, previous     symlinks to two of them (the unit runs current)
 *   /etc/systemd/system/heliograph.service, /usr/local/bin/heliograph (-> current's command)
 *   /var/lib/heliograph                   the data (systemd's StateDirectory), never touched here
 *   /var/backups/heliograph               the backup made before each upgrade
 *
 * One Heliograph per data directory (its lock), so a new version cannot start beside the
 * running one: the running one stops, `current` switches, the new one starts, and unless it
 * answers (its "listening on" line in the journal, then GET /api/v1/setup, which answers
 * without credentials) within the deadline, `current` switches back and the previous version
 * starts again. Either way the command says what it did; it exits 1 when it did not upgrade.
 *
 * HELIOGRAPH_FS_ROOT: a folder standing for / (the tests). HELIOGRAPH_START_DEADLINE_S: how long
 * a start may take before it counts as failed (default 300: a Pi's first start).
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = process.env.HELIOGRAPH_FS_ROOT ?? '';
const OPT = `${ROOT}/opt/heliograph`;
const RELEASES = join(OPT, 'releases');
const CURRENT = join(OPT, 'current');
const PREVIOUS = join(OPT, 'previous');
const UNIT = `${ROOT}/etc/systemd/system/heliograph.service`;
const COMMAND = `${ROOT}/usr/local/bin/heliograph`;
const DATA = `${ROOT}/var/lib/heliograph`;
const BACKUPS = `${ROOT}/var/backups/heliograph`;
const USER = 'heliograph';
const DEADLINE_MS = Number(process.env.HELIOGRAPH_START_DEADLINE_S ?? 300) * 1000;

class Stop extends Error {}

/** Runs a program; its output is shown unless `quiet`. Throws naming it when it fails. */
function run(program, args, { quiet = false, allowFail = false } = {}) {
  const result = spawnSync(program, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (!quiet) process.stdout.write(result.stdout + result.stderr);
  if (!allowFail && result.status !== 0)
    throw new Stop(`${program} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})`);
  return result;
}

const versionOf = (dir) => JSON.parse(readFileSync(join(dir, 'core', 'package.json'), 'utf8')).version;
const mainOf = (dir) => join(dir, 'core', 'dist', 'src', 'main.js');
/** The release folder a symlink points to, or undefined. */
const target = (link) => (existsSync(link) ? join(OPT, readlinkSync(link)) : undefined);

/** Points `link` at a release folder in one rename (never a moment without it). */
function pointAt(link, dir) {
  const next = `${link}.next`;
  rmSync(next, { force: true });
  symlinkSync(join('releases', basename(dir)), next);
  renameSync(next, link);
}

/** The release's command, run as the service's user (its files are the user's only). */
function asUser(dir, args, options) {
  return run('runuser', ['-u', USER, '--', process.execPath, mainOf(dir), ...args], options);
}

function journalSince(seconds) {
  return run('journalctl', ['-u', 'heliograph', '--since', `@${seconds}`, '-o', 'cat', '--no-pager'], {
    quiet: true,
    allowFail: true,
  }).stdout;
}

/**
 * Resolves once the wall clock (Date.now()) has reached `ms`. A timer alone is not enough: it
 * runs on the event loop's own clock, in whole ms, and ends up to 1 ms before the wall clock
 * gets there (3 of 300 short timers on Node 24, 1 of 300 on Node 22). Waiting for the next
 * second that way could end in the second before, where a failed start's "Main process
 * exited" would then be read as the next start's.
 */
export async function untilClock(ms) {
  while (Date.now() < ms) await new Promise((resolve) => setTimeout(resolve, Math.max(1, ms - Date.now())));
}

/**
 * Starts the unit and waits until it answers. Resolves with the address it answers on, or
 * rejects with why not and its last log lines.
 */
async function startAndWait() {
  // The journal is asked from the second the start is in, so the stop's lines are not read
  // as the new start's: wait for the next second to begin.
  const since = Math.floor(Date.now() / 1000) + 1;
  await untilClock(since * 1000);
  run('systemctl', ['start', 'heliograph']);
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const log = journalSince(since);
    const exited = /Main process exited, code=\w+, status=(?!0\/).*/.exec(log);
    const last = () => log.trim().split('\n').slice(-20).join('\n');
    if (exited) throw new Stop(`it stopped at the start (${exited[0]}). Its last log lines:\n${last()}`);
    const listening = /listening on (http:\/\/\S+)/.exec(log);
    if (listening) {
      const url = listening[1].replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
      const answer = await fetch(`${url}/api/v1/setup`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
      if (answer?.status === 200) return url;
    }
    if (Date.now() > deadline)
      throw new Stop(`it did not answer within ${DEADLINE_MS / 1000} s. Its last log lines:\n${last()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function installUnit(dir) {
  const unit = join(dir, 'config', 'heliograph.service');
  if (!existsSync(UNIT) || readFileSync(UNIT, 'utf8') !== readFileSync(unit, 'utf8')) {
    copyFileSync(unit, UNIT);
    run('systemctl', ['daemon-reload']);
  }
  run('systemctl', ['enable', 'heliograph'], { quiet: true });
  rmSync(COMMAND, { force: true });
  symlinkSync(mainOf(CURRENT), COMMAND);
}

function ensureUser() {
  if (run('getent', ['passwd', USER], { quiet: true, allowFail: true }).status === 0) return;
  run('useradd', [
    '--system',
    '--no-create-home',
    '--home-dir',
    '/var/lib/heliograph',
    '--shell',
    '/usr/sbin/nologin',
    '--groups',
    'dialout',
    USER,
  ]);
}

/** Says where the page is and how to sign in the first time. */
function welcome(dir, url) {
  const port = new URL(url).port;
  console.log(
    `Heliograph ${versionOf(dir)} answers: open http://${hostname()}.local:${port}/ (or this machine's address).`,
  );
  const code = asUser(dir, ['setup-code', '--data', DATA], { quiet: true, allowFail: true });
  if (code.status === 0) console.log(`The page asks for the setup code: ${code.stdout.trim()}`);
  else console.log('A password is set: sign in with it.');
}

/** A folder name in releases/ for this version, other than the two kept. */
function releaseFolder(version) {
  const kept = [target(CURRENT), target(PREVIOUS)];
  for (let n = 1; ; n++) {
    const dir = join(RELEASES, n === 1 ? version : `${version}-${n}`);
    if (!kept.includes(dir)) return dir;
  }
}

/** Only current and previous stay (and what another install is unpacking). */
function pruneReleases() {
  const kept = [target(CURRENT), target(PREVIOUS)];
  for (const name of readdirSync(RELEASES))
    if (!name.startsWith('.') && !kept.includes(join(RELEASES, name)))
      rmSync(join(RELEASES, name), { recursive: true, force: true });
}

function checkRelease(dir) {
  const release = JSON.parse(readFileSync(join(dir, 'release.json'), 'utf8'));
  if (release.platform !== process.platform || release.arch !== process.arch)
    throw new Stop(
      `this release was built for ${release.platform}-${release.arch} and this machine is ${process.platform}-${process.arch}: ` +
        `build it with npm run release on a ${process.arch} machine (a Raspberry Pi itself will do)`,
    );
}

async function install(incoming) {
  try {
    checkRelease(incoming);
  } catch (err) {
    if (incoming.startsWith(RELEASES + '/')) rmSync(incoming, { recursive: true, force: true });
    throw err;
  }
  const version = versionOf(incoming);
  const dir = releaseFolder(version);
  rmSync(dir, { recursive: true, force: true });
  if (incoming.startsWith(RELEASES + '/')) renameSync(incoming, dir);
  else cpSync(incoming, dir, { recursive: true, verbatimSymlinks: true });
  ensureUser();
  run('install', ['-d', '-o', USER, '-g', USER, '-m', '0700', BACKUPS]);
  const old = target(CURRENT);
  if (!old) {
    pointAt(CURRENT, dir);
    installUnit(dir);
    welcome(dir, await startAndWait());
    return;
  }
  const oldVersion = versionOf(old);
  const stamp = new Date().toISOString().replace(/[:.]/g, '').slice(0, 17);
  const backup = join(BACKUPS, `before-upgrade-to-${version}-${stamp}.backup`);
  console.log(`Upgrading ${oldVersion} to ${version}; first a backup: ${backup}`);
  asUser(old, ['backup', '--data', DATA, backup]);
  const oldPrevious = target(PREVIOUS);
  run('systemctl', ['stop', 'heliograph']);
  pointAt(PREVIOUS, old);
  pointAt(CURRENT, dir);
  installUnit(dir);
  try {
    const url = await startAndWait();
    pruneReleases();
    console.log(
      `Upgraded to ${version}; ${oldVersion} is kept: sudo sh /opt/heliograph/current/install.sh rollback goes back.`,
    );
    welcome(dir, url);
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    console.error(`${version} did not start: ${err.message}\nGoing back to ${oldVersion}.`);
    run('systemctl', ['stop', 'heliograph']);
    pointAt(CURRENT, old);
    if (oldPrevious) pointAt(PREVIOUS, oldPrevious);
    else rmSync(PREVIOUS, { force: true });
    installUnit(old);
    rmSync(dir, { recursive: true, force: true });
    await startAndWait().catch((again) => {
      throw new Stop(`${oldVersion} did not start again either: ${again.message}\n${restoreHint(backup)}`);
    });
    throw new Stop(`Not upgraded: ${oldVersion} runs again. The backup made before: ${backup}`);
  }
}

function restoreHint(backup) {
  return [
    `If ${backup} is what to go back to (a newer version may have changed the database):`,
    '  sudo systemctl stop heliograph',
    `  sudo -u heliograph heliograph restore --data /var/lib/heliograph ${backup}`,
    '  sudo systemctl start heliograph',
  ].join('\n');
}

async function rollback() {
  const current = target(CURRENT);
  const previous = target(PREVIOUS);
  if (!current || !previous || !existsSync(previous))
    throw new Stop('there is no previous version to go back to (only an upgrade keeps one)');
  console.log(`Going back from ${versionOf(current)} to ${versionOf(previous)}.`);
  run('systemctl', ['stop', 'heliograph']);
  pointAt(CURRENT, previous);
  pointAt(PREVIOUS, current);
  installUnit(previous);
  const newest = readdirSync(BACKUPS)
    .filter((name) => name.startsWith('before-upgrade-'))
    .map((name) => ({ name, at: statSync(join(BACKUPS, name)).mtimeMs }))
    .sort((a, b) => a.at - b.at)
    .at(-1)?.name;
  const url = await startAndWait().catch((err) => {
    throw new Stop(`${err.message}\n${newest ? restoreHint(join(BACKUPS, newest)) : ''}`);
  });
  console.log(`Back on ${versionOf(previous)}; ${versionOf(current)} is kept as the previous version.`);
  welcome(previous, url);
}

/** What install.sh runs; nothing when a test imports this file for untilClock. */
async function main() {
  const [verb, dir] = process.argv.slice(2);
  try {
    if (verb === 'install' && dir) await install(dir);
    else if (verb === 'rollback') await rollback();
    else throw new Stop('usage: installer.mjs install DIR | rollback (see install.sh)');
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    console.error(`heliograph install: ${err.message}`);
    process.exitCode = 1;
  }
}

// Node runs a symlinked script by its real path (import.meta.url), install.sh may name it
// through /opt/heliograph/current: compared as real paths.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
