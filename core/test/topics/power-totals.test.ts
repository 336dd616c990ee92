import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { TopicRegistry, type Tick, type TopicMeta } from '../../src/topics/registry.js';
import { PastTotals, TotalsDeriver } from '../../src/topics/power-totals.js';
import { forEachPast, type PastReadings } from '../../src/topics/sinks.js';
import { topicMeta } from '../helpers/topics.js';

/** Past readings as [time, value] pairs, whichever form they came in. */
function pairs(readings: PastReadings): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  forEachPast(readings, (time, value) => out.push([time, value]));
  return out;
}

const meta = (topic: string): TopicMeta => topicMeta(topic);

function setup() {
  const clock = new ManualClock(0);
  const registry = new TopicRegistry(clock);
  new TotalsDeriver(registry).start();
  for (const t of [
    'inverter_1/pv_power',
    'inverter_2/pv_power',
    'inverter_1/battery_power',
    'battery_1/power',
    'battery_1/state_of_charge',
    'battery_2/state_of_charge',
  ]) {
    registry.define(meta(t));
  }
  registry.trackDevice('inverter_2', 30_000);
  const publish = async (values: Record<string, number>) => {
    const tick = new Promise<Tick>((r) => registry.once('tick', r));
    for (const [t, v] of Object.entries(values)) registry.publish(registry.get(t)!, v);
    return tick;
  };
  const value = (t: string) => registry.visibleValue(registry.get(t)!);
  return { clock, registry, publish, value };
}

test('totals are derived in the same tick as the device values', async () => {
  const { publish, value } = setup();
  const tick = await publish({ 'inverter_1/pv_power': 1200.1, 'inverter_2/pv_power': 800.2 });
  assert.equal(value('total/pv_power'), 2000.3, 'summed without float noise');
  assert.ok(tick.changed.some((s) => s.meta.topic === 'total/pv_power'));
});

test('battery power comes from battery devices, falling back to the inverters', async () => {
  const { publish, value } = setup();
  await publish({ 'inverter_1/battery_power': -300 });
  assert.equal(value('total/battery_power'), -300);
  await publish({ 'battery_1/power': -310 });
  assert.equal(value('total/battery_power'), -310);
});

test('state of charge is the mean of the batteries; a total without sources reads null', async () => {
  const { publish, value } = setup();
  assert.equal(value('total/grid_power'), null);
  await publish({ 'battery_1/state_of_charge': 40, 'battery_2/state_of_charge': 60 });
  assert.equal(value('total/battery_state_of_charge'), 50);
  assert.equal(value('total/grid_power'), null);
});

test('a stale device drops out of the totals', async () => {
  const { clock, registry, publish, value } = setup();
  await publish({ 'inverter_1/pv_power': 1000, 'inverter_2/pv_power': 500 });
  clock.advance(20_000);
  await publish({ 'inverter_1/pv_power': 1000 });
  clock.advance(20_000);
  const tick = new Promise<Tick>((r) => registry.once('tick', r));
  registry.checkStale();
  await tick;
  assert.equal(value('inverter_2/pv_power'), null);
  assert.equal(value('total/pv_power'), 1000);
});

test('a device whose topics are removed drops out of the totals at once', async () => {
  const { registry, publish, value } = setup();
  const removeInverter3 = registry.define(meta('inverter_3/pv_power'));
  await publish({ 'inverter_1/pv_power': 1000, 'inverter_3/pv_power': 500 });
  assert.equal(value('total/pv_power'), 1500);
  const tick = new Promise<Tick>((r) => registry.once('tick', r));
  removeInverter3();
  assert.ok((await tick).changed.some((s) => s.meta.topic === 'total/pv_power'));
  assert.equal(value('total/pv_power'), 1000);
});

test('past totals are summed per time once every inverter of the instance has reported', () => {
  const registry = new TopicRegistry(new ManualClock(0));
  new TotalsDeriver(registry).start();
  for (const t of ['inverter_1/pv_power', 'inverter_2/pv_power']) registry.define(meta(t));
  const past = new PastTotals(registry, ['inverter_1', 'inverter_2']);
  assert.ok(past.coversAllInverters());
  assert.deepEqual(
    past.add('inverter_1', [{ time: 10_000, values: { pv_power: 100.1, grid_power: 5 } }]),
    [],
    'inverter_2 has not reported yet',
  );
  const out = past.add('inverter_2', [
    { time: 10_000, values: { pv_power: 200.2, grid_power: -5 } },
    { time: 20_000, values: { pv_power: 1 } },
  ]);
  assert.deepEqual(
    out.map(([m, list]) => [m.topic, pairs(list)]),
    [
      ['total/pv_power', [[10_000, 300.3]]],
      ['total/grid_power', [[10_000, 0]]],
    ],
  );
  assert.deepEqual(
    past.add('inverter_1', [{ time: 20_000, values: { pv_power: 2 } }]).map(([m, l]) => [m.topic, pairs(l)]),
    [['total/pv_power', [[20_000, 3]]]],
  );
});

test('past totals are not derived when another instance drives an inverter too', () => {
  const registry = new TopicRegistry(new ManualClock(0));
  new TotalsDeriver(registry).start();
  for (const t of ['inverter_1/pv_power', 'inverter_2/pv_power']) registry.define(meta(t));
  assert.equal(new PastTotals(registry, ['inverter_1']).coversAllInverters(), false);
});

test("past battery readings give the site's past state of charge: the mean once every battery has reported", () => {
  const { registry } = setup();
  const past = new PastTotals(registry, ['inverter_1', 'inverter_2']);
  assert.deepEqual(past.add('battery_1', [{ time: 10_000, values: { state_of_charge: 40, power: 100 } }]), []);
  const out = past.add('battery_2', [
    { time: 10_000, values: { state_of_charge: 61 } },
    { time: 20_000, values: { state_of_charge: 62 } },
  ]);
  assert.deepEqual(
    out.map(([m, list]) => [m.topic, pairs(list)]),
    [['total/battery_state_of_charge', [[10_000, 50.5]]]],
  );
});
