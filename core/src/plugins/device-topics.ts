import type {
  Device,
  DeviceDeclaration,
  Disposer,
  MetricDeclaration,
  MetricValue,
  SettingDeclaration,
} from '@heliograph/plugins-sdk';
import type { Logger } from '../log.js';
import { deviceFields } from '../topics/device.js';
import { discoveryOverride } from '../topics/discovery-override.js';
import type { TopicMeta, TopicRegistry, TopicState } from '../topics/registry.js';
import type { WriteService } from '../writes/service.js';

/** Stale after three poll intervals, and never sooner than 30 s. */
export function staleTimeout(pollIntervalMs: number | undefined): number {
  return Math.max(30_000, 3 * (pollIntervalMs ?? 10_000));
}

export interface DeviceTopicsOptions {
  instanceId: string;
  devices: readonly Device[];
  registry: TopicRegistry;
  writes: WriteService;
  /** Aborts the instance's write handlers when it stops. */
  signal: AbortSignal;
  writeFailed(message: string): void;
  log: Logger;
}

/**
 * `ctx.topics.declare` and `publish` of one instance: its devices' metrics and settings as
 * registry topics (with write handlers), and publishing by device and metric name.
 */
export class DeviceTopics {
  /** Declared topics by device, then name: publish looks up without building topic strings. */
  private readonly declared = new Map<string, Map<string, TopicState>>();
  private readonly warnedUnknown = new Set<string>();

  constructor(private readonly options: DeviceTopicsOptions) {}

  /** A declared device's topics by metric name; throws for a device not declared (yet). */
  declaredOf(deviceId: string, action: 'publish' | 'record'): ReadonlyMap<string, TopicState> {
    const byName = this.declared.get(deviceId);
    if (!byName) throw new Error(`${action} for device "${deviceId}" before declaring it`);
    return byName;
  }

  declare(declaration: DeviceDeclaration): Disposer {
    const { devices, instanceId, registry, writes } = this.options;
    const device = devices.find((d) => d.id === declaration.device);
    if (!device) {
      throw new Error(
        `device "${declaration.device}" is not assigned to instance "${instanceId}" (assigned: ${devices.map((d) => d.id).join(', ') || 'none'}); assign it in plugins.json`,
      );
    }
    const undo: Disposer[] = [];
    const byName = new Map<string, TopicState>();
    try {
      for (const metric of declaration.metrics) {
        const meta = metricMeta(device, metric);
        undo.push(registry.define(meta));
        byName.set(metric.name, registry.get(meta.topic)!);
      }
      for (const setting of declaration.settings ?? []) {
        const meta = settingMeta(device, setting);
        undo.push(registry.define(meta, setting.initial ?? null));
        byName.set(setting.name, registry.get(meta.topic)!);
        undo.push(
          writes.register(meta.topic, {
            setting,
            signal: this.options.signal,
            onError: (message) => this.options.writeFailed(`write to ${meta.topic}: ${message}`),
          }),
        );
      }
      undo.push(registry.trackDevice(device.id, staleTimeout(declaration.pollIntervalMs)));
    } catch (err) {
      for (const u of undo.reverse()) u();
      throw err;
    }
    this.declared.set(device.id, byName);
    return () => {
      this.declared.delete(device.id);
      for (const u of undo.reverse()) u();
    };
  }

  publish(deviceId: string, values: Record<string, MetricValue>): void {
    const byName = this.declaredOf(deviceId, 'publish');
    const { registry } = this.options;
    for (const name in values) {
      const state = byName.get(name);
      if (state) registry.publish(state, values[name]!);
      else this.warnUnknown(`${deviceId}/${name}`);
    }
  }

  clear(): void {
    this.declared.clear();
  }

  /** Values of a metric the plugin never declared are dropped, with one warning. */
  warnUnknown(topic: string): void {
    if (this.warnedUnknown.has(topic)) return;
    this.warnedUnknown.add(topic);
    this.options.log.warn(`ignoring values of undeclared metric ${topic}; declare it with ctx.topics.declare`);
  }
}

function metricMeta(device: Device, metric: MetricDeclaration): TopicMeta {
  const type = metric.type ?? 'number';
  const group = metric.group ?? 'Status';
  return {
    topic: `${device.id}/${metric.name}`,
    deviceId: device.id,
    ...deviceFields(device.id),
    group,
    name: metric.displayName,
    unit: metric.unit ?? '',
    type,
    // Battery metrics are never recorded: the API contract answers 404 for their history.
    recorded: device.kind === 'battery' ? false : (metric.recorded ?? (type === 'number' && group === 'Status')),
    discovery: discoveryOverride(metric),
  };
}

function settingMeta(device: Device, setting: SettingDeclaration): TopicMeta {
  const writable = setting.options
    ? { options: [...setting.options] }
    : { min: setting.min ?? -Infinity, max: setting.max ?? Infinity, step: setting.step ?? 1 };
  if (!setting.options && (setting.min === undefined || setting.max === undefined)) {
    throw new Error(`setting ${device.id}/${setting.name} needs either options or min and max`);
  }
  return {
    topic: `${device.id}/${setting.name}`,
    deviceId: device.id,
    ...deviceFields(device.id),
    group: 'Settings',
    name: setting.displayName,
    unit: setting.unit ?? '',
    type: setting.options ? 'string' : 'number',
    recorded: false,
    writable,
    discovery: discoveryOverride(setting),
  };
}
