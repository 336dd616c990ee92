import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ForecastPoints } from '@heliograph/plugins-sdk';
import { ManualClock } from '../../src/clock.js';
import { FORECAST_PAST_KEPT_MS, ForecastStore } from '../../src/forecast/store.js';
import { QUARTER_HOUR_MS } from '../../src/forecast/quarter-hours.js';
import { TopicRegistry, type Tick } from '../../src/topics/registry.js';

const T0 = Date.parse('2026-06-01T10:00:00Z');
const Q = QUARTER_HOUR_MS;

/** `count` quarter-hour points from `start`, valued by `value(i)`. */
function series(start: number, count: number, value: (i: number) => number | null): ForecastPoints {
  return Array.from({ length: count }, (_, i) => [start + i * Q, value(i)] as [number, number | null]);
}

function setup(temperatureUnit: 'C' | 'F' = 'C') {
  const clock = new ManualClock(T0 + 5 * 60_000);
  const registry = new TopicRegistry(clock);
  const store = new ForecastStore({ registry, clock, temperatureUnit });
  return { clock, registry, store };
}

describe('ForecastStore', () => {
  it('is disabled until a forecast plugin registers, and again after it stops', () => {
    const { store, registry } = setup();
    assert.equal(store.lookup('weather/pv_power_predicted').kind, 'disabled');
    const dispose = store.register('open-meteo');
    assert.equal(store.lookup('weather/pv_power_predicted').kind, 'not-fetched');
    store.publish('open-meteo', { series: { pv_power_predicted: series(T0, 4, () => 100) } });
    assert.ok(registry.get('weather/pv_power_predicted'));
    dispose();
    assert.equal(store.lookup('weather/pv_power_predicted').kind, 'disabled');
    assert.equal(
      registry.get('weather/pv_power_predicted'),
      undefined,
      'the topic leaves the snapshot with its plugin',
    );
  });

  it('takes a forecast published without registering (the simulator demo) as enabling forecasts', () => {
    const { store } = setup();
    store.publish('sim', { series: { pv_power_predicted: series(T0, 4, () => 100) } });
    assert.equal(store.lookup('weather/pv_power_predicted').kind, 'found');
  });

  it('defines each topic on its first run, with the spec units and only pv_power_predicted recorded', () => {
    const { store, registry } = setup('F');
    store.register('om');
    assert.equal(registry.list().length, 0);
    store.publish('om', {
      series: {
        pv_power_predicted: series(T0, 2, () => 1),
        outside_temperature: series(T0, 2, () => 60.1),
        wind_speed: series(T0, 2, () => 3),
        global_tilted_irradiance: series(T0, 2, () => 5),
      },
    });
    const meta = (topic: string) => registry.get(topic)!.meta;
    assert.deepEqual(
      registry
        .list()
        .map((s) => [s.meta.topic, s.meta.unit, s.meta.recorded, s.meta.device, s.meta.deviceId, s.meta.group]),
      [
        ['weather/global_tilted_irradiance', 'W/m2', false, 'weather', 'weather', 'Status'],
        ['weather/outside_temperature', '°F', false, 'weather', 'weather', 'Status'],
        ['weather/pv_power_predicted', 'W', true, 'weather', 'weather', 'Status'],
        ['weather/wind_speed', 'km/h', false, 'weather', 'weather', 'Status'],
      ],
    );
    assert.equal(meta('weather/pv_power_predicted').name, 'PV power predicted');
    const lookup = store.lookup('weather/cloud_cover');
    assert.equal(lookup.kind, 'not-published');
    assert.equal(store.lookup('total/pv_power').kind, 'not-forecast');
    assert.equal(store.lookup('weather/rain').kind, 'not-forecast');
  });

  it('replaces the points a newer run covers and keeps the others', () => {
    const { store, clock } = setup();
    store.register('om');
    store.publish('om', { series: { pv_power_predicted: series(T0, 8, (i) => 100 + i) }, fetchedAt: T0 });
    clock.advance(60_000);
    // The newer run covers slots 2..5 and has no value for slot 4: slot 4 is then unknown.
    store.publish('om', { series: { pv_power_predicted: series(T0 + 2 * Q, 4, (i) => (i === 2 ? null : 500 + i)) } });
    const points = store.points('weather/pv_power_predicted', T0, T0 + 8 * Q);
    assert.deepEqual(points, [
      [T0, 100],
      [T0 + Q, 101],
      [T0 + 2 * Q, 500],
      [T0 + 3 * Q, 501],
      [T0 + 5 * Q, 503],
      [T0 + 6 * Q, 106],
      [T0 + 7 * Q, 107],
    ]);
    const found = store.lookup('weather/pv_power_predicted');
    assert.equal(
      found.kind === 'found' && found.lastUpdated,
      clock.now(),
      'last_updated falls back to now without fetchedAt',
    );
  });

  it('drops points older than 48 hours as time moves on', () => {
    const { store, clock } = setup();
    store.register('om');
    const start = T0 - 60 * 3_600_000;
    store.publish('om', { series: { cloud_cover: series(start, 4 * 72, () => 50) } });
    const oldest = () => store.points('weather/cloud_cover', 0, Number.MAX_SAFE_INTEGER)[0]![0];
    assert.ok(clock.now() - oldest() <= FORECAST_PAST_KEPT_MS + Q);
    assert.ok(clock.now() - oldest() > FORECAST_PAST_KEPT_MS - Q);
    clock.advance(6 * 3_600_000);
    store.tick();
    assert.ok(clock.now() - oldest() <= FORECAST_PAST_KEPT_MS + Q, 'pruned on the clock tick too');
    assert.equal(
      store.points('weather/cloud_cover', 0, Number.MAX_SAFE_INTEGER).length,
      4 * (72 - 18),
      'the points from 42 h before now on',
    );
  });

  it('keeps the live value on the forecast of the current quarter hour', () => {
    const { store, clock, registry } = setup();
    const ticks: Tick[] = [];
    registry.on('tick', (tick) => ticks.push(tick));
    store.register('om');
    store.publish('om', { series: { pv_power_predicted: series(T0, 4, (i) => [1000, 1500, 2000.25, 0.1 + 0.2][i]!) } });
    const value = () => registry.get('weather/pv_power_predicted')!.value;
    assert.equal(value(), 1000, 'now is 10:05, inside the 10:00 slot');
    registry.flush();
    assert.equal(ticks.at(-1)!.changed[0]!.meta.topic, 'weather/pv_power_predicted');

    clock.set(T0 + 2 * Q);
    store.tick();
    assert.equal(value(), 2000.25);
    clock.set(T0 + 3 * Q + 14 * 60_000);
    store.tick();
    assert.equal(value(), 0.3, 'no float noise');
    clock.set(T0 + 4 * Q);
    store.tick();
    assert.equal(value(), null, 'past the end of the forecast there is no value for now');

    store.publish('om', { series: { pv_power_predicted: series(T0 + 4 * Q, 1, () => 42) } });
    assert.equal(value(), 42, 'a new run updates the live value at once');
  });

  it('lets the first plugin keep a topic another plugin also publishes', () => {
    const { store } = setup();
    store.register('om');
    store.register('fs');
    store.publish('om', { series: { pv_power_predicted: series(T0, 2, () => 10) } });
    store.publish('fs', { series: { pv_power_predicted: series(T0, 2, () => 99) } });
    assert.deepEqual(store.points('weather/pv_power_predicted', T0, T0 + 2 * Q), [
      [T0, 10],
      [T0 + Q, 10],
    ]);
  });

  it('lets a real forecast take a topic over from one declared demo, never the other way', () => {
    const { store, registry } = setup();
    store.publish('sim', { series: { pv_power_predicted: series(T0 - Q, 3, () => 5) }, demo: true });
    store.register('om');
    store.publish('om', { series: { pv_power_predicted: series(T0, 2, () => 10) } });
    assert.deepEqual(
      store.points('weather/pv_power_predicted', T0 - Q, T0 + 2 * Q),
      [
        [T0, 10],
        [T0 + Q, 10],
      ],
      "the demo's points are gone, not mixed in",
    );
    assert.equal(registry.visibleValue(registry.get('weather/pv_power_predicted')!), 10);
    store.publish('sim', { series: { pv_power_predicted: series(T0, 2, () => 5) }, demo: true });
    assert.equal(store.points('weather/pv_power_predicted', T0, T0 + Q)[0]![1], 10, 'the demo does not take it back');
  });

  it('ignores points that are not on a quarter hour', () => {
    const { store } = setup();
    store.register('om');
    store.publish('om', {
      series: {
        is_day: [
          [T0 + 60_000, 1],
          [T0 + Q, 1],
        ],
      },
    });
    assert.deepEqual(store.points('weather/is_day', T0, T0 + 4 * Q), [[T0 + Q, 1]]);
  });
});
