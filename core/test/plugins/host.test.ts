import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ManualClock } from '../../src/clock.js';
import { ConfigError } from '../../src/config/load.js';
import { DbWriter } from '../../src/db-writer.js';
import { migrate, openDatabase } from '../../src/db.js';
import { pluginStoreMigrations } from '../../src/plugins/context/plugin-store.js';
import { discoverPlugins } from '../../src/plugins/discovery/discovery.js';
import { PluginHost, type InstanceStatus } from '../../src/plugins/host/host.js';
import { instanceSchema, type PluginInstanceConfig } from '../../src/plugins/instances/instances.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import { AuditLog, auditMigrations } from '../../src/writes/audit.js';
import { WriteService } from '../../src/writes/service.js';
import { within } from '../helpers/deadline.js';
import { pluginRoot, REPO_ROOT } from '../helpers/plugins.js';
import { tempDir } from '../helpers/tmp.js';

/** Writes an integration plugin `id` with `source` as its index.js under the test root's plugins. */
function addPlugin(root: string, id: string, source: string, grants?: { writes: string[] }): void {
  const dir = join(root, 'plugins', id);
  mkdirSync(dir);
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: id,
      type: 'module',
      main: 'index.js',
      heliograph: { id, kind: 'integration', sdk: '^1', grants },
    }),
  );
  writeFileSync(join(dir, 'index.js'), source);
}

/**
 * A plugin whose setup waits on a device until it is stopped, as one reaching a device that
 * does not answer does; then it fails (`reject`) or carries on regardless (`finish`).
 */
function addSlowPlugin(root: string): void {
  addPlugin(
    root,
    'slow',
    `import { definePlugin, z } from '@heliograph/plugins-sdk';
export const cleanups = [];
export default definePlugin({
  id: 'slow',
  configSchema: z.object({ then: z.enum(['reject', 'finish']) }),
  async setup(ctx, config) {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    if (config.then === 'reject') throw new Error('the device did not answer');
    ctx.topics.declare({ device: 'inverter_1', metrics: [{ name: 'pv_power', displayName: 'PV power', unit: 'W' }] });
    ctx.scheduler.every({ name: 'poll', intervalMs: 10, run() {} });
    return () => cleanups.push(ctx.instanceId);
  },
});
`,
  );
}

async function makeHost(
  configs: Array<Partial<PluginInstanceConfig> & { id: string; plugin: string }>,
  options: { slowPlugin?: boolean; controlPlugins?: boolean; countingPlugin?: boolean } = {},
) {
  const db = await openDatabase(join(tempDir(), 'h.db'));
  await migrate(db, [...auditMigrations, ...pluginStoreMigrations]);
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const registry = new TopicRegistry(clock);
  const writes = new WriteService(registry, new AuditLog(db, clock, new DbWriter()), clock, 200);
  const root = pluginRoot({ fixtures: ['crashing', 'flaky', 'echo', 'sdk11'] });
  if (options.slowPlugin) addSlowPlugin(root);
  if (options.controlPlugins) addControlPlugins(root);
  if (options.countingPlugin) addCountingPlugin(root);
  const host = new PluginHost(
    { clock, db, registry, writes, site: { timeZone: 'UTC', latitude: 0, longitude: 0, temperatureUnit: 'C' } },
    await discoverPlugins(root),
    configs.map((c) => instanceSchema.parse(c)),
  );
  const waitFor = (id: string, predicate: (s: InstanceStatus) => boolean) => {
    let listener: (s: InstanceStatus) => void = () => undefined;
    const reached = new Promise<InstanceStatus>((resolve) => {
      const current = host.status().find((s) => s.id === id);
      if (current && predicate(current)) return resolve(current);
      listener = (s: InstanceStatus) => {
        if (s.id === id && predicate(s)) resolve(s);
      };
      host.on('status', listener);
    });
    return within(
      reached,
      () =>
        `instance ${id} to reach ${predicate.toString()} (it is ${JSON.stringify(host.status().find((s) => s.id === id))})`,
    ).finally(() => host.off('status', listener));
  };
  return { db, host, registry, writes, waitFor, root, close: async () => (await host.stopAll(), await db.close()) };
}

