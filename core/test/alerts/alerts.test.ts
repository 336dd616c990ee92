import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Alerts, WRITE_REFUSED_HOLD_MS } from '../../src/alerts/alerts.js';
import { ManualClock } from '../../src/clock.js';
import { TopicRegistry, type TopicMeta } from '../../src/topics/registry.js';
import { topicMeta } from '../helpers/topics.js';

const START = Date.parse('2026-11-25T12:00:00Z');

function meta(topic: string, unit: string): TopicMeta {
  return topicMeta(topic, { unit, recorded: false });
}

/** The registry's next tick, with a deadline. */
function nextTick(registry: TopicRegistry): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no registry tick within 2 s')), 2000);
    registry.once('tick', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function setup(config: ConstructorParameters<typeof Alerts>[2]) {
  const clock = new ManualClock(START);
  const registry = new TopicRegistry(clock);
  registry.define(meta('total/battery_state_of_charge', '%'));
  const alerts = new Alerts(registry, clock, config);
  const stop = alerts.start();
  const value = (name: string) => registry.get(`system/${name}`)?.value;
  return { clock, registry, alerts, stop, value };
}

test('the battery alert follows the threshold the owner set, and a new threshold applies at once', async (t) => {
  const fx = setup({ batteryBelowPercent: 20, deviceUnavailableMinutes: null, writeRefused: true });
  t.after(fx.stop);
  assert.equal(fx.value('alert_battery_low'), false);
  assert.equal(fx.value('alerts'), '');
  const soc = fx.registry.get('total/battery_state_of_charge')!;
  fx.registry.publish(soc, 15);
  await nextTick(fx.registry);
  assert.equal(fx.value('alert_battery_low'), true);
  assert.equal(fx.value('alerts'), 'battery at 15 %, below 20 %');
  fx.registry.publish(soc, 25);
  await nextTick(fx.registry);
  assert.equal(fx.value('alert_battery_low'), false);
  fx.alerts.reconfigure({ batteryBelowPercent: 30, deviceUnavailableMinutes: null, writeRefused: true });
  assert.equal(fx.value('alert_battery_low'), true, 'a higher threshold turns it on without waiting for a reading');
  fx.alerts.reconfigure({ batteryBelowPercent: null, deviceUnavailableMinutes: null, writeRefused: true });
  assert.equal(fx.value('alert_battery_low'), false, 'null turns it off');
});

test('a device alerts only once it has not answered for the set minutes', async (t) => {
  const fx = setup({ batteryBelowPercent: null, deviceUnavailableMinutes: 10, writeRefused: true });
  t.after(fx.stop);
  fx.registry.trackDevice('inverter_1', 30_000);
  fx.registry.define(meta('inverter_1/pv_power', 'W'));
  fx.registry.publish(fx.registry.get('inverter_1/pv_power')!, 1200);
  await nextTick(fx.registry);
  fx.clock.advance(31_000);
  fx.registry.checkStale();
  fx.alerts.check();
  assert.equal(fx.value('alert_device_unavailable'), false, 'stale, but not for 10 minutes yet');
  fx.clock.advance(10 * 60_000);
  fx.alerts.check();
  assert.equal(fx.value('alert_device_unavailable'), true);
  assert.equal(fx.value('alerts'), 'not answering: inverter_1');
  // It answers again: the alert goes.
  fx.registry.publish(fx.registry.get('inverter_1/pv_power')!, 900);
  await nextTick(fx.registry);
  assert.equal(fx.value('alert_device_unavailable'), false);
});

test('a refused write alerts for 10 minutes, unless the owner turned that off', (t) => {
  const fx = setup({ batteryBelowPercent: null, deviceUnavailableMinutes: null, writeRefused: true });
  t.after(fx.stop);
  fx.alerts.writeRefused('inverter_1/max_charge_current', 'must be at most 120');
  assert.equal(fx.value('alert_write_refused'), true);
  assert.equal(fx.value('alerts'), 'write to inverter_1/max_charge_current refused: must be at most 120');
  fx.clock.advance(WRITE_REFUSED_HOLD_MS);
  fx.alerts.check();
  assert.equal(fx.value('alert_write_refused'), false);
  fx.alerts.reconfigure({ batteryBelowPercent: null, deviceUnavailableMinutes: null, writeRefused: false });
  fx.alerts.writeRefused('inverter_1/max_charge_current', 'must be at most 120');
  assert.equal(fx.value('alert_write_refused'), false);
});
