// The service as packaged: config/heliograph.service's ExecStart line, run as written with the
// paths of a temp installation, starts the service, which logs the setup code that
// `journalctl -u heliograph` shows; the Dockerfile's run stage starts the same way, non-root,
// data in /data. (No docker engine here: the image itself is not built by this test.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, tempDir } from '../helpers/server.js';
import { startService } from './service.js';
import {
  execStartWords,
  imageEnvironment,
  readDockerfile,
  readUnit,
  runStage,
  startScript,
  unitEnvironment,
  unitValue,
} from './unit-file.js';

const UNIT = join(REPO_ROOT, 'config', 'heliograph.service');
const DOCKERFILE = join(REPO_ROOT, 'config', 'Dockerfile');

/** Replaces the installation's fixed paths by the checkout and a temp folder. */
function mapPaths(words: string[], map: Record<string, string>): string[] {
  return words.map((word) => Object.entries(map).reduce((w, [from, to]) => w.split(from).join(to), word));
}

test('the unit: a system user in dialout, restart on failure, data in /var/lib/heliograph owner-only', () => {
  const unit = readUnit(UNIT);
  assert.equal(unitValue(unit, 'Service', 'User'), 'heliograph');
  assert.match(unitValue(unit, 'Service', 'SupplementaryGroups'), /\bdialout\b/);
  assert.equal(unitValue(unit, 'Service', 'Restart'), 'on-failure');
  assert.equal(unitValue(unit, 'Service', 'StateDirectory'), 'heliograph');
  assert.equal(unitValue(unit, 'Service', 'StateDirectoryMode'), '0700');
  assert.equal(unitValue(unit, 'Service', 'UMask'), '0077');
  assert.equal(unitValue(unit, 'Install', 'WantedBy'), 'multi-user.target');
  const words = execStartWords(unit);
  // node from systemd's PATH: NodeSource's package (/usr/bin) and nodejs.org's build unpacked
  // into /usr/local (/usr/local/bin) alike.
  assert.deepEqual(words.slice(0, 2), ['/usr/bin/env', 'node']);
  assert.match(words.at(-4)!, /^\/opt\/heliograph\/current\//, 'the release the installer switches to');
  assert.deepEqual(words.slice(-3), ['serve', '--data', '/var/lib/heliograph']);
});

test(
  'systemd-analyze verify accepts the unit',
  { skip: !existsSync('/usr/bin/systemd-analyze') && 'no systemd-analyze' },
  () => {
    // Throws with systemd's complaint when the unit is not valid.
    execFileSync('/usr/bin/systemd-analyze', ['verify', UNIT], { stdio: 'pipe' });
  },
);

test('ExecStart as written starts the service, and its log shows the setup code', async () => {
  const state = join(tempDir(), 'var', 'lib', 'heliograph');
  // What systemd does for StateDirectory= and StateDirectoryMode=.
  mkdirSync(state, { recursive: true, mode: 0o700 });
  const words = mapPaths(execStartWords(readUnit(UNIT)), {
    '/opt/heliograph/current/': REPO_ROOT,
    '/var/lib/heliograph': state,
  });
  // Loopback only in tests: the unit's 0.0.0.0:8080 comes from the defaults, which the environment overrides.
  const service = await startService(words, {
    cwd: state,
    env: {
      ...unitEnvironment(readUnit(UNIT)),
      HELIOGRAPH_HOST: '127.0.0.1',
      HELIOGRAPH_PORT: '0',
      HELIOGRAPH_PASSWORD: '',
      HELIOGRAPH_LOG_LEVEL: 'info',
    },
  });
  try {
    await service.waitFor(/setup code: [A-Z0-9]{4}-[A-Z0-9]{4}/, 'the setup code in the log');
    const page = await fetch(service.url + '/');
    assert.equal(page.status, 200, 'the settings page answers');
    assert.equal((await fetch(service.url + '/api/v1/system')).status, 403, 'no password yet: the API waits for one');
    assert.equal(statSync(join(state, 'heliograph.db')).mode & 0o777, 0o600);
    assert.ok(existsSync(join(state, 'plugins.json')), 'the plugin setup is in the data directory');
  } finally {
    assert.equal(await service.stop(), 0);
  }
});

test('npm start, the unit and the Dockerfile start node alike: the same flags and C allocator settings', () => {
  const start = startScript(join(REPO_ROOT, 'package.json'));
  assert.ok(start.env.GLIBC_TUNABLES, 'npm start sets the C allocator (README, "Memory and the C allocator")');
  const unit = readUnit(UNIT);
  assert.deepEqual(
    execStartWords(unit).slice(2, -4),
    start.nodeFlags,
    'the unit runs node with the flags of npm start',
  );
  assert.equal(unitEnvironment(unit).GLIBC_TUNABLES, start.env.GLIBC_TUNABLES);
  const run = runStage(readDockerfile(DOCKERFILE));
  const cmd = JSON.parse(run.find((s) => s.keyword === 'CMD')!.args) as string[];
  assert.deepEqual(cmd.slice(1, -4), start.nodeFlags, 'the image runs node with the flags of npm start');
  assert.equal(imageEnvironment(run).GLIBC_TUNABLES, start.env.GLIBC_TUNABLES);
});

test('the Dockerfile: multi-stage, non-root, /data volume; its CMD starts the service from the build', async () => {
  const steps = readDockerfile(DOCKERFILE);
  assert.ok(Math.max(...steps.map((s) => s.stage)) >= 1, 'a build stage and a run stage');
  const run = runStage(steps);
  const of = (keyword: string) => run.filter((s) => s.keyword === keyword).map((s) => s.args);
  assert.ok(of('USER').length === 1 && !/^(root|0)$/.test(of('USER')[0]!), 'runs as a user other than root');
  assert.deepEqual(of('VOLUME'), ['/data']);
  assert.deepEqual(of('EXPOSE'), ['8080']);
  // Everything the run stage copies from the build exists in a built checkout.
  for (const copy of of('COPY')) {
    const sources = copy
      .replace(/^--from=\S+\s+/, '')
      .split(/\s+/)
      .slice(0, -1);
    for (const source of sources) assert.ok(existsSync(source.replace(/^\/src\//, REPO_ROOT)), `${source} is built`);
  }
  for (const script of [
    ...steps
      .map((s) => s.args)
      .join(' ')
      .matchAll(/npm run (\S+)/g),
  ].map((m) => m[1]!))
    assert.ok(
      (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: object }).scripts[
        script as never
      ],
      script,
    );
  const ignore = readFileSync(`${DOCKERFILE}.dockerignore`, 'utf8');
  for (const pattern of ['**/node_modules', '**/dist', 'data'])
    assert.match(ignore, new RegExp(`^${pattern.replace(/\*/g, '\\*')}$`, 'm'));

  const env = imageEnvironment(run);
  assert.equal(env.HELIOGRAPH_DATA, '/data');
  const data = join(tempDir(), 'data');
  mkdirSync(data, { mode: 0o700 });
  const cmd = JSON.parse(of('CMD')[0]!) as string[];
  const words = mapPaths(cmd, { '/app/': REPO_ROOT, '/data': data });
  words[0] = process.execPath;
  const service = await startService(words, {
    env: { ...env, HELIOGRAPH_DATA: data, HELIOGRAPH_HOST: '127.0.0.1', HELIOGRAPH_PORT: '0', HELIOGRAPH_PASSWORD: '' },
  });
  try {
    await service.waitFor(/setup code: /, 'the setup code in the log (docker logs heliograph)');
    assert.ok(existsSync(join(data, 'heliograph.db')), 'the data lands in the volume');
  } finally {
    assert.equal(await service.stop(), 0);
  }
});
