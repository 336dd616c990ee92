import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ManualClock } from '../../src/clock.js';
import { ConfigError } from '../../src/config/load.js';
import { migrate, openDatabase } from '../../src/db.js';
import { pluginStoreMigrations } from '../../src/plugins/context.js';
import { discoverPlugins } from '../../src/plugins/discovery.js';
import { PluginHost, type InstanceStatus } from '../../src/plugins/host.js';
import { instanceSchema, type PluginInstanceConfig } from '../../src/plugins/instances.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import { AuditLog, auditMigrations } from '../../src/writes/audit.js';
import { WriteService } from '../../src/writes/service.js';
import { pluginRoot } from '../helpers/plugins.js';
import { tempDir } from '../helpers/tmp.js';

async function makeHost(configs: Array<Partial<PluginInstanceConfig> & { id: string; plugin: string }>) {
  const db = await openDatabase(join(tempDir(), 'h.db'));
  await migrate(db, [...auditMigrations, ...pluginStoreMigrations]);
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const registry = new TopicRegistry(clock);
  const writes = new WriteService(registry, new AuditLog(db), clock, 200);
  const root = pluginRoot({ fixtures: ['crashing', 'flaky', 'echo'] });
  const host = new PluginHost(
    { clock, db, registry, writes, site: { timeZone: 'UTC', latitude: 0, longitude: 0, temperatureUnit: 'C' } },
    discoverPlugins(root),
    configs.map((c) => instanceSchema.parse(c)),
  );
  const waitFor = (id: string, predicate: (s: InstanceStatus) => boolean) =>
    new Promise<InstanceStatus>((resolve) => {
      const current = host.status().find((s) => s.id === id);
      if (current && predicate(current)) return resolve(current);
      const listener = (s: InstanceStatus) => {
        if (s.id === id && predicate(s)) {
          host.off('status', listener);
          resolve(s);
        }
      };
      host.on('status', listener);
    });
  return { db, host, registry, writes, waitFor, close: async () => (await host.stopAll(), await db.close()) };
}

test('a plugin that throws in setup is failed, its registrations undone, and retried', async () => {
  const h = await makeHost([{ id: 'bad', plugin: 'crashing', devices: ['inverter_1'], config: { message: 'cannot open /dev/ttyUSB0' } }]);
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
  assert.deepEqual(await h.writes.write({ topic, value: 'Refuse me', who: 'admin', via: 'rest' }), { ok: false, message: 'the device refused: NAK' });
  assert.deepEqual(await h.writes.write({ topic, value: 'Hang', who: 'admin', via: 'rest' }), { ok: false, message: 'the device did not confirm the write within 0.2 s' });
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
    assert.match(err.message, /^plugins\.json: plugins\[1\]\.config\.port: .*expected number.*"abc"|^plugins\.json: plugins\[1\]\.config\.port: Invalid input: expected number, received string/);
    return true;
  });
  await h.close();
});

test('an unknown plugin is a config error listing what is installed', async () => {
  const h = await makeHost([{ id: 'x', plugin: 'solax' }]);
  await assert.rejects(h.host.load(), /plugins\.json: plugins\[0\]\.plugin: no plugin "solax" is installed \(installed: crashing, echo, flaky\)/);
  await h.close();
});
