// The MQTT bridge's discovery for a read-only true/false reading: the API calls it a
// `sensor` (what the official Home Assistant integration builds entities for), Home
// Assistant's MQTT integration gets the component it has for it, `binary_sensor`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TopicDefinition } from '@heliograph/plugins-sdk';
import { configTopic, discoveryConfig, mqttPlatform } from '@heliograph/plugin-mqtt/dist/src/discovery.js';

const NOT_APPLICABLE = {
  device_class: null,
  state_class: null,
  unit_of_measurement: null,
  min: null,
  max: null,
  step: null,
  options: null,
  payload_on: null,
  payload_off: null,
};

const heater: TopicDefinition = {
  topic: 'battery_2/heater_on',
  deviceId: 'battery_2',
  name: 'Heater on',
  unit: '',
  type: 'boolean',
  group: 'Status',
  writable: null,
  recorded: false,
  discovery: { platform: 'sensor', ...NOT_APPLICABLE },
};
const names = { prefix: 'heliograph', discoveryPrefix: 'homeassistant', siteId: 7 };

test('a read-only boolean is announced as a binary_sensor with true/false payloads', () => {
  assert.equal(mqttPlatform(heater), 'binary_sensor');
  assert.equal(configTopic(names, heater), 'homeassistant/binary_sensor/7/battery_2_heater_on/config');
  const config = discoveryConfig(names, heater, new Map());
  assert.equal(config.payload_on, 'true');
  assert.equal(config.payload_off, 'false');
  assert.equal(config.state_topic, 'heliograph/battery_2/heater_on/state');
});

test('a string reading stays a sensor; a switch setting stays a switch', () => {
  assert.equal(mqttPlatform({ ...heater, type: 'string' }), 'sensor');
  const sw: TopicDefinition = {
    ...heater,
    type: 'string',
    writable: { options: ['Enabled', 'Disabled'] },
    discovery: { ...heater.discovery, platform: 'switch', payload_on: 'Enabled', payload_off: 'Disabled' },
  };
  assert.equal(mqttPlatform(sw), 'switch');
});
