// The walk of docs/plugins.md "From an empty folder to a running plugin", as a third-party
// author takes it: `heliograph plugin new` writes a driver package; the SDK and the core (for
// the test host) are packed and installed from their tarballs into it; the package builds
// with its own TypeScript and passes its own tests; `heliograph emulate --plugin-dir` runs its
// device, reached over a real pseudo-terminal (socat), and `serve --plugin-dir` runs the
// driver in its default isolation, reads it over the serial link and writes a setting.
// npm resolves from its cache where it can (--prefer-offline) and asks the registry only for
// what the cache lacks. Installs skip install scripts: SQLite's driver would fetch a prebuilt
// binary from the network (or build from source offline), so this test lends the checkout's
// built one instead; a plugin's CI with network access needs no such step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import type { InstanceStatus } from '@heliograph/core/plugins/host';
import { eventually, MAIN, startChildServer } from '../helpers/child-server.js';
import { serialBridge, SOCAT_SKIP } from '../helpers/pty-bridge.js';
import { jsonBody, REPO_ROOT, tempDir } from '../helpers/server.js';

const SDK_VERSION = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'plugins-sdk', 'package.json'), 'utf8')) as { version: string }
).version;

const exec = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * The environment of a command run as the author would in a shell: without what `npm test`
 * (npm_* settings naming this repository) or node's test runner (NODE_TEST_CONTEXT, which
 * would make the plugin's own `node --test` report to this runner) put there.
 */
function authorEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'NODE_TEST_CONTEXT'),
  );
}

async function run(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await exec(command, args, { cwd, env: authorEnv(), maxBuffer: 16 << 20 });
    return stdout;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: err });
  }
}

/** `heliograph emulate` in the plugin's folder; resolves with its port once it listens. */
async function emulate(cwd: string): Promise<{ port: number; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [MAIN, 'emulate', 'acme-meter', '--plugin-dir', '.', '--transport', 'rtu-over-tcp'],
    {
      cwd,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`emulate exited with ${code} before listening`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      const match = /^listening on 127\.0\.0\.1:(\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
      else reject(new Error(`emulate said: ${line}`));
    });
  });
  return { port, stop: async () => void (child.kill('SIGTERM'), await exited) };
}

test('plugin new, SDK and core from tarballs, own tests, emulate and serve over a serial link', async () => {
  const dir = tempDir('heliograph-outoftree-');
  const plugin = join(dir, 'acme-meter');
  const created = await run(process.execPath, [MAIN, 'plugin', 'new', 'acme-meter', '--kind', 'driver'], dir);
  assert.match(created, /^wrote the driver plugin acme-meter to /, created);
  assert.deepEqual(readdirSync(join(plugin, 'src')).sort(), ['emulator', 'index.ts', 'register-map.ts']);

  // npm pack: each prepack script builds its package.
  await run(npm, ['pack', '-w', 'plugins-sdk', '-w', 'core', '--pack-destination', dir, '--silent'], REPO_ROOT);
  const tarballs = readdirSync(dir).filter((name) => name.endsWith('.tgz'));
  assert.deepEqual(tarballs.sort(), ['heliograph-core-0.1.0.tgz', `heliograph-plugins-sdk-${SDK_VERSION}.tgz`]);
  const install = (...packages: string[]) =>
    run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '-D', ...packages], plugin);

  await install(`../heliograph-plugins-sdk-${SDK_VERSION}.tgz`);
  const sdk = join(plugin, 'node_modules', '@heliograph', 'plugins-sdk');
  assert.deepEqual(readdirSync(sdk).sort(), ['README.md', 'dist', 'package.json']);
  const tsc = join(plugin, 'node_modules', 'typescript', 'bin', 'tsc');
  const sdkPeers = (
    JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> }
  ).peerDependencies;
  const typescript = JSON.parse(readFileSync(join(plugin, 'node_modules', 'typescript', 'package.json'), 'utf8')) as {
    version: string;
  };
  assert.equal(sdkPeers.typescript, '^7.0.2', 'the TypeScript major the SDK is built for');
  assert.match(typescript.version, /^7\./, 'the package builds with the TypeScript the SDK names');
  await run(process.execPath, [tsc], plugin);
  // The test host runs the core's own plugin code: without the core it says what to install.
  const withoutCore = await run(npm, ['test'], plugin).then(
    (stdout) => stdout,
    (err: Error) => err.message,
  );
  assert.match(withoutCore, /install it next to the SDK with `npm install -D @heliograph\/core`/, withoutCore);

  await install('../heliograph-core-0.1.0.tgz');
  cpSync(
    join(REPO_ROOT, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node'),
    join(plugin, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node'),
  );
  const testRun = await run(npm, ['test'], plugin);
  // Node's default reporter writes `# pass 2` (TAP) on some versions and `ℹ pass 2` (spec) on others.
  assert.match(testRun, /^(#|ℹ) pass 2$/m, testRun);
  assert.match(testRun, /^(#|ℹ) fail 0$/m, testRun);

  const device = await emulate(plugin);
  try {
    const connection = SOCAT_SKIP
      ? { type: 'rtu-over-tcp', host: '127.0.0.1', port: device.port }
      : { type: 'serial', path: await serialBridge(device.port), baudRate: 9600 };
    const server = await startChildServer({
      plugins: [],
      args: ['--plugin-dir', '.'],
      cwd: plugin,
      env: { HELIOGRAPH_MDNS: '0' },
    });
    try {
      const added = await server.api(
        '/api/v1/plugins',
        jsonBody({
          id: 'acme',
          plugin: 'acme-meter',
          devices: ['inverter_1'],
          config: { connection, pollIntervalMs: 1000 },
        }),
      );
      assert.equal(added.status, 201, await added.clone().text());
      const status = await eventually(async () => {
        const list = (await (await server.api('/api/v1/plugins')).json()) as InstanceStatus[];
        const acme = list.find((p) => p.id === 'acme');
        return acme?.last_poll ? acme : undefined;
      }, 'the first poll of the driver');
      assert.equal(status.state, 'running', String(status.last_error));
      assert.equal(status.isolation, 'worker', 'a plugin from a folder under development runs isolated');
      const value = async (topic: string) => (await server.api(`/api/v1/metrics?topic=${topic}&value=1`)).text();
      assert.equal(await value('inverter_1/pv_power'), '1830');

      const write = await server.api(
        '/api/v1/metrics',
        jsonBody({ topic: 'inverter_1/max_charge_current', value: '80' }),
      );
      assert.equal(write.status, 200, await write.clone().text());
      assert.equal(await value('inverter_1/max_charge_current'), '80');
    } finally {
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0, server.stderr());
    }
  } finally {
    await device.stop();
  }
});