test('a plugin that throws in setup is failed, its registrations undone, and retried', async () => {
  const h = await makeHost([
    { id: 'bad', plugin: 'crashing', devices: ['inverter_1'], config: { message: 'cannot open /dev/ttyUSB0' } },
  ]);
  await h.host.load();
  await h.host.startAll();
  const status = h.host.status()[0]!;
  assert.equal(status.state, 'failed');
  assert.match(status.last_error!, /setup failed: cannot open \/dev\/ttyUSB0; retrying in 1 s/);
  assert.equal(h.registry.get('inverter_1/pv_power'), undefined, 'the declared topic was removed again');
  const retried = await h.waitFor('bad', (s) => s.state === 'starting');
  assert.equal(retried.state, 'starting', 'it is started again after the back-off');
  await h.waitFor('bad', (s) => s.state === 'failed' && /retrying in 2 s/.test(s.last_error ?? ''));
  await h.close();
});

test('a failing job marks the plugin failed until a run succeeds', async () => {
  const h = await makeHost([{ id: 'f', plugin: 'flaky', config: { failures: 2, intervalMs: 10 } }]);
  await h.host.load();
  await h.host.startAll();
  const failed = await h.waitFor('f', (s) => s.state === 'failed');
  assert.match(failed.last_error!, /job poll failed: device timeout #1/);
  assert.equal(failed.last_poll, null);
  const recovered = await h.waitFor('f', (s) => s.state === 'running' && s.last_poll !== null);
  assert.equal(recovered.last_error, null);
  assert.equal(recovered.last_poll, '2026-11-22T10:00:00Z');
  await h.close();
});

test('a refused or unanswered write fails the write, not the server; the plugin status says why', async () => {
  const h = await makeHost([{ id: 'e', plugin: 'echo', devices: ['inverter_1'] }]);
  await h.host.load();
  await h.host.startAll();
  const topic = 'inverter_1/output_source_priority';
  assert.deepEqual(await h.writes.write({ topic, value: 'SBU priority', who: 'admin', via: 'rest' }), { ok: true });
  assert.equal(h.registry.visibleValue(h.registry.get(topic)!), 'SBU priority');
  assert.deepEqual(await h.writes.write({ topic, value: 'Refuse me', who: 'admin', via: 'rest' }), {
    ok: false,
    message: 'the device refused: NAK',
  });
  assert.deepEqual(await h.writes.write({ topic, value: 'Hang', who: 'admin', via: 'rest' }), {
    ok: false,
    message: 'the device did not answer: no confirmation within 0.2 s',
  });
  assert.equal(h.registry.visibleValue(h.registry.get(topic)!), 'SBU priority', 'failed writes leave the value');
  assert.match(h.host.status()[0]!.last_error!, /write to inverter_1\/output_source_priority/);
  await h.close();
});

test('every writable declared by the fixture has a handler', async () => {
  const h = await makeHost([{ id: 'e', plugin: 'echo', devices: ['inverter_1', 'inverter_2'] }]);
  await h.host.load();
  await h.host.startAll();
  const writable = h.registry.list().filter((s) => s.meta.writable);
  assert.equal(writable.length, 4);
  for (const s of writable) assert.ok(h.writes.hasHandler(s.meta.topic), s.meta.topic);
  await h.close();
});

test('a bad plugin config stops the start and names the exact key', async () => {
  const h = await makeHost([
    { id: 'ok', plugin: 'echo', devices: ['inverter_1'] },
    { id: 'e2', plugin: 'echo', devices: ['inverter_2'], config: { port: 'abc' } },
  ]);
  await assert.rejects(h.host.load(), (err: Error) => {
    assert.ok(err instanceof ConfigError);
    assert.match(
      err.message,
      /^plugins\.json: plugins\[1\]\.config\.port: .*expected number.*"abc"|^plugins\.json: plugins\[1\]\.config\.port: Invalid input: expected number, received string/,
    );
    return true;
  });
  await h.close();
});

test('an unknown plugin is a config error listing what is installed', async () => {
  const h = await makeHost([{ id: 'x', plugin: 'solax' }]);
  await assert.rejects(
    h.host.load(),
    /plugins\.json: plugins\[0\]\.plugin: no plugin "solax" is installed \(installed: crashing, echo, flaky, sdk11\)/,
  );
  await h.close();
});

test('a plugin stopped while its setup still runs stays stopped, and nothing it set up outlives the stop', async () => {
  const h = await makeHost(
    [
      { id: 'fails', plugin: 'slow', devices: ['inverter_1'], config: { then: 'reject' } },
      { id: 'finishes', plugin: 'slow', devices: ['inverter_1'], config: { then: 'finish' } },
    ],
    { slowPlugin: true },
  );
  await h.host.load();
  const started = h.host.startAll();
  // Each start comes a turn of the event loop after the one before (startAll); both setups
  // then wait for the stop.
  await h.waitFor('fails', (s) => s.state === 'starting');
  await h.waitFor('finishes', (s) => s.state === 'starting');
  await h.host.stopAll();
  await started;
  assert.deepEqual(
    h.host.status().map((s) => [s.id, s.state, s.last_error]),
    [
      ['fails', 'stopped', null],
      ['finishes', 'stopped', null],
    ],
    'a setup that fails because of the stop is not a failure to retry',
  );
  assert.equal(h.registry.get('inverter_1/pv_power'), undefined, 'a topic declared after the stop is removed again');
  const plugin = (await import(pathToFileURL(join(h.root, 'plugins', 'slow', 'index.js')).href)) as {
    cleanups: string[];
  };
  assert.deepEqual(plugin.cleanups, ['finishes'], 'the cleanup setup returned has run');
  await h.close();
});

/** A plugin whose setup takes a moment and keeps, in `live`, every start not yet stopped. */
function addCountingPlugin(root: string): void {
  addPlugin(
    root,
    'counting',
    `import { definePlugin, z } from '@heliograph/plugins-sdk';
export const live = new Set();
let starts = 0;
export default definePlugin({
  id: 'counting',
  configSchema: z.object({ n: z.number() }),
  async setup(ctx, config) {
    const start = \`start \${++starts} (n \${config.n})\`;
    live.add(start);
    ctx.signal.addEventListener('abort', () => live.delete(start));
    await new Promise((resolve) => setTimeout(resolve, 30));
    ctx.scheduler.every({ name: 'poll', intervalMs: 5000, run() {} });
  },
});
`,
  );
}

test('two config changes at once leave one run of the plugin, not a second one nobody stops', async () => {
  const h = await makeHost([{ id: 'c', plugin: 'counting', config: { n: 0 } }], { countingPlugin: true });
  await h.host.load();
  await h.host.startAll();
  const plugin = (await import(pathToFileURL(join(h.root, 'plugins', 'counting', 'index.js')).href)) as {
    live: Set<string>;
  };
  assert.deepEqual([...plugin.live], ['start 1 (n 0)']);
  // Two saves of the form at once (a double click, two tabs): each restarts the instance.
  const answers = await Promise.all([h.host.reconfigure('c', { n: 1 }), h.host.reconfigure('c', { n: 2 })]);
  assert.deepEqual(
    answers.map((a) => a?.ok),
    [true, true],
  );
  assert.equal(plugin.live.size, 1, `one run left, not ${[...plugin.live].join(', ')}`);
  await h.waitFor('c', (s) => s.state === 'running');
  await h.close();
  assert.equal(plugin.live.size, 0, `nothing runs after the stop: ${[...plugin.live].join(', ')}`);
});

test('configuration mistakes stop the start with the exact key: unknown keys, device rules, device config', async () => {
  const cases: Array<[Array<Partial<PluginInstanceConfig> & { id: string; plugin: string }>, RegExp]> = [
    [
      [{ id: 'e', plugin: 'echo', devices: ['inverter_1'], config: { pv_power: 5, pv_powr: 6 } }],
      /plugins\[0\]\.config: unknown key "pv_powr"/,
    ],
    [
      [{ id: 'a', plugin: 'sdk11', devices: ['inverter_1', 'inverter_2', 'inverter_3'] }],
      /plugins\[0\]\.devices: must list at most 2 devices/,
    ],
    [[{ id: 'a', plugin: 'sdk11', devices: ['battery_1'] }], /plugins\[0\]\.devices\[0\]: must be an inverter/],
    [
      [{ id: 'a', plugin: 'sdk11', devices: [{ id: 'inverter_1', config: { unitId: 0 } }] }],
      /plugins\[0\]\.devices\[0\]\.config\.unitId/,
    ],
    [
      [{ id: 'e', plugin: 'echo', devices: [{ id: 'inverter_1', config: { unitId: 2 } }] }],
      /plugins\[0\]\.devices\[0\]\.config: the plugin takes no per-device config/,
    ],
  ];
  for (const [configs, message] of cases) {
    const h = await makeHost(configs);
    await assert.rejects(h.host.load(), message);
    await h.close();
  }
});

test('a ConfigError from setup fails the instance once, without a retry', async () => {
  const h = await makeHost([{ id: 'a', plugin: 'sdk11', devices: ['inverter_1'], config: { failSetup: true } }]);
  await h.host.load();
  await h.host.startAll();
  const [status] = h.host.status();
  assert.equal(status!.state, 'failed');
  assert.equal(status!.last_error, 'configuration error: unitId 9 does not answer on this bus: check the wiring');
  assert.doesNotMatch(status!.last_error ?? '', /retrying/);
  await h.close();
});

/**
 * Two plugins for the stop order: `battery-driver` offers a battery mode on its device and
 * logs each write and its own close; `battery-planner` commands that mode through
 * `ctx.site.write` and, in its async cleanup, puts it back to Normal.
 */
function addControlPlugins(root: string): void {
  const plugin = (id: string, source: string, grants?: { writes: string[] }) => addPlugin(root, id, source, grants);
  plugin(
    'battery-driver',
    `import { definePlugin, z } from '@heliograph/plugins-sdk';
import { appendFileSync } from 'node:fs';
export default definePlugin({
  id: 'battery-driver',
  configSchema: z.object({ log: z.string() }),
  setup(ctx, config) {
    ctx.topics.declare({
      device: ctx.devices[0].id,
      metrics: [],
      settings: [{ name: 'battery_control_mode', displayName: 'Mode', options: ['Normal', 'Charge'], initial: 'Normal',
        write: async ({ value }) => appendFileSync(config.log, ctx.instanceId + ' ' + value + '\\n') }],
    });
    return () => appendFileSync(config.log, ctx.instanceId + ' closed\\n');
  },
});
`,
  );
  plugin(
    'battery-planner',
    `import { definePlugin, z } from '@heliograph/plugins-sdk';
export default definePlugin({
  id: 'battery-planner',
  configSchema: z.object({ device: z.string() }),
  async setup(ctx, config) {
    const topic = config.device + '/battery_control_mode';
    // The driver starts beside it: tried until its setting is there (at most 1 s).
    for (let tries = 0; ; tries++) {
      try {
        await ctx.site.write({ topic, value: 'Charge' });
        break;
      } catch (err) {
        if (tries === 50) throw err;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    return async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await ctx.site.write({ topic, value: 'Normal' });
    };
  },
});
`,
    // Another plugin's device: the planner's write needs its grant, as the bundled planner's.
    { writes: ['*/battery_control_*'] },
  );
}

for (const isolation of ['process-local', 'worker'] as const) {
  test(`stop order (${isolation} planner): the controller's async cleanup puts the battery back to Normal before the driver closes`, async () => {
    const log = join(tempDir(), 'device.log');
    writeFileSync(log, '');
    const h = await makeHost(
      [
        { id: 'driver', plugin: 'battery-driver', devices: ['inverter_1'], config: { log } },
        { id: 'planner', plugin: 'battery-planner', config: { device: 'inverter_1' }, isolation },
      ],
      { controlPlugins: true },
    );
    await h.host.load();
    await h.host.startAll();
    await h.host.stopAll();
    assert.deepEqual(
      readFileSync(log, 'utf8').trim().split('\n'),
      ['driver Charge', 'driver Normal', 'driver closed'],
      'Normal reached the device before its driver closed',
    );
    const audited = await h.db.all<{ who: string; new_value: string; result: string }[]>(
      'SELECT who, new_value, result FROM audit ORDER BY id',
    );
    assert.deepEqual(
      audited.map((e) => [e.who, e.new_value, e.result]),
      [
        ['plugin:planner', 'Charge', 'ok'],
        ['plugin:planner', 'Normal', 'ok'],
      ],
    );
    await h.db.close();
  });
}

test('one controller per battery: a second instance writing the same battery is refused, naming the first', async () => {
  const log = join(tempDir(), 'device.log');
  writeFileSync(log, '');
  const h = await makeHost(
    [
      { id: 'driver', plugin: 'battery-driver', devices: ['inverter_1'], config: { log } },
      { id: 'first', plugin: 'battery-planner', config: { device: 'inverter_1' } },
    ],
    { controlPlugins: true },
  );
  await h.host.load();
  await h.host.startAll();
  const refused = await h.writes.write({
    topic: 'inverter_1/battery_control_mode',
    value: 'Charge',
    who: 'plugin:second',
    via: 'battery-planner',
    controller: 'second',
  });
  assert.deepEqual(refused, {
    ok: false,
    message:
      "inverter_1's battery is already controlled by first: one controller per battery, so second may not command it (stop first, or point second at another device)",
  });
  const person = await h.writes.write({
    topic: 'inverter_1/battery_control_mode',
    value: 'Normal',
    who: 'admin',
    via: 'rest',
  });
  assert.deepEqual(person, { ok: true }, 'a person is not a controller: the write goes through');
  assert.equal(h.writes.controllers.ownerOf('inverter_1'), 'first');
  await h.close();
  assert.equal(h.writes.controllers.ownerOf('inverter_1'), undefined, 'a stopped controller lets the battery go');
});
