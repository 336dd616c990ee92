import { deviceFields, type DeviceFields } from './device.js';

/*
 * What a topic is, as the registry holds it and every consumer reads it: the lowest file of
 * topics/, so the registry, discovery and the stores below the plugins share one definition.
 */

/** Home Assistant's state classes. */
export type StateClass = 'measurement' | 'total' | 'total_increasing';

/** A declaration's own classes. A key left out keeps the derived class; `null` means none. */
export interface DiscoveryOverride {
  deviceClass?: string | null;
  stateClass?: StateClass | null;
}

export type Group = 'Status' | 'Settings' | 'Info';

/** What a client may write: options (a switch too, as `[on, off]`) or a numeric range. */
export type Writable =
  { options: readonly string[]; switch?: { on: string; off: string } } | { min: number; max: number; step: number };

/** What a topic is: everything but its value. */
export interface TopicMeta {
  /** `inverter_1/pv_power` */
  topic: string;
  /** Device id, the topic's prefix: `inverter_1`, `total`, `weather`. */
  deviceId: string;
  /** Device category as clients group by it: `inverters`, `totals` (see topics/device.ts). */
  device: DeviceFields['device'];
  /** 0-based index of the device among its kind; null for `total`, `weather`, ... */
  number: number | null;
  group: Group;
  name: string;
  unit: string;
  type: 'number' | 'string' | 'boolean';
  /** Recorded in history. */
  recorded: boolean;
  writable?: Writable;
  /** Home Assistant classes the plugin declared, replacing the ones derived from the unit. */
  discovery?: DiscoveryOverride;
  /** What the device says it is (manufacturer, model...): never nulled by staleness or unavailability. */
  identity?: boolean;
}

/**
 * What names a topic in the API's answers, in the order a definition (WebSocket) and a
 * forecast give them: its topic, device, number, group, name and unit.
 */
export function topicFields(meta: TopicMeta) {
  return {
    topic: meta.topic,
    device: meta.device,
    number: meta.number,
    group: meta.group,
    name: meta.name,
    unit: meta.unit,
  };
}

/**
 * A topic of a device the core names itself (`total/...`, `system/...`, `weather/...`), not
 * writable: its device and number follow from the device id.
 */
export function ownTopicMeta(
  deviceId: string,
  fields: {
    /** The topic's part after the device: `pv_power`. */
    name: string;
    displayName: string;
    unit: string;
    recorded: boolean;
    group?: Group;
    type?: TopicMeta['type'];
    discovery?: DiscoveryOverride | undefined;
  },
): TopicMeta {
  const meta: TopicMeta = {
    topic: `${deviceId}/${fields.name}`,
    deviceId,
    ...deviceFields(deviceId),
    group: fields.group ?? 'Status',
    name: fields.displayName,
    unit: fields.unit,
    type: fields.type ?? 'number',
    recorded: fields.recorded,
  };
  if (fields.discovery) meta.discovery = fields.discovery;
  return meta;
}
