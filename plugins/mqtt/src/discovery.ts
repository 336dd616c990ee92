import { deviceFromId, type MetricValue, type TopicDefinition } from '@heliograph/plugins-sdk';

/**
 * Home Assistant MQTT discovery: one entity per topic, with the platform, classes, unit,
 * range, options and payloads of the API's discovery fields, and one HA device per
 * Heliograph device (inverter_1, battery_1, total, weather...).
 * https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery
 */

export interface DiscoveryNames {
  prefix: string;
  discoveryPrefix: string;
  siteId: number;
}

/** Identity values a driver publishes as Info topics (SDK 1.1 `identify`), read for the device block. */
const IDENTITY_FIELDS = {
  manufacturer: 'manufacturer',
  model: 'model',
  sw_version: 'firmware_version',
  serial_number: 'serial_number',
} as const;
/** The Info row naming what a device is reached through (its identity's `parent`). */
const PARENT_ROW = 'parent_device';

/** Topics whose value goes into a device block: a change re-announces the device. */
export function isIdentityTopic(topic: string): boolean {
  const name = topic.slice(topic.indexOf('/') + 1);
  return (
    name === PARENT_ROW ||
    Object.values(IDENTITY_FIELDS).includes(name as (typeof IDENTITY_FIELDS)[keyof typeof IDENTITY_FIELDS])
  );
}

/** An MQTT-safe id: what HA accepts as node and object id. */
export function objectId(topic: string): string {
  return topic.replace(/[^a-zA-Z0-9_-]/g, '_');
}

export function stateTopic(prefix: string, topic: string): string {
  return `${prefix}/${topic}/state`;
}

export function commandTopic(prefix: string, topic: string): string {
  return `${prefix}/${topic}/set`;
}

export function availabilityTopic(prefix: string): string {
  return `${prefix}/availability`;
}

/**
 * The MQTT integration's component of a topic. The API describes a read-only true/false
 * reading as a `sensor` (what the official integration shows); Home Assistant's MQTT
 * integration has a component for exactly that, `binary_sensor`, with `true` / `false`
 * payloads.
 */
export function mqttPlatform(definition: TopicDefinition): TopicDefinition['discovery']['platform'] {
  if (definition.type === 'boolean' && definition.writable === null) return 'binary_sensor';
  return definition.discovery.platform;
}

/** `<discoveryPrefix>/<component>/<siteId>/<object_id>/config` */
export function configTopic(names: DiscoveryNames, definition: TopicDefinition): string {
  return `${names.discoveryPrefix}/${mqttPlatform(definition)}/${names.siteId}/${objectId(definition.topic)}/config`;
}

/** A value as a state message: `None` (HA's unknown) for no reading. */
export function statePayload(value: MetricValue): string {
  return value === null ? 'None' : String(value);
}

/**
 * The discovery config of one topic. `values` holds current values, for the device's identity.
 */
export function discoveryConfig(
  names: DiscoveryNames,
  definition: TopicDefinition,
  values: ReadonlyMap<string, MetricValue>,
): Record<string, unknown> {
  const { prefix, siteId } = names;
  const d = definition.discovery;
  const config: Record<string, unknown> = {
    name: definition.name,
    unique_id: `heliograph_${siteId}_${objectId(definition.topic)}`,
    state_topic: stateTopic(prefix, definition.topic),
    availability_topic: availabilityTopic(prefix),
    payload_available: 'online',
    payload_not_available: 'offline',
    device: deviceBlock(names, definition.deviceId, values),
  };
  if (d.device_class !== null) config.device_class = d.device_class;
  if (d.state_class !== null) config.state_class = d.state_class;
  if (d.unit_of_measurement !== null) config.unit_of_measurement = d.unit_of_measurement;
  if (definition.group === 'Info') config.entity_category = 'diagnostic';
  if (definition.writable) config.command_topic = commandTopic(prefix, definition.topic);
  switch (mqttPlatform(definition)) {
    case 'number':
      Object.assign(config, { min: d.min, max: d.max, step: d.step });
      break;
    case 'select':
      config.options = d.options;
      break;
    case 'switch':
      Object.assign(config, {
        payload_on: d.payload_on,
        payload_off: d.payload_off,
        state_on: d.payload_on,
        state_off: d.payload_off,
      });
      break;
    case 'binary_sensor':
      Object.assign(config, { payload_on: 'true', payload_off: 'false' });
      break;
    case 'sensor':
      break;
  }
  return config;
}

/** One HA device per Heliograph device, with the identity its driver reported. */
function deviceBlock(
  names: DiscoveryNames,
  deviceId: string,
  values: ReadonlyMap<string, MetricValue>,
): Record<string, unknown> {
  const block: Record<string, unknown> = {
    identifiers: [`heliograph_${names.siteId}_${objectId(deviceId)}`],
    name: deviceName(deviceId),
  };
  for (const [key, name] of Object.entries(IDENTITY_FIELDS)) {
    const value = values.get(`${deviceId}/${name}`);
    if (typeof value === 'string' && value !== '') block[key] = value;
  }
  block.manufacturer ??= 'Heliograph';
  // A parent that is a device of this site links the two; a gateway's description cannot.
  const parent = values.get(`${deviceId}/${PARENT_ROW}`);
  if (typeof parent === 'string' && isSiteDevice(parent, values))
    block.via_device = `heliograph_${names.siteId}_${objectId(parent)}`;
  return block;
}

/** Whether `id` names a device with topics here (`inverter_1`), not a gateway's description. */
function isSiteDevice(id: string, values: ReadonlyMap<string, MetricValue>): boolean {
  const prefix = `${id}/`;
  for (const topic of values.keys()) if (topic.startsWith(prefix)) return true;
  return false;
}

/** `Inverter 1` for inverter_1; `Total`, `Weather` for the core's own. */
function deviceName(deviceId: string): string {
  try {
    return deviceFromId(deviceId).name;
  } catch {
    return deviceId.charAt(0).toUpperCase() + deviceId.slice(1).replaceAll('_', ' ');
  }
}
