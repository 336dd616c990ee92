import type {
  Device,
  DeviceDeclaration,
  DeviceIdentity,
  Disposer,
  MetricDeclaration,
  MetricValue,
  SettingDeclaration,
  SettingUpdate,
} from '@heliograph/plugins-sdk';
import type { Logger } from '../../log.js';
import { deviceFields } from '../../topics/device.js';
import { discoveryOverride } from '../../topics/discovery-override.js';
import type { TopicMeta, TopicRegistry, TopicState } from '../../topics/registry.js';
import type { WriteService } from '../../writes/service.js';
import { settingKind, writableOf } from '../../writes/setting-values.js';
import { IdentityRows } from './identity.js';

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
  /** Declared settings by topic, as last updated. */
  private readonly settings = new Map<string, SettingDeclaration>();
  private readonly warnedUnknown = new Set<string>();
  readonly identity: IdentityRows;

  constructor(private readonly options: DeviceTopicsOptions) {
    this.identity = new IdentityRows(options.registry);
  }

  /**
   * A declared device's topics by metric name; throws for a device not declared (yet). Once
   * the instance has stopped, undefined: a stop cut off at its deadline took the device's topics
   * away while the plugin's callbacks were still finishing, and what they say about the device
   * is no longer the plugin's to say (dropped, not a crash of the service).
   */
  declaredOf(deviceId: string, action: string): ReadonlyMap<string, TopicState> | undefined {
    const byName = this.declared.get(deviceId);
    if (byName || this.options.signal.aborted) return byName;
    throw new Error(`${action} for device "${deviceId}" before declaring it`);
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
        this.settings.set(meta.topic, setting);
        undo.push(() => this.settings.delete(meta.topic));
        undo.push(
          writes.register(meta.topic, {
            setting,
            owner: instanceId,
            signal: this.options.signal,
            onError: (message) => this.options.writeFailed(`write to ${meta.topic}: ${message}`),
          }),
        );
      }
      undo.push(registry.trackDevice(device.id, staleTimeout(declaration.pollIntervalMs)));
      undo.push(this.identity.attach(device.id, byName));
      if (declaration.identity) this.identity.set(device.id, declaration.identity);
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
    if (!byName) return;
    const { registry } = this.options;
    for (const name in values) {
      const state = byName.get(name);
      if (state) registry.publish(state, values[name]!);
      else this.warnUnknown(`${deviceId}/${name}`);
    }
  }

  /** Merges what a device says it is into its identity rows. */
  identify(deviceId: string, identity: DeviceIdentity): void {
    if (this.declaredOf(deviceId, 'identify')) this.identity.set(deviceId, identity);
  }

  markUnavailable(deviceId: string, reason: string): void {
    if (this.declaredOf(deviceId, 'markUnavailable')) this.options.registry.markUnavailable(deviceId, reason);
  }

  markAvailable(deviceId: string): void {
    if (this.declaredOf(deviceId, 'markAvailable')) this.options.registry.markAvailable(deviceId);
  }

  /** Changes a declared setting's range or options; clients get the new definition. */
  updateSetting(update: SettingUpdate): void {
    const byName = this.declaredOf(update.device, 'updateSetting');
    if (!byName) return;
    const state = byName.get(update.name);
    const old = state && this.settings.get(state.meta.topic);
    if (!state || !old) throw new Error(`updateSetting: ${update.device} declares no setting "${update.name}"`);
    const kind = settingKind(old);
    const { device: _device, name: _name, ...fields } = update;
    const ranged = fields.min !== undefined || fields.max !== undefined || fields.step !== undefined;
    if ((kind !== 'range' && ranged) || (kind !== 'options' && fields.options !== undefined))
      throw new Error(
        `updateSetting: ${state.meta.topic} is a setting of kind ${kind}: ${Object.keys(fields).join(', ')} do not apply`,
      );
    const setting = { ...old, ...fields } as SettingDeclaration;
    const writable = writableOf(setting, state.meta.topic);
    this.settings.set(state.meta.topic, setting);
    this.options.writes.updateSetting(state.meta.topic, setting);
    this.options.registry.redefine(state, { ...state.meta, writable });
  }

  /** Per declared device: whether it answers and what it says it is (GET /api/v1/plugins). */
  deviceStatus(deviceId: string): { available: boolean; reason: string | null; identity: DeviceIdentity } | undefined {
    const availability = this.declared.has(deviceId) ? this.options.registry.availability(deviceId) : undefined;
    return availability && { ...availability, identity: this.identity.of(deviceId) };
  }

  clear(): void {
    this.declared.clear();
    this.settings.clear();
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
  const topic = `${device.id}/${setting.name}`;
  const writable = writableOf(setting, topic);
  return {
    topic,
    deviceId: device.id,
    ...deviceFields(device.id),
    group: 'Settings',
    name: setting.displayName,
    unit: setting.unit ?? '',
    type: 'min' in writable ? 'number' : 'string',
    recorded: false,
    writable,
    discovery: discoveryOverride(setting),
  };
}
