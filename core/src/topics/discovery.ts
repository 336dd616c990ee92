import type { TopicDiscovery } from '@heliograph/plugins-sdk';
import type { TopicMeta } from './topic-meta.js';

export type { DiscoveryOverride, StateClass } from './topic-meta.js';

/**
 * Discovery fields: what the Home Assistant integration (and the other official clients)
 * need to create the right entity for a topic without a table of their own (docs/api.md,
 * "Discovery fields"). Everything is derived from what a plugin already
 * declares (unit, writable options or range, value type); a declaration may replace the
 * two classes.
 */

export type Platform = 'sensor' | 'number' | 'select' | 'switch' | 'binary_sensor';

/**
 * The discovery fields of one topic. The SDK defines them (integration plugins read them
 * through `ctx.integration.definitions()`); the core derives them here.
 */
export type DiscoveryFields = TopicDiscovery;

/** Units and the device class Home Assistant files them under. */
const DEVICE_CLASS_BY_UNIT: Readonly<Record<string, string>> = {
  W: 'power',
  kW: 'power',
  Wh: 'energy',
  kWh: 'energy',
  MWh: 'energy',
  V: 'voltage',
  A: 'current',
  Hz: 'frequency',
  VA: 'apparent_power',
  '°C': 'temperature',
  '°F': 'temperature',
  MB: 'data_size',
};

/**
 * Option pairs that make a two-state setting a `switch` rather than a `select`: the on value
 * first. Compared case-insensitively. Two arbitrary options (`Utility first` / `Solar first`)
 * stay a `select`: only these read as on and off.
 */
const ON_OFF_PAIRS: ReadonlyArray<readonly [on: string, off: string]> = [
  ['enabled', 'disabled'],
  ['enable', 'disable'],
  ['on', 'off'],
  ['yes', 'no'],
  ['true', 'false'],
  ['active', 'inactive'],
];

/** A state of charge: `state_of_charge`, `soc`, `battery_soc`... */
const STATE_OF_CHARGE = /(^|_)(state_of_charge|soc)(_|$)/;

const cache = new WeakMap<TopicMeta, Readonly<DiscoveryFields>>();

type DiscoveryInput = Pick<TopicMeta, 'topic' | 'unit' | 'type' | 'writable' | 'discovery'>;

/** The discovery fields of a topic; built once per definition. */
export function discoveryFields(meta: DiscoveryInput): Readonly<DiscoveryFields> {
  const known = cache.get(meta as TopicMeta);
  if (known) return known;
  const fields = Object.freeze(deriveFields(meta));
  cache.set(meta as TopicMeta, fields);
  return fields;
}

function deriveFields(meta: DiscoveryInput): DiscoveryFields {
  const unit = meta.unit === '' ? null : meta.unit;
  const fields: DiscoveryFields = {
    platform: 'sensor',
    device_class: null,
    state_class: null,
    unit_of_measurement: unit,
    min: null,
    max: null,
    step: null,
    options: null,
    payload_on: null,
    payload_off: null,
  };
  const { writable } = meta;
  if (writable && 'options' in writable) {
    const pair = writable.switch ? ([writable.switch.on, writable.switch.off] as const) : onOffPair(writable.options);
    if (pair) Object.assign(fields, { platform: 'switch', payload_on: pair[0], payload_off: pair[1] });
    else Object.assign(fields, { platform: 'select', options: [...writable.options] });
  } else if (writable) {
    Object.assign(fields, {
      platform: 'number',
      min: writable.min,
      max: writable.max,
      step: writable.step,
      device_class: numericClass(meta),
    });
  } else if (meta.type === 'boolean') {
    // A plain sensor, not `binary_sensor`: the official Home Assistant integration builds
    // entities for sensor, number, select and switch only (its binary_sensor platform is
    // its own connection entity), so a binary_sensor reading would never show there. The
    // MQTT bridge still announces it as a binary_sensor (plugins/mqtt).
    fields.platform = 'sensor';
  } else if (meta.type === 'number') {
    fields.device_class = numericClass(meta);
    // Energy topics are period totals that restart from zero, which total_increasing
    // handles (a drop is a new cycle); every other numeric reading is a measurement.
    fields.state_class = fields.device_class === 'energy' ? 'total_increasing' : 'measurement';
  }
  const override = meta.discovery;
  if (override?.deviceClass !== undefined) fields.device_class = override.deviceClass;
  if (override?.stateClass !== undefined) fields.state_class = override.stateClass;
  return fields;
}

function numericClass(meta: DiscoveryInput): string | null {
  const name = meta.topic.slice(meta.topic.indexOf('/') + 1);
  if (meta.unit === '%' && STATE_OF_CHARGE.test(name)) return 'battery';
  return DEVICE_CLASS_BY_UNIT[meta.unit] ?? null;
}

/** The two options as [on, off] when they read as a switch, else null. */
function onOffPair(options: readonly string[]): [string, string] | null {
  if (options.length !== 2) return null;
  const [a, b] = options as [string, string];
  for (const [on, off] of ON_OFF_PAIRS) {
    if (a.toLowerCase() === on && b.toLowerCase() === off) return [a, b];
    if (a.toLowerCase() === off && b.toLowerCase() === on) return [b, a];
  }
  return null;
}
