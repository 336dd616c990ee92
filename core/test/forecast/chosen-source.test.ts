// The owner's chosen forecast source (config forecast.source, forecast.fallbacks): each topic
// uses the chosen source's points, the fallbacks fill the quarter hours before and after them
// (and a topic it lacks), other sources are kept on standby; without a choice, the next source
// takes a topic over at once when its keeper stops.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ForecastPoints } from '@heliograph/plugins-sdk';
import { ManualClock } from '../../src/clock.js';
import { ForecastStore, type ForecastChoice } from '../../src/forecast/store.js';
import { QUARTER_HOUR_MS as Q } from '../../src/forecast/quarter-hours.js';
import { TopicRegistry } from '../../src/topics/registry.js';

const T0 = Date.parse('2026-06-01T10:00:00Z');
const PV = 'weather/pv_power_predicted';

/** `count` quarter-hour points from `start`, all `value`. */
function flat(start: number, count: number, value: number): ForecastPoints {
  return Array.from({ length: count }, (_, i) => [start + i * Q, value] as [number, number]);
}

function setup(choice?: ForecastChoice) {
  const clock = new ManualClock(T0);
  const registry = new TopicRegistry(clock);
  const store = new ForecastStore({ registry, clock, temperatureUnit: 'C', ...(choice ? { choice } : {}) });
  const values = (topic = PV) => store.points(topic, T0 - 8 * Q, T0 + 100 * Q).map(([, v]) => v);
  return { registry, store, values };
}

describe('the chosen forecast source', () => {
  it("uses the chosen source's points, fills before and after them from the fallback, ignores the rest", () => {
    const { store, values, registry } = setup({ source: 'fs', fallbacks: ['om'] });
    store.register('grab');
    store.publish('grab', { series: { pv_power_predicted: flat(T0, 8, 123456) } });
    assert.equal(registry.get(PV), undefined, 'a standby source defines no topic');
    assert.equal(store.lookup(PV).kind, 'not-fetched');
    store.publish('om', { series: { pv_power_predicted: flat(T0 - 2 * Q, 8, 500), cloud_cover: flat(T0, 2, 40) } });
    assert.deepEqual(values(), Array<number>(8).fill(500), 'the fallback while the chosen one has nothing');
    store.publish('fs', { series: { pv_power_predicted: flat(T0, 3, 100) } });
    assert.deepEqual(values(), [500, 500, 100, 100, 100, 500, 500, 500]);
    assert.deepEqual(values('weather/cloud_cover'), [40, 40], 'a topic the chosen one lacks comes from the fallback');
    assert.equal(registry.visibleValue(registry.get(PV)!), 100, 'the live value is the chosen one');
    assert.deepEqual(
      ['fs', 'om', 'grab'].map((s) => store.roleOf(s)),
      ['active', 'fallback', 'standby'],
    );
    const found = store.lookup(PV);
    assert.equal(found.kind === 'found' && found.source, 'fs');
  });

  it('a new choice applies at once with what was published before; null is the automatic choice', () => {
    const { store, values } = setup();
    store.publish('om', { series: { pv_power_predicted: flat(T0, 2, 500) } });
    store.publish('fs', { series: { pv_power_predicted: flat(T0, 2, 100) } });
    assert.deepEqual(values(), [500, 500], 'the first to publish keeps the topic');
    assert.deepEqual([store.roleOf('om'), store.roleOf('fs')], ['active', 'standby']);
    store.choose({ source: 'fs', fallbacks: [] });
    assert.deepEqual(values(), [100, 100]);
    assert.deepEqual([store.roleOf('om'), store.roleOf('fs')], ['standby', 'active']);
    store.choose({ source: null, fallbacks: [] });
    assert.deepEqual(values(), [500, 500]);
  });

  it('without a choice, the next source stands in at once when the keeper stops, until it is back', () => {
    const { store, values } = setup();
    const stopOm = store.register('om');
    store.register('fs');
    store.publish('om', { series: { pv_power_predicted: flat(T0, 2, 500) } });
    store.publish('fs', { series: { pv_power_predicted: flat(T0, 2, 100) } });
    stopOm();
    assert.deepEqual(values(), [100, 100], "the standby's forecast, kept while it was not used");
    // A restart (a reconfiguration) publishes again: the topic is the keeper's again.
    store.register('om');
    store.publish('om', { series: { pv_power_predicted: flat(T0, 2, 600) } });
    assert.deepEqual(values(), [600, 600]);
  });

  it("drops every source's outside temperatures when the unit changes", () => {
    const { store, registry } = setup({ source: 'om', fallbacks: ['fs'] });
    store.publish('om', { series: { outside_temperature: flat(T0, 2, 20) } });
    store.publish('fs', { series: { outside_temperature: flat(T0, 4, 21) } });
    store.setTemperatureUnit('F');
    assert.equal(registry.get('weather/outside_temperature'), undefined);
    store.publish('fs', { series: { outside_temperature: flat(T0, 1, 70) } });
    assert.deepEqual(store.points('weather/outside_temperature', T0, T0 + 8 * Q), [[T0, 70]]);
    assert.equal(registry.get('weather/outside_temperature')!.meta.unit, '°F');
  });
});
