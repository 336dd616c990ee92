import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Metric } from '../../src/contract/types.js';
import { ManualClock } from '../../src/clock.js';
import { TopicRegistry, type Tick } from '../../src/topics/registry.js';
import { compileGlob } from '../../src/topics/glob.js';
import { topicMeta } from '../helpers/topics.js';
import { metricsSnapshot } from '../../src/api/metrics/snapshot.js';

/** GET /api/v1/metrics' JSON of the registry, as the API layer serialises it. */
const snapshotJson = (registry: TopicRegistry, glob?: string) => metricsSnapshot(registry).body(glob).toString('utf8');

const meta = topicMeta;

const nextTick = (registry: TopicRegistry) => new Promise<Tick>((resolve) => registry.once('tick', resolve));

test('globs: * spans slashes, ? is one character, everything else is literal', () => {
  assert.ok(compileGlob('battery*').test('battery_1/voltage'));
  assert.ok(compileGlob('total/*').test('total/pv_power'));
  assert.ok(!compileGlob('total/*').test('inverter_1/pv_power'));
  assert.ok(compileGlob('inverter_?/pv_power').test('inverter_2/pv_power'));
  assert.ok(!compileGlob('inverter_?/pv_power').test('inverter_10/pv_power'));
  assert.ok(!compileGlob('total/pv.power').test('total/pvXpower'), 'a dot is literal');
  assert.ok(compileGlob('a+b(c)').test('a+b(c)'));
});

test('readings published in one synchronous run arrive as one tick', async () => {
  const registry = new TopicRegistry(new ManualClock(1000));
  registry.define(meta('inverter_1/pv_power'));
  registry.define(meta('inverter_1/load_power'));
  let ticks = 0;
  registry.on('tick', () => ticks++);
  const tick = nextTick(registry);
  registry.publish(registry.get('inverter_1/pv_power')!, 100);
  registry.publish(registry.get('inverter_1/load_power')!, 50);
  const delivered = await tick;
  assert.equal(ticks, 1);
  assert.deepEqual(
    delivered.changed.map((s) => s.meta.topic),
    ['inverter_1/pv_power', 'inverter_1/load_power'],
  );
});

test('an unchanged value is a reading but not a change', async () => {
  const registry = new TopicRegistry(new ManualClock(1000));
  const state = (registry.define(meta('inverter_1/pv_power')), registry.get('inverter_1/pv_power')!);
  registry.publish(state, 5);
  await nextTick(registry);
  const tick = nextTick(registry);
  registry.publish(state, 5);
  const delivered = await tick;
  assert.equal(delivered.readings.length, 1);
  assert.equal(delivered.changed.length, 0);
});

test('snapshot is sorted by topic and rebuilt after a change', async () => {
  const registry = new TopicRegistry(new ManualClock(1000));
  registry.define(meta('total/pv_power'));
  registry.define(meta('battery_1/voltage', { unit: 'V' }));
  registry.define(meta('inverter_1/pv_power'));
  const before = JSON.parse(snapshotJson(registry)) as Metric[];
  assert.deepEqual(
    before.map((m) => m.topic),
    ['battery_1/voltage', 'inverter_1/pv_power', 'total/pv_power'],
  );
  assert.equal(before[0]!.value, null, 'no reading yet reads null');
  registry.publish(registry.get('battery_1/voltage')!, 52.1);
  await nextTick(registry);
  assert.equal((JSON.parse(snapshotJson(registry)) as Metric[])[0]!.value, 52.1, 'the cached snapshot is built anew');
  const after = JSON.parse(snapshotJson(registry, 'battery*')) as Metric[];
  assert.deepEqual(after, [
    {
      topic: 'battery_1/voltage',
      device: 'batteries',
      number: 0,
      group: 'Status',
      name: 'battery_1/voltage',
      value: 52.1,
      unit: 'V',
    },
  ]);
  const dispose = registry.define(meta('battery_1/current', { unit: 'A' }));
  assert.equal((JSON.parse(snapshotJson(registry, 'battery*')) as Metric[]).length, 2, 'a new topic is in it');
  dispose();
  assert.equal((JSON.parse(snapshotJson(registry, 'battery*')) as Metric[]).length, 1, 'a removed one is not');
});

test('a device that stops answering reads null until it answers again, and clients are told', async () => {
  const clock = new ManualClock(0);
  const registry = new TopicRegistry(clock);
  registry.define(meta('inverter_1/pv_power'));
  registry.trackDevice('inverter_1', 30_000);
  const state = registry.get('inverter_1/pv_power')!;
  registry.publish(state, 800);
  await nextTick(registry);
  clock.advance(29_000);
  registry.checkStale();
  assert.equal(registry.visibleValue(state), 800);
  clock.advance(2_000);
  const staleTick = nextTick(registry);
  registry.checkStale();
  const delivered = await staleTick;
  assert.deepEqual(
    delivered.changed.map((s) => s.meta.topic),
    ['inverter_1/pv_power'],
  );
  assert.equal(registry.visibleValue(state), null);
  assert.equal((JSON.parse(snapshotJson(registry)) as Metric[])[0]!.value, null);
  const back = nextTick(registry);
  registry.publish(state, 800);
  assert.equal((await back).changed.length, 1, 'coming back is a change even with the same value');
  assert.equal(registry.visibleValue(state), 800);
});

test('defining a topic twice is refused, and a disposer removes it', () => {
  const registry = new TopicRegistry(new ManualClock(0));
  const dispose = registry.define(meta('inverter_1/pv_power'));
  assert.throws(() => registry.define(meta('inverter_1/pv_power')), /already defined/);
  dispose();
  assert.equal(registry.get('inverter_1/pv_power'), undefined);
  assert.equal(registry.list().length, 0);
});

test('a topic published twice in one run is delivered once, with its last value', async () => {
  const registry = new TopicRegistry(new ManualClock(0));
  registry.define(meta('inverter_1/pv_power'));
  const state = registry.get('inverter_1/pv_power')!;
  const tick = nextTick(registry);
  registry.publish(state, 1);
  registry.publish(state, 2);
  const delivered = await tick;
  assert.equal(delivered.readings.length, 1);
  assert.equal(delivered.changed.length, 1);
  assert.equal(delivered.readings[0]!.value, 2);
  const next = nextTick(registry);
  registry.publish(state, 3);
  assert.equal((await next).readings.length, 1, 'the next tick takes it again');
});
