// The `heliograph` command as a user runs it: a real child process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { basicAuth, tempDir } from '../helpers/server.js';
import { runCli } from '@heliograph/core/test/helpers/cli';
import { within } from '../helpers/deadline.js';
import { serveArgs } from '../helpers/serve-command.js';

const run = (args: string[], options: { env?: Record<string, string>; stdin?: string } = {}) =>
  runCli(args, { ...options, env: { HELIOGRAPH_LOG_LEVEL: 'warn', HELIOGRAPH_MDNS: '0', ...options.env } });

function site(
  plugins: unknown = { plugins: [{ id: 'sim', plugin: 'simulator', devices: ['inverter_1', 'battery_1'] }] },
) {
  const dir = tempDir();
  const pluginsFile = join(dir, 'plugins.json');
  writeFileSync(pluginsFile, JSON.stringify(plugins));
  return { dir, data: join(dir, 'data'), pluginsFile };
}

function listeningUrl(child: ReturnType<typeof run>['child']): Promise<string> {
  const listening = new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
      if (match) resolve(match[1]!);
    });
  });
  return within(listening, '"listening on http://127.0.0.1:<port>" line on stdout', 60_000);
}

test('serve --port 0 prints the address once it answers, and SIGTERM exits 0', async () => {
  const s = site();
  const server = run(serveArgs({ data: s.data, plugins: s.pluginsFile }), {
    env: { HELIOGRAPH_PASSWORD: 'a-long-password' },
  });
  const url = await listeningUrl(server.child);
  const res = await fetch(`${url}/api/v1/metrics?topic=total/pv_power`, {
    headers: { authorization: basicAuth('a-long-password') },
  });
  assert.equal(res.status, 200);
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});

test('settings come from the environment too', async () => {
  const s = site();
  const server = run(['serve'], {
    env: {
      HELIOGRAPH_HOST: '127.0.0.1',
      HELIOGRAPH_PORT: '0',
      HELIOGRAPH_DATA: s.data,
      HELIOGRAPH_PLUGINS: s.pluginsFile,
    },
  });
  const url = await listeningUrl(server.child);
  const res = await fetch(`${url}/api/v1/metrics`);
  assert.equal(res.status, 403, 'no password yet');
  assert.match(((await res.json()) as { error: string }).error, /heliograph password set/);
  server.child.kill('SIGINT');
  assert.equal(await server.exited, 0);
});

test('password set reads the password from stdin; the server then accepts it', async () => {
  const s = site();
  const set = run(['password', 'set', '--data', s.data], { stdin: 'from-stdin-secret\n' });
  assert.equal(await set.exited, 0, set.stderr());
  const server = run(serveArgs({ data: s.data, plugins: s.pluginsFile }));
  const url = await listeningUrl(server.child);
  assert.equal(
    (await fetch(`${url}/api/v1/plugins`, { headers: { authorization: basicAuth('from-stdin-secret') } })).status,
    200,
  );
  assert.equal(
    (await fetch(`${url}/api/v1/plugins`, { headers: { authorization: basicAuth('wrong-password') } })).status,
    401,
  );
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});

test('a bad config file stops the start and names the bad key', async () => {
  const s = site();
  mkdirSync(s.data, { recursive: true });
  writeFileSync(
    join(s.data, 'config.json'),
    JSON.stringify({ energy: { resetPeriod: 'yearly' }, site: { latitude: 'north' } }),
  );
  const server = run(['serve', '--port', '0', '--data', s.data, '--plugins', s.pluginsFile]);
  assert.equal(await server.exited, 1);
  assert.match(server.stderr(), /config\.json: site\.latitude: .*expected number/);
  assert.match(
    server.stderr(),
    /config\.json: energy\.resetPeriod: .*"daily"\|"weekly"\|"monthly"|config\.json: energy\.resetPeriod: .*daily.*weekly.*monthly/,
  );
});

// The password from the environment is hashed while the plugins load: a plugin's bad config
// still stops the start with its own error.
for (const env of [{}, { HELIOGRAPH_PASSWORD: 'a-long-password' }] as Record<string, string>[]) {
  test(`a bad plugins.json stops the start and names the bad key${'HELIOGRAPH_PASSWORD' in env ? ', with a password being set' : ''}`, async () => {
    const s = site({
      plugins: [{ id: 'sim', plugin: 'simulator', devices: ['inverter_1'], config: { pollIntervalMs: 'fast' } }],
    });
    const server = run(['serve', '--port', '0', '--data', s.data, '--plugins', s.pluginsFile], { env });
    assert.equal(await server.exited, 1);
    assert.match(
      server.stderr(),
      /plugins\.json: plugins\[0\]\.config\.pollIntervalMs: .*expected number.*"fast"|plugins\.json: plugins\[0\]\.config\.pollIntervalMs: .*expected number, received string/,
    );
  });
}

test('a HELIOGRAPH_PASSWORD that breaks the rules stops the start before anything is made, and says so', async () => {
  const s = site();
  const server = run(['serve', '--port', '0', '--data', s.data, '--plugins', s.pluginsFile], {
    env: { HELIOGRAPH_PASSWORD: 'short' },
  });
  assert.equal(await server.exited, 1);
  assert.match(
    server.stderr(),
    /cannot start:\nHELIOGRAPH_PASSWORD: the password must be at least 8 characters long \(this one has 5\)/,
  );
  assert.equal(existsSync(s.data), false, 'no data directory was made');
});

test('an unknown command prints the usage and exits 2', async () => {
  const cmd = run(['frobnicate']);
  assert.equal(await cmd.exited, 2);
  assert.match(cmd.stderr(), /Usage:/);
});

test('a config file named with --config must exist', async () => {
  const s = site();
  const server = run([
    'serve',
    '--port',
    '0',
    '--data',
    s.data,
    '--plugins',
    s.pluginsFile,
    '--config',
    join(s.dir, 'missing.json'),
  ]);
  assert.equal(await server.exited, 1);
  assert.match(server.stderr(), /missing\.json: no such config file \(given by --config\)/);
});
