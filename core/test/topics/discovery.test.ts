import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deviceFields, deviceFieldsOfTopic } from '../../src/topics/device.js';
import { discoveryFields } from '../../src/topics/discovery.js';
import { discoveryOverride } from '../../src/topics/discovery-override.js';
import type { TopicMeta } from '../../src/topics/registry.js';
import { topicMeta } from '../helpers/topics.js';

const meta = (topic: string, fields: Partial<TopicMeta> = {}): TopicMeta =>
  topicMeta(topic, { unit: '', recorded: false, ...fields });

describe('device and number', () => {
  it('follow the clients: category, 0-based number or null', () => {
    assert.deepEqual(deviceFields('inverter_1'), { device: 'inverters', number: 0 });
    assert.deepEqual(deviceFields('inverter_12'), { device: 'inverters', number: 11 });
    assert.deepEqual(deviceFields('battery_2'), { device: 'batteries', number: 1 });
    for (const [id, device] of [
      ['total', 'totals'],
      ['grid', 'grid'],
      ['weather', 'weather'],
      ['system', 'system'],
    ]) {
      assert.deepEqual(deviceFields(id!), { device, number: null });
    }
    assert.deepEqual(deviceFieldsOfTopic('battery_3/voltage'), { device: 'batteries', number: 2 });
  });
});

describe('discovery fields', () => {
  it('map every unit of the vocabulary to its class', () => {
    const classOf = (unit: string, name = 'x') => discoveryFields(meta(`inverter_1/${name}`, { unit })).device_class;
    assert.deepEqual(
      ['W', 'kW', 'kWh', 'V', 'A', 'Hz', 'VA', '°C', '°F', 'MB', 'km/h', ''].map((u) => classOf(u)),
      [
        'power',
        'power',
        'energy',
        'voltage',
        'current',
        'frequency',
        'apparent_power',
        'temperature',
        'temperature',
        'data_size',
        null,
        null,
      ],
    );
    assert.equal(classOf('%', 'state_of_charge'), 'battery');
    assert.equal(classOf('%', 'battery_soc'), 'battery');
    assert.equal(classOf('%', 'cloud_cover'), null, 'a percentage that is no state of charge has no class');
  });

  it('give numbers a state class and strings none', () => {
    assert.equal(discoveryFields(meta('total/pv_energy', { unit: 'kWh' })).state_class, 'total_increasing');
    assert.equal(discoveryFields(meta('weather/is_day')).state_class, 'measurement');
    const text = discoveryFields(meta('inverter_1/device_mode', { type: 'string' }));
    assert.deepEqual([text.platform, text.device_class, text.state_class], ['sensor', null, null]);
  });

  it('make only an on/off pair a switch, in either order and any case', () => {
    const of = (options: string[]) =>
      discoveryFields(meta('inverter_1/s', { group: 'Settings', type: 'string', writable: { options } }));
    assert.deepEqual(
      [of(['OFF', 'ON']).platform, of(['OFF', 'ON']).payload_on, of(['OFF', 'ON']).payload_off],
      ['switch', 'ON', 'OFF'],
    );
    assert.equal(of(['Utility first', 'Solar first']).platform, 'select');
    assert.deepEqual(of(['Utility first', 'Solar first']).options, ['Utility first', 'Solar first']);
    assert.equal(of(['On', 'Off', 'Auto']).platform, 'select');
  });
});

describe('declared classes', () => {
  it('are checked, with a message naming the declaration', () => {
    assert.equal(discoveryOverride({ name: 'pv_power' }), undefined);
    assert.deepEqual(discoveryOverride({ name: 'x', deviceClass: null }), { deviceClass: null });
    assert.throws(
      () => discoveryOverride({ name: 'lifetime_energy', stateClass: 'increasing' }),
      /declaration of lifetime_energy: .*stateClass must be "measurement", "total", "total_increasing" or null/,
    );
    assert.throws(() => discoveryOverride({ name: 'x', deviceClass: 'Power Meter' }), /lower snake case/);
  });
});
