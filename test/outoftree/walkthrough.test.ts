// The walk of docs/plugins.md "From an empty folder to a running plugin", as a third-party
// author takes it: `heliograph plugin new` writes a driver package; the SDK and the core (for
// the test host) are packed and installed from their tarballs into it; the package builds
// with its own TypeScript and passes its own tests; `heliograph emulate --plugin-dir` runs its
// device, reached over a real pseudo-terminal (socat), and `serve --plugin-dir` runs the
// driver in its default isolation, reads it over the serial link and writes a setting. A
// second package, `plugin new --kind integration` made a planner, reads the site's prices and
// writes the driver's setting through ctx.site (audited as its own); a native abort in it
// ends its worker process while the API answers and the driver keeps reading.
// npm resolves from its cache where it can (--prefer-offline) and asks the registry only for
// what the cache lacks. Installs skip install scripts: SQLite's driver would fetch a prebuilt
// binary from the network (or build from source offline), so this test lends the checkout's
// built one instead; a plugin's CI with network access needs no such step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { InstanceStatus } from '@heliograph/core/testing';
import { eventually, MAIN, startChildServer, type ChildServer } from '../helpers/child-server.js';
import { serialBridge, SOCAT_SKIP } from '../helpers/pty-bridge.js';
import { jsonBody, REPO_ROOT, tempDir } from '../helpers/server.js';
import { lendSqliteBinary, run } from './author-shell.js';
import { PLANNER_DEVICES, PLANNER_SOURCE, PLANNER_TEST } from './planner-files.js';

const SDK_VERSION = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'plugins-sdk', 'package.json'), 'utf8')) as { version: string }
).version;

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

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

/**
 * The walk's second package: `plugin new --kind integration` rewritten as a planner that reads
 * prices and writes the driver's setting through ctx.site; installed, built and tested as the
 * driver is.
 */
