// The README's "Install on a Raspberry Pi or Debian" sections, run word for word: every
// command block of Install, Running as a service, Backup and restore, Upgrade and Uninstall,
// in order, in bash. The fixed paths (/opt/heliograph, /var/lib/heliograph, /etc/systemd/system,
// /var/backups/heliograph) are moved under a temporary root, and what would change the machine
// is simulated by test/install/shims: sudo runs as the test's user, apt-get/useradd/userdel
// record, systemctl runs the unit's ExecStart on loopback and journalctl shows its log,
// `npm ci` links the checkout's node_modules (the packed-install test does a real install).
// The clone is of this checkout's committed HEAD.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, tempDir } from '../helpers/server.js';
import { run } from './service.js';

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const CHAPTER = '## Install on a Raspberry Pi or Debian';
const MOVED = ['/opt/heliograph', '/var/lib/heliograph', '/var/backups/heliograph', '/etc/systemd/system'];

/** The ```sh blocks of one ### section of the chapter, joined. */
function commands(title: string): string {
  const chapter = README.slice(README.indexOf(CHAPTER), README.indexOf('\n## ', README.indexOf(CHAPTER) + 1));
  const start = chapter.indexOf(`### ${title}\n`);
  assert.ok(start >= 0, `the README has a "${title}" section`);
  const end = chapter.indexOf('\n### ', start + 1);
  const text = chapter.slice(start, end < 0 ? undefined : end);
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.ok(blocks.length > 0, `"${title}" has commands`);
  return blocks.join('\n');
}

const root = tempDir('heliograph-readme-');
// The folders a Debian system has before the README starts.
for (const dir of ['etc/systemd/system', 'var/lib', 'var/backups', 'opt', 'usr/local/bin'])
  mkdirSync(join(root, dir), { recursive: true });
// The repository the README clones: this checkout's HEAD on a branch of a bare repository (a
// CI checkout may be a detached HEAD, which `git pull` in the Upgrade section cannot follow).
const origin = join(root, 'origin.git');
execFileSync('git', ['init', '--quiet', '--bare', origin]);
execFileSync('git', ['-C', REPO_ROOT, 'push', '--quiet', origin, 'HEAD:refs/heads/main']);
execFileSync('git', ['-C', origin, 'symbolic-ref', 'HEAD', 'refs/heads/main']);
const realNpm = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
const env = {
  PATH: `${join(REPO_ROOT, 'test', 'install', 'shims')}:${join(root, 'usr', 'local', 'bin')}:${process.env.PATH}`,
  HG_ROOT: root,
  HG_REPO_ROOT: REPO_ROOT,
  HG_REAL_NPM: realNpm,
  HG_NODE: process.execPath,
  NPM_CONFIG_PREFIX: join(root, 'usr', 'local'),
  HELIOGRAPH_REPO: origin,
  HELIOGRAPH_LOG_LEVEL: 'info',
  HELIOGRAPH_PASSWORD: '',
};

/** Runs a section's commands as written, the fixed paths moved under the root. */
async function follow(title: string): Promise<string> {
  let script = commands(title);
  for (const path of MOVED) script = script.split(path).join(root + path);
  const outside = /(^|[\s"'=])\/(opt|var|etc|root|home|srv)\//m.exec(script);
  assert.equal(outside, null, `a path outside the test's root is left in "${title}":\n${script}`);
  const result = await run(['bash', '-euo', 'pipefail', '-c', script], { env, cwd: root, deadlineMs: 5 * 60_000 });
  assert.equal(result.code, 0, `"${title}" failed:\n${script}\n---\n${result.output}`);
  return result.output;
}

const pidFile = join(root, 'heliograph.pid');
after(() => {
  // A failed run leaves no service behind.
  if (existsSync(pidFile)) {
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    } catch {
      // already gone
    }
  }
});
const journal = () => readFileSync(join(root, 'journal.log'), 'utf8');
const lastUrl = () => [...journal().matchAll(/listening on (http:\/\/127\.0\.0\.1:\d+)/g)].at(-1)?.[1];
const data = join(root, 'var', 'lib', 'heliograph');

test(
  "the README's install, service, backup, upgrade and uninstall sections, word for word",
  { timeout: 15 * 60_000 },
  async (t) => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'core', 'package.json'), 'utf8')) as {
      version: string;
    };
    const installed = await follow('Install');
    assert.match(
      installed,
      new RegExp(`heliograph ${version.replace(/\./g, '\\.')}`),
      'heliograph --version on the PATH',
    );

    const service = await follow('Running as a service');
    assert.match(service, /setup code: [A-Z0-9]{4}-[A-Z0-9]{4}/, 'journalctl -u heliograph shows the setup code');
    assert.equal((await fetch(`${lastUrl()}/`)).status, 200, 'the settings page answers');
    assert.equal(statSync(data).mode & 0o777, 0o700);
    assert.ok(existsSync(join(data, 'plugins.json')), 'the plugin setup was copied into the data directory');
    const siteId = readFileSync(join(data, 'site-id'), 'utf8');

    await follow('Backup and restore');
    const backups = readdirSync(join(root, 'var', 'backups', 'heliograph'));
    assert.equal(backups.length, 1, backups.join(', '));
    assert.equal(statSync(join(root, 'var', 'backups', 'heliograph', backups[0]!)).mode & 0o777, 0o600);
    assert.ok(
      readdirSync(data).some((n) => n.startsWith('heliograph.db.before-restore-')),
      'what restore replaced is kept',
    );
    assert.equal(readFileSync(join(data, 'site-id'), 'utf8'), siteId);
    assert.equal((await fetch(`${lastUrl()}/`)).status, 200, 'started again after the restore');

    const upgraded = await follow('Upgrade');
    assert.match(upgraded, /listening on http/, 'journalctl -n 20 shows the restarted service');
    assert.equal(readdirSync(join(root, 'var', 'backups', 'heliograph')).length, 2, 'a backup before the upgrade');
    assert.equal((await fetch(`${lastUrl()}/`)).status, 200);

    await follow('Uninstall');
    for (const gone of ['opt/heliograph', 'etc/systemd/system/heliograph.service', 'usr/local/bin/heliograph'])
      assert.ok(!existsSync(join(root, gone)), `${gone} is removed`);
    assert.ok(!existsSync(pidFile), 'the service is stopped');
    assert.ok(!existsSync(data) && !existsSync(join(root, 'var', 'backups', 'heliograph')), 'data removed at the end');
    for (const line of readFileSync(join(root, 'simulated.log'), 'utf8').trim().split('\n')) t.diagnostic(line);
  },
);
