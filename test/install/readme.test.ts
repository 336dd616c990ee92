// The README's "Install on a Raspberry Pi or Debian" chapter, run word for word: every command
// block of every section, in bash. "The release" builds the tarball from this checkout's build
// (HELIOGRAPH_RELEASE_PREBUILT=1: the suite built it already); two more are made from it, a
// working 0.1.1 and a 0.1.2 whose main.js exits 1. Then Install (NodeSource's repository, the
// release), Running as a service, Backup and restore, Upgrade to 0.1.1, Upgrade to the broken
// 0.1.2 (refused: 0.1.1 keeps answering), Rollback to 0.1.0, Uninstall.
//
// The fixed paths (/opt/heliograph, /var/lib/heliograph, /etc/systemd/system, /etc/apt, ...) are
// moved under a temporary root (HELIOGRAPH_FS_ROOT tells install.sh), and what would change the
// machine is simulated by test/install/shims: sudo and runuser run as the test's user,
// apt-get/curl/gpg/useradd/userdel record, systemctl runs the unit's ExecStart on loopback as
// systemd would (Type=simple, the end of the process in the journal) and journalctl shows it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { pollUntil } from '../helpers/deadline.js';
import { REPO_ROOT, tempDir } from '../helpers/server.js';
import { run } from './service.js';

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const CHAPTER = '## Install on a Raspberry Pi or Debian';
const MOVED = [
  '/opt/heliograph',
  '/var/lib/heliograph',
  '/var/backups/heliograph',
  '/var/cache/heliograph',
  '/etc/systemd/system',
  '/etc/apt',
  '/usr/local/bin',
];
const SECTIONS = [
  'The release',
  'Install',
  'Running as a service',
  'Backup and restore',
  'Upgrade',
  'Rollback',
  'Uninstall',
];