async function makePlanner(dir: string, install: (cwd: string, ...packages: string[]) => Promise<string>) {
  const planner = join(dir, 'acme-planner');
  await run(process.execPath, [MAIN, 'plugin', 'new', 'acme-planner', '--kind', 'integration'], dir);
  const manifestFile = join(planner, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { heliograph: Record<string, unknown> };
  manifest.heliograph.devices = PLANNER_DEVICES;
  // It writes the driver's setting: a grant its owner approves when adding it (below).
  manifest.heliograph.grants = { writes: ['inverter_1/max_charge_current'] };
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(planner, 'src', 'index.ts'), PLANNER_SOURCE);
  writeFileSync(join(planner, 'test', 'index.test.ts'), PLANNER_TEST);
  await install(planner, `../heliograph-plugins-sdk-${SDK_VERSION}.tgz`, '../heliograph-core-0.1.0.tgz');
  lendSqliteBinary(planner);
  await run(process.execPath, [join(planner, 'node_modules', 'typescript', 'bin', 'tsc')], planner);
  const testRun = await run(npm, ['test'], planner);
  assert.match(testRun, /^(#|ℹ) pass 1$/m, testRun);
  assert.match(testRun, /^(#|ℹ) fail 0$/m, testRun);
  return planner;
}

/** The planner's instance: the price it read, its write in the audit and on the device. */
async function planAndAbort(server: ChildServer) {
  const value = async (topic: string) => (await server.api(`/api/v1/metrics?topic=${topic}&value=1`)).text();
  const plugins = async () => (await (await server.api('/api/v1/plugins')).json()) as InstanceStatus[];
  const added = await server.api(
    '/api/v1/plugins',
    jsonBody({
      id: 'planner',
      plugin: 'acme-planner',
      devices: ['planner_1'],
      config: { chargeCurrent: 60 },
      grants: { writes: ['inverter_1/max_charge_current'] },
    }),
  );
  assert.equal(added.status, 201, await added.clone().text());
  await eventually(
    async () => ((await value('planner_1/import_price')) === '0.2' ? true : undefined),
    'the planner to show the price it read',
    1500,
  );
  type AuditEntry = { who: string; via: string; topic: string; new_value: string; result: string };
  const written = await eventually(async () => {
    const audit = (await (await server.api('/api/v1/audit?limit=10')).json()) as AuditEntry[];
    return audit.find((entry) => entry.via === 'acme-planner');
  }, "the planner's write in the audit");
  assert.deepEqual(
    { who: written.who, topic: written.topic, new_value: written.new_value, result: written.result },
    { who: 'plugin:planner', topic: 'inverter_1/max_charge_current', new_value: '60', result: 'ok' },
  );
  // A poll after the write reads the device's register back.
  const polled = (await plugins()).find((p) => p.id === 'acme')?.last_poll;
  await eventually(
    async () => ((await plugins()).find((p) => p.id === 'acme')?.last_poll !== polled ? true : undefined),
    'a poll of the driver after the planner wrote',
  );
  assert.equal(await value('inverter_1/max_charge_current'), '60', 'the device holds what the planner wrote');

  // A native abort in the planner ends its worker process, not the server.
  const abort = await server.api('/api/v1/metrics', jsonBody({ topic: 'planner_1/abort', value: 'ON' }));
  assert.notEqual(abort.status, 200, await abort.clone().text());
  const crashed = await eventually(async () => {
    const planner = (await plugins()).find((p) => p.id === 'planner');
    return planner?.state === 'failed' && planner.last_error?.startsWith('crashed') ? planner : undefined;
  }, 'the planner failed by its abort');
  assert.match(
    crashed.last_error!,
    /^crashed: its worker process was ended by SIGABRT \(a native crash\); retrying in \d+ s$/,
  );
  const driver = (await plugins()).find((p) => p.id === 'acme');
  assert.equal(driver?.state, 'running', String(driver?.last_error));
  assert.equal(await value('inverter_1/pv_power'), '1830', 'the API answers and the driver still reads');
}

test('plugin new, SDK and core from tarballs, own tests, emulate, serve over a serial link, a planner through ctx.site', async () => {
  const dir = tempDir('heliograph-outoftree-');
  const plugin = join(dir, 'acme-meter');
  const created = await run(process.execPath, [MAIN, 'plugin', 'new', 'acme-meter', '--kind', 'driver'], dir);
  assert.match(created, /^wrote the driver plugin acme-meter to /, created);
  assert.deepEqual(readdirSync(join(plugin, 'src')).sort(), ['emulator', 'index.ts', 'register-map.ts']);

  // npm pack: each prepack script builds its package.
  await run(npm, ['pack', '-w', 'plugins-sdk', '-w', 'core', '--pack-destination', dir, '--silent'], REPO_ROOT);
  const tarballs = readdirSync(dir).filter((name) => name.endsWith('.tgz'));
  // `-w core` packs the workspace inside it too: the core's optional memory helper, which the
  // installs below leave out (npm skips a missing optional dependency).
  assert.deepEqual(tarballs.sort(), [
    'heliograph-core-0.1.0.tgz',
    'heliograph-malloc-trim-1.0.0.tgz',
    `heliograph-plugins-sdk-${SDK_VERSION}.tgz`,
  ]);
  const installIn = (cwd: string, ...packages: string[]) =>
    run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '-D', ...packages], cwd);
  const install = (...packages: string[]) => installIn(plugin, ...packages);

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
  lendSqliteBinary(plugin);
  const testRun = await run(npm, ['test'], plugin);
  // Node's default reporter writes `# pass 2` (TAP) on some versions and `ℹ pass 2` (spec) on others.
  assert.match(testRun, /^(#|ℹ) pass 2$/m, testRun);
  assert.match(testRun, /^(#|ℹ) fail 0$/m, testRun);
  const planner = await makePlanner(dir, installIn);

  const device = await emulate(plugin);
  try {
    const connection = SOCAT_SKIP
      ? { type: 'rtu-over-tcp', host: '127.0.0.1', port: device.port }
      : { type: 'serial', path: await serialBridge(device.port), baudRate: 9600 };
    const server = await startChildServer({
      fixtures: ['day-prices'],
      plugins: [{ id: 'tariff', plugin: 'day-prices', config: { provider: 'Tariff', price: 0.2 } }],
      args: ['--plugin-dir', '.', '--plugin-dir', planner],
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
      await planAndAbort(server);
    } finally {
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0, server.stderr());
    }
  } finally {
    await device.stop();
  }
});
