// The walk of docs/plugins.md "From an empty folder to a running plugin", as a third-party
// author takes it: pack the SDK, install the tarball into a folder outside the repository
// together with the core of the built checkout (the SDK's test host runs the core's own
// plugin code; a checkout's core/ installs as a link, its SQLite driver already built),
// build the example plugin (test/fixtures/outoftree-plugin) with the project's tsc, run its
// own test with the SDK's test host, then serve it with `--plugin-dir` and read its topic
// over HTTP. npm resolves from its cache where it can (--prefer-offline) and asks the
// registry only for what the cache lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { InstalledPlugin } from '@heliograph/core/api-types';
import type { InstanceStatus } from '@heliograph/core/plugins/host';
import { eventually, startChildServer } from '../helpers/child-server.js';
import { jsonBody, REPO_ROOT, tempDir } from '../helpers/server.js';

const exec = promisify(execFile);
const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'outoftree-plugin');
const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

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

test('an out-of-tree plugin: SDK tarball, build, test-host test, then served with --plugin-dir', async () => {
  const dir = tempDir('heliograph-outoftree-');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

  // npm pack -w plugins-sdk: the prepack script builds it.
  await run(npm, ['pack', '--workspace', 'plugins-sdk', '--pack-destination', dir, '--silent'], REPO_ROOT);
  const tarball = readdirSync(dir).find((name) => /^heliograph-plugins-sdk-\d+\.\d+\.\d+\.tgz$/.test(name));
  assert.ok(tarball, `npm pack left no SDK tarball in ${dir}: ${readdirSync(dir).join(', ')}`);

  // The author's folder, far from the repository's node_modules.
  const plugin = join(dir, 'hello-meter');
  cpSync(FIXTURE, plugin, { recursive: true, filter: (source) => !/[/\\](dist|node_modules)$/.test(source) });
  const install = (...packages: string[]) =>
    run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', ...packages], plugin);
  await install(`../${tarball}`, '@types/node@^22');
  const installed = readdirSync(join(plugin, 'node_modules'));
  assert.ok(installed.includes('zod'), 'zod, the SDK peer, is installed once at the top for the plugin and the SDK');
  const sdk = join(plugin, 'node_modules', '@heliograph', 'plugins-sdk');
  assert.deepEqual(readdirSync(sdk).sort(), ['README.md', 'dist', 'package.json']);
  assert.deepEqual(readdirSync(join(sdk, 'dist')), ['src'], "the SDK's own tests stay out of the package");

  await run(process.execPath, [TSC, '-p', plugin], plugin);
  // The test host runs the core's own plugin code: without the core it says what to install.
  // Its tests run by the package's own test script, the command the docs give the author.
  const withoutCore = await run(npm, ['test', '--silent'], plugin).then(
    (stdout) => stdout,
    (err: Error) => err.message,
  );
  assert.match(withoutCore, /^(#|ℹ) fail 2$/m, withoutCore);
  assert.match(withoutCore, /install it next to the SDK with `npm install -D @heliograph\/core`/, withoutCore);
  await install(join(REPO_ROOT, 'core'));
  const testRun = await run(npm, ['test', '--silent'], plugin);
  // Node's default reporter writes `# pass 2` (TAP) on some versions and `ℹ pass 2` (spec) on others.
  assert.match(testRun, /^(#|ℹ) pass 2$/m, testRun);
  assert.match(testRun, /^(#|ℹ) fail 0$/m, testRun);

  const server = await startChildServer({
    plugins: [],
    args: ['--plugin-dir', '.'],
    cwd: plugin,
    env: { HELIOGRAPH_MDNS: '0' },
  });
  try {
    const listed = (await (await server.api('/api/v1/plugins/installed')).json()) as InstalledPlugin[];
    const entry = listed.find((p) => p.plugin === 'hello-meter');
    assert.ok(entry, JSON.stringify(listed));
    assert.equal(entry.name, 'Hello meter');
    assert.deepEqual(entry.devices, { kinds: ['inverter'], min: 1, max: 1 });
    assert.equal(entry.error, undefined);
    // The schema crossed from the plugin's own zod (read in a worker) with its metadata.
    const watts = (entry.schema as { properties: Record<string, { title?: string; description?: string }> }).properties
      .watts;
    assert.deepEqual(watts && { title: watts.title, description: watts.description }, {
      title: 'PV power (W)',
      description: 'The PV power to report, in W.',
    });

    const added = await server.api(
      '/api/v1/plugins',
      jsonBody({ id: 'hello', plugin: 'hello-meter', devices: ['inverter_1'], config: { watts: 1234 } }),
    );
    assert.equal(added.status, 201, await added.clone().text());
    const status = await eventually(async () => {
      const list = (await (await server.api('/api/v1/plugins')).json()) as InstanceStatus[];
      const hello = list.find((p) => p.id === 'hello');
      return hello?.state === 'starting' ? undefined : hello;
    }, 'the instance to start');
    assert.equal(status.state, 'running', String(status.last_error));
    assert.equal(status.isolation, 'worker', 'a plugin from a folder under development runs in a worker');

    const metrics = await server.api('/api/v1/metrics?topic=inverter_1/pv_power');
    assert.equal(metrics.status, 200);
    const [row] = (await metrics.json()) as Array<{ topic: string; value: unknown; unit: string }>;
    assert.deepEqual(row && { topic: row.topic, value: row.value, unit: row.unit }, {
      topic: 'inverter_1/pv_power',
      value: 1234,
      unit: 'W',
    });
  } finally {
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.stderr());
  }
});