/** The chapter's ### sections, each with its ```sh blocks joined. */
function chapterBlocks(): Map<string, string> {
  const from = README.indexOf(CHAPTER);
  assert.ok(from >= 0, `the README has "${CHAPTER}"`);
  const chapter = README.slice(from, README.indexOf('\n## ', from + 1));
  const sections = new Map<string, string>();
  for (const part of chapter.split('\n### ').slice(1)) {
    const title = part.slice(0, part.indexOf('\n'));
    const blocks = [...part.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    if (blocks.length > 0) sections.set(title, blocks.join('\n'));
  }
  return sections;
}
const BLOCKS = chapterBlocks();

const root = tempDir('heliograph-readme-');
// The folders a Debian system has before the README starts.
for (const dir of [
  'etc/systemd/system',
  'etc/apt/sources.list.d',
  'var/lib',
  'var/backups',
  'var/cache',
  'opt',
  'usr/local/bin',
])
  mkdirSync(join(root, dir), { recursive: true });
const built = join(root, 'build');
const env: Record<string, string> = {
  PATH: `${join(REPO_ROOT, 'test', 'install', 'shims')}:${join(root, 'usr', 'local', 'bin')}:${process.env.PATH}`,
  HG_ROOT: root,
  HG_REPO_ROOT: REPO_ROOT,
  HG_NODE: process.execPath,
  HELIOGRAPH_FS_ROOT: root,
  HELIOGRAPH_START_DEADLINE_S: '90',
  HELIOGRAPH_LOG_LEVEL: 'info',
  HELIOGRAPH_PASSWORD: '',
};

/** Runs a section's commands as written, the fixed paths moved under the root. */
async function follow(title: string, extra: { env?: Record<string, string>; cwd?: string } = {}) {
  let script = BLOCKS.get(title);
  assert.ok(script, `"${title}" has commands`);
  for (const path of MOVED) script = script.split(path).join(root + path);
  const outside = /(^|[\s"'=])\/(opt|var|etc|root|home|srv|usr\/local)\//m.exec(script);
  assert.equal(outside, null, `a path outside the test's root is left in "${title}":\n${script}`);
  return run(['bash', '-euo', 'pipefail', '-c', script], {
    env: { ...env, ...extra.env },
    cwd: extra.cwd ?? root,
    deadlineMs: 5 * 60_000,
  });
}
async function succeed(title: string, extra: Parameters<typeof follow>[1] = {}): Promise<string> {
  const result = await follow(title, extra);
  assert.equal(result.code, 0, `"${title}" failed:\n${result.output}`);
  return result.output;
}

const journal = () => readFileSync(join(root, 'journal.log'), 'utf8');
const lastUrl = () => [...journal().matchAll(/listening on (http:\/\/127\.0\.0\.1:\d+)/g)].at(-1)?.[1];
const data = join(root, 'var', 'lib', 'heliograph');
const backups = join(root, 'var', 'backups', 'heliograph');
const link = (name: string) => readlinkSync(join(root, 'opt', 'heliograph', name));
const installedVersion = async () => (await run([join(root, 'usr', 'local', 'bin', 'heliograph'), '--version'])).output;

/** Waits until the service's newest start answers the setup route (which needs no password). */
async function answering(what: string): Promise<void> {
  await pollUntil(
    async () => {
      const url = lastUrl();
      const status = url ? await fetch(`${url}/api/v1/setup`).then((r) => r.status, String) : 'no listening line';
      return { done: status === 200, seen: status };
    },
    `the service answers ${what}`,
    { ms: 60_000 },
  );
}

/** A copy of the release tarball with another version, and another main.js if given. */
function derive(tarball: string, version: string, change: { mainJs?: string } = {}): string {
  const dir = join(tempDir(), 'unpacked');
  mkdirSync(dir);
  execFileSync('tar', ['-xzf', tarball, '-C', dir]);
  const pkgFile = join(dir, 'heliograph', 'core', 'package.json');
  writeFileSync(pkgFile, JSON.stringify({ ...JSON.parse(readFileSync(pkgFile, 'utf8')), version }));
  if (change.mainJs) {
    const main = join(dir, 'heliograph', 'core', 'dist', 'src', 'main.js');
    writeFileSync(main, change.mainJs);
    chmodSync(main, 0o755);
  }
  const releaseFile = join(dir, 'heliograph', 'release.json');
  writeFileSync(releaseFile, JSON.stringify({ ...JSON.parse(readFileSync(releaseFile, 'utf8')), version }));
  const out = join(built, `heliograph-${version}-linux-${process.arch}.tar.gz`);
  // gzip's fastest level: these copies are made in every run.
  execFileSync('tar', ['-I', 'gzip -1', '-cf', out, '-C', dir, 'heliograph']);
  return out;
}

/** A release that holds only what install.sh reads before it refuses one built for another machine. */
function foreign(tarball: string, arch: string): string {
  const dir = join(tempDir(), 'unpacked');
  mkdirSync(dir);
  const kept = ['install.sh', 'config/release/installer.mjs', 'core/package.json', 'release.json'];
  execFileSync('tar', ['-xzf', tarball, '-C', dir, ...kept.map((file) => `heliograph/${file}`)]);
  const releaseFile = join(dir, 'heliograph', 'release.json');
  writeFileSync(releaseFile, JSON.stringify({ ...JSON.parse(readFileSync(releaseFile, 'utf8')), arch }));
  const out = join(built, `heliograph-0.0.9-linux-${arch}.tar.gz`);
  execFileSync('tar', ['-czf', out, '-C', dir, 'heliograph']);
  return out;
}

let tarball = '';
after(() => {
  // A failed run leaves no service behind.
  const pidFile = join(root, 'heliograph.pid');
  if (!existsSync(pidFile)) return;
  try {
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
  } catch {
    // already gone
  }
});

test('the chapter has no command block the test does not run', () => {
  assert.deepEqual([...BLOCKS.keys()], SECTIONS);
});

test(
  '"The release": npm run release writes the tarball and prints its path and size',
  { timeout: 5 * 60_000 },
  async () => {
    const output = await succeed('The release', {
      cwd: REPO_ROOT,
      env: { HELIOGRAPH_RELEASE_PREBUILT: '1', HELIOGRAPH_RELEASE_OUT: built },
    });
    const printed = /^(\/\S+\.tar\.gz) \((\d+\.\d) MB, Heliograph (\S+) for linux-(\S+)\)$/m.exec(output);
    assert.ok(printed, output);
    tarball = printed[1]!;
    assert.equal(tarball, join(built, `heliograph-${printed[3]}-linux-${process.arch}.tar.gz`));
    assert.equal(statSync(tarball).size > 1e6, true);
    const listed = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8', maxBuffer: 64 << 20 }).split('\n');
    for (const file of [
      'heliograph/install.sh',
      'heliograph/config/heliograph.service',
      'heliograph/core/dist/src/main.js',
      'heliograph/web/dist/index.html',
      'heliograph/plugins/simulator/package.json',
      'heliograph/node_modules/sqlite3/build/Release/node_sqlite3.node',
      'heliograph/node_modules/koa/package.json',
    ])
      assert.ok(listed.includes(file), `${file} is in the release`);
    assert.ok(!listed.some((f) => f.startsWith('heliograph/node_modules/typescript/')), 'no development dependency');
  },
);

test('install.sh refuses an old Node and a release built for another architecture, changing nothing', async () => {
  assert.ok(tarball, 'the release was built');
  const oldNode = join(tempDir(), 'bin');
  mkdirSync(oldNode);
  writeFileSync(join(oldNode, 'node'), '#!/bin/sh\necho 18.19.0\n', { mode: 0o755 });
  const old = await follow('Install', {
    env: { HELIOGRAPH_TARBALL: tarball, PATH: `${oldNode}:${env.PATH}` },
  });
  assert.equal(old.code, 1, old.output);
  assert.match(old.output, /needs Node\.js 22\.18 or newer \(24 recommended\); this is 18\.19\.0/);
  assert.match(old.output, /Node 24 from NodeSource: curl -fsSL https:\/\/deb\.nodesource\.com\/setup_24\.x/);
  const { engines } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    engines: { node: string };
  };
  const [major, minor] = /^>=(\d+)\.(\d+)\.0$/.exec(engines.node)!.slice(1);
  const script = readFileSync(join(REPO_ROOT, 'config', 'release', 'install.sh'), 'utf8');
  assert.ok(
    script.includes(`[ "$major" -lt ${major} ] || { [ "$major" -eq ${major} ] && [ "$minor" -lt ${minor} ]; }`),
    `install.sh refuses below package.json's engines (${engines.node})`,
  );

  const other = await follow('Install', { env: { HELIOGRAPH_TARBALL: foreign(tarball, 'mips') } });
  assert.equal(other.code, 1, other.output);
  assert.match(other.output, /built for linux-mips and this machine is linux-/);
  assert.deepEqual(readdirSync(join(root, 'opt', 'heliograph', 'releases')), [], 'nothing unpacked is left');
  assert.ok(!existsSync(join(root, 'etc', 'systemd', 'system', 'heliograph.service')));
});

test(
  'install, service, backup, upgrade, a failed upgrade rolled back, rollback and uninstall, word for word',
  { timeout: 10 * 60_000 },
  async (t) => {
    assert.ok(tarball, 'the release was built');
    const version = /^heliograph-(\S+)-linux-/.exec(basename(tarball))![1]!;
    const working = derive(tarball, '0.1.1');
    const broken = derive(tarball, '0.1.2', {
      mainJs: "#!/usr/bin/env node\nconsole.error('a release that cannot start');\nprocess.exit(1);\n",
    });

    const installed = await succeed('Install', { env: { HELIOGRAPH_TARBALL: tarball } });
    assert.match(installed, new RegExp(`Heliograph ${version.replace(/\./g, '\\.')} answers: open http://\\S+:\\d+/`));
    assert.match(installed, /The page asks for the setup code: [A-Z0-9]{4}-[A-Z0-9]{4}/);
    assert.equal(link('current'), `releases/${version}`);
    assert.equal(await installedVersion(), `heliograph ${version}\n`, 'heliograph --version on the PATH');
    const sources = readFileSync(join(root, 'etc', 'apt', 'sources.list.d', 'nodesource.list'), 'utf8');
    assert.match(
      sources,
      /^deb \[signed-by=\S+\/etc\/apt\/keyrings\/nodesource\.gpg\] https:\/\/deb\.nodesource\.com\/node_24\.x nodistro main$/m,
    );
    assert.ok(existsSync(join(root, 'etc', 'apt', 'keyrings', 'nodesource.gpg')), 'the signing key is in place');
    const simulated = () => readFileSync(join(root, 'simulated.log'), 'utf8');
    assert.match(simulated(), /apt-get install -y nodejs/);
    assert.match(simulated(), /useradd --system .*--groups dialout heliograph/);
    await answering('after the install');
    assert.equal((await fetch(`${lastUrl()}/`)).status, 200, "the settings page, from the release's web/dist");
    assert.equal(statSync(data).mode & 0o777, 0o700);
    assert.ok(existsSync(join(data, 'plugins.json')), 'the plugin setup was copied into the data directory');
    const siteId = readFileSync(join(data, 'site-id'), 'utf8');

    const service = await succeed('Running as a service');
    assert.match(service, /^\d{4}-\d\d-\d\dT\S+ (info|warn) /m, "journalctl -u heliograph shows the service's log");

    await succeed('Backup and restore');
    await answering('after the restore');
    assert.ok(
      readdirSync(data).some((n) => n.startsWith('heliograph.db.before-restore-')),
      'what restore replaced is kept',
    );
    assert.equal(readFileSync(join(data, 'site-id'), 'utf8'), siteId);
    const ownBackups = readdirSync(backups).length;

    const upgraded = await succeed('Upgrade', { env: { HELIOGRAPH_TARBALL: working } });
    assert.match(upgraded, new RegExp(`Upgraded to 0\\.1\\.1; ${version.replace(/\./g, '\\.')} is kept`));
    assert.deepEqual([link('current'), link('previous')], ['releases/0.1.1', `releases/${version}`]);
    assert.equal(await installedVersion(), 'heliograph 0.1.1\n');
    assert.ok(
      readdirSync(backups).some((n) => n.startsWith('before-upgrade-to-0.1.1-')),
      'a backup before the upgrade',
    );
    assert.equal(readdirSync(backups).length, ownBackups + 1);
    await answering('after the upgrade');
    assert.equal(readFileSync(join(data, 'site-id'), 'utf8'), siteId);

    const failed = await follow('Upgrade', { env: { HELIOGRAPH_TARBALL: broken } });
    assert.equal(failed.code, 1, failed.output);
    assert.match(
      failed.output,
      /0\.1\.2 did not start: it stopped at the start \(Main process exited, code=exited, status=1\/FAILURE\)/,
    );
    assert.match(failed.output, /a release that cannot start/, "the new version's last log lines");
    assert.match(failed.output, /Not upgraded: 0\.1\.1 runs again/);
    assert.deepEqual([link('current'), link('previous')], ['releases/0.1.1', `releases/${version}`]);
    assert.deepEqual(readdirSync(join(root, 'opt', 'heliograph', 'releases')).sort(), [version, '0.1.1'].sort());
    await answering('on 0.1.1 again after the failed upgrade');
    assert.equal(await installedVersion(), 'heliograph 0.1.1\n');

    const rolledBack = await succeed('Rollback');
    assert.match(rolledBack, new RegExp(`Back on ${version.replace(/\./g, '\\.')}`));
    assert.deepEqual([link('current'), link('previous')], [`releases/${version}`, 'releases/0.1.1']);
    assert.equal(await installedVersion(), `heliograph ${version}\n`);
    await answering('after the rollback');

    await succeed('Uninstall');
    for (const gone of ['opt/heliograph', 'etc/systemd/system/heliograph.service', 'usr/local/bin/heliograph'])
      assert.ok(!existsSync(join(root, gone)), `${gone} is removed`);
    assert.ok(!existsSync(join(root, 'heliograph.pid')), 'the service is stopped');
    assert.ok(!existsSync(data) && !existsSync(backups), 'data removed at the end');
    for (const line of simulated().trim().split('\n')) t.diagnostic(line);
  },
);
