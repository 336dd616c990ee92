import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Recorder } from '../../src/history/recorder.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import { allPages, ManualClock, meta, openStore, tempDbFile } from './support.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const at = (s: number) => T0 + s * 1000;
const iso = (s: number) => T0 / 1000 + s;

describe('Recorder', async () => {
  const clock = new ManualClock(at(3));
  const registry = new TopicRegistry(clock);
  const opened = await openStore(tempDbFile(), clock);
  after(() => opened.close());
  const { store } = opened;

  registry.define(meta('inverter_1/pv_power'));
  registry.define(meta('inverter_1/device_mode', { type: 'string', unit: '' }));
  registry.define(meta('inverter_1/serial_number', { recorded: false, group: 'Info', unit: '' }));
  registry.define(meta('battery_1/voltage', { unit: 'V' }));
  registry.define(meta('total/load_power'));
  registry.trackDevice('inverter_1', 30_000);
  const recorder = new Recorder({ registry, store, clock }, { sampleTimer: false });
  recorder.start();
  after(() => recorder.stop());

  const pv = registry.get('inverter_1/pv_power')!;
  const publish = (values: Array<[string, number | string]>) => {
    for (const [topic, value] of values) registry.publish(registry.get(topic)!, value);
    registry.flush();
  };
  /** Moves the clock to second s of the scenario, sampling at every 10-s boundary on the way. */
  const runTo = (s: number) => {
    while (clock.now() < at(s)) {
      clock.set(Math.min(at(s), Math.floor(clock.now() / 10_000) * 10_000 + 10_000));
      if (clock.now() % 10_000 === 0) recorder.sample();
    }
  };
  const slots = (topic: string, agg: 'mean' | 'sum') =>
    allPages(store, topic, { fromMs: T0, toMs: at(600), groupMs: 10_000, agg });

  it('folds readings into 10-s slots, samples held values, and leaves a stale device a gap', async () => {
    publish([
      ['inverter_1/pv_power', 100],
      ['inverter_1/device_mode', 'Solar first'],
      ['battery_1/voltage', 52.1],
      ['inverter_1/serial_number', 7],
    ]);
    runTo(6);
    publish([
      ['inverter_1/pv_power', 110],
      ['total/load_power', 400],
    ]);
    runTo(30);
    // Nothing from inverter_1 since second 6: stale after 30 s, noticed at second 40.
    runTo(40);
    registry.checkStale();
    registry.flush();
    assert.equal(pv.stale, true);
    runTo(60);
    publish([['inverter_1/pv_power', 120]]);
    runTo(80);

    assert.deepEqual(await slots('inverter_1/pv_power', 'mean'), [
      [iso(0), 105],
      [iso(10), 110],
      [iso(20), 110],
      [iso(60), 120],
      [iso(70), 120],
    ]);
    assert.deepEqual(
      (await slots('inverter_1/pv_power', 'sum'))[0],
      [iso(0), 210],
      'both readings of the first slot count',
    );
    // total/* has no liveness tracking: its value is held and sampled every slot.
    assert.deepEqual(
      (await slots('total/load_power', 'mean')).map(([t]) => t - iso(0)),
      [0, 10, 20, 30, 40, 50, 60, 70],
    );
  });

  it('records nothing of text, unrecorded or battery topics', () => {
    assert.equal(store.describe('inverter_1/device_mode'), undefined);
    assert.equal(store.describe('inverter_1/serial_number'), undefined);
    assert.equal(store.describe('battery_1/voltage'), undefined);
    assert.deepEqual(store.topics(), ['inverter_1/pv_power', 'total/load_power']);
  });

  it('stops sampling a topic once it is removed, and after stop()', async () => {
    const dispose = registry.define(meta('inverter_2/pv_power'));
    publish([['inverter_2/pv_power', 5]]);
    runTo(100);
    dispose();
    runTo(130);
    assert.deepEqual(
      (await slots('inverter_2/pv_power', 'mean')).map(([t]) => t - iso(0)),
      [80, 90],
    );
    recorder.stop();
    const before = await slots('total/load_power', 'mean');
    publish([['total/load_power', 1]]);
    runTo(160);
    assert.deepEqual(await slots('total/load_power', 'mean'), before);
  });
});
