import { createRequire } from 'node:module';
import type { Got } from 'got';
import type {
  Device,
  DeviceDeclaration,
  Disposer,
  MetricDeclaration,
  MetricValue,
  PluginContext,
  PluginStore,
  SettingDeclaration,
  SiteInfo,
} from '@heliograph/plugins-sdk';
import type { Clock } from '../clock.js';
import type { Db } from '../db.js';
import { createLogger } from '../log.js';
import type { TopicMeta, TopicRegistry, TopicState } from '../topics/registry.js';
import { PastTotals } from '../topics/power-totals.js';
import type { WriteService } from '../writes/service.js';
import { PluginScheduler, type JobReporter } from './scheduler.js';
import type { ForecastSink, HistorySink, PriceSink } from './sinks.js';

/** The core services a context hands on to; each plugin gets them already bound to its id. */
export interface ContextServices {
  clock: Clock;
  db: Db;
  registry: TopicRegistry;
  writes: WriteService;
  history?: HistorySink;
  forecast?: ForecastSink;
  prices?: PriceSink;
  site: SiteInfo;
}

const require = createRequire(import.meta.url);

/**
 * got is loaded on a plugin's first use of `ctx.http`, not at start: it is the largest
 * module the server would load, and most device plugins never make an HTTP call (on a
 * Raspberry Pi the 10 MB matter). Node 20.19+ can require an ES module such as got.
 */
function createHttpClient(signal: AbortSignal): Got {
  const { got } = require('got') as typeof import('got');
  return got.extend({
    timeout: { request: 15_000 },
    retry: { limit: 2, methods: ['GET', 'POST'], statusCodes: [408, 500, 502, 503, 504, 521, 522, 524] },
    signal,
  });
}

/** Stale after three poll intervals, and never sooner than 30 s. */
export function staleTimeout(pollIntervalMs: number | undefined): number {
  return Math.max(30_000, 3 * (pollIntervalMs ?? 10_000));
}

export const pluginStoreMigrations = [
  {
    id: 'plugin-store:1',
    sql: 'CREATE TABLE plugin_store (instance TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (instance, key))',
  },
];

/**
 * Builds the context of one plugin instance. Everything registered through it is undone by
 * `dispose()`, which the host calls on stop and after a failed start.
 */
export class ContextBuilder {
  private readonly disposers: Disposer[] = [];
  private disposed = false;
  private forecastRegistered = false;
  /** Published values by device, then name: publish looks up without building topic strings. */
  private readonly published = new Map<string, Map<string, TopicState>>();
  private readonly warnedUnknown = new Set<string>();
  private pastTotals: PastTotals | undefined;
  private warnedPartialTotals = false;
  private readonly log;

  constructor(
    private readonly instanceId: string,
    private readonly devices: readonly Device[],
    private readonly services: ContextServices,
    private readonly abort: AbortController,
    private readonly reporter: JobReporter & { writeFailed(message: string): void },
  ) {
    this.log = createLogger(`plugin:${instanceId}`);
  }

  build(): PluginContext {
    const { services, instanceId } = this;
    const scheduler = new PluginScheduler(services.clock, this.abort.signal, this.reporter);
    const abort = this.abort;
    let http: Got | undefined;
    const track = (dispose: Disposer) => this.track(dispose);
    return {
      instanceId,
      log: this.log,
      devices: this.devices,
      site: services.site,
      topics: {
        declare: (declaration) => track(this.declare(declaration)),
        publish: ({ device, values }) => this.publish(device, values),
        record: ({ device, readings }) => this.record(device, readings),
      },
      scheduler: {
        every: (job) => track(scheduler.every(job)),
        daily: (job) => track(scheduler.daily({ ...job, timeZone: job.timeZone ?? services.site.timeZone })),
      },
      forecast: {
        publish: (run) => {
          if (!services.forecast) throw new Error('this server has no forecast store');
          // Any plugin that publishes a forecast (the simulator's demo one, say) is a source.
          this.registerForecastSource();
          services.forecast.publish(instanceId, run);
        },
      },
      prices: {
        declare: (args) => {
          if (!services.prices) throw new Error('this server has no price book');
          return track(services.prices.declare(instanceId, args));
        },
        publish: (schedule) => {
          if (!services.prices) throw new Error('this server has no price book');
          services.prices.publish(instanceId, schedule);
        },
      },
      get http() {
        return (http ??= createHttpClient(abort.signal));
      },
      store: this.store(),
      signal: this.abort.signal,
      now: () => services.clock.now(),
    };
  }

  /**
   * Registers the instance as a forecast source: at start for forecast plugins (so the API
   * can tell "not fetched yet" from "no forecast plugin"), at the first publish for others.
   */
  registerForecastSource(): void {
    if (this.forecastRegistered || !this.services.forecast) return;
    this.forecastRegistered = true;
    this.track(this.services.forecast.register(this.instanceId));
  }

  /**
   * The cleanup a plugin's setup returned: run at dispose after every registration is
   * undone, or at once when the instance was stopped before its setup finished.
   */
  setCleanup(cleanup: Disposer): void {
    if (this.disposed) this.runDisposer(cleanup);
    else this.disposers.unshift(cleanup);
  }

  /** Undoes every registration, newest first. Later registrations are undone as they come. */
  dispose(): void {
    this.disposed = true;
    for (const dispose of this.disposers.splice(0).reverse()) this.runDisposer(dispose);
    this.published.clear();
    this.forecastRegistered = false;
  }

  /**
   * Keeps a registration's disposer for {@link dispose}. A setup still running when its
   * instance was stopped must not leave topics, jobs or handlers behind, so a registration
   * made after dispose is undone at once.
   */
  private track(dispose: Disposer): Disposer {
    if (this.disposed) this.runDisposer(dispose);
    else this.disposers.push(dispose);
    return dispose;
  }

  private runDisposer(dispose: Disposer): void {
    try {
      dispose();
    } catch (err) {
      this.log.warn('a disposer threw', { err });
    }
  }

  private declare(declaration: DeviceDeclaration): Disposer {
    const device = this.devices.find((d) => d.id === declaration.device);
    if (!device) {
      throw new Error(`device "${declaration.device}" is not assigned to instance "${this.instanceId}" (assigned: ${this.devices.map((d) => d.id).join(', ') || 'none'}); assign it in plugins.json`);
    }
    const { registry, writes } = this.services;
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
            signal: this.abort.signal,
            onError: (message) => this.reporter.writeFailed(`write to ${meta.topic}: ${message}`),
          }),
        );
      }
      undo.push(registry.trackDevice(device.id, staleTimeout(declaration.pollIntervalMs)));
    } catch (err) {
      for (const u of undo.reverse()) u();
      throw err;
    }
    this.published.set(device.id, byName);
    return () => {
      this.published.delete(device.id);
      for (const u of undo.reverse()) u();
    };
  }

  private publish(deviceId: string, values: Record<string, MetricValue>): void {
    const byName = this.published.get(deviceId);
    if (!byName) throw new Error(`publish for device "${deviceId}" before declaring it`);
    const { registry } = this.services;
    for (const name in values) {
      const state = byName.get(name);
      if (state) registry.publish(state, values[name]!);
      else this.warnUnknown(`${deviceId}/${name}`);
    }
  }

  private async record(deviceId: string, readings: Array<{ time: number; values: Record<string, number> }>): Promise<void> {
    const history = this.services.history;
    if (!history) return;
    const byName = this.published.get(deviceId);
    if (!byName) throw new Error(`record for device "${deviceId}" before declaring it`);
    const series = new Map<TopicMeta, Array<readonly [number, number]>>();
    for (const reading of readings) {
      for (const name in reading.values) {
        const state = byName.get(name);
        if (!state) {
          this.warnUnknown(`${deviceId}/${name}`);
          continue;
        }
        if (!state.meta.recorded) continue;
        let list = series.get(state.meta);
        if (!list) series.set(state.meta, (list = []));
        list.push([reading.time, reading.values[name]!]);
      }
    }
    // One write for the device's topics and the totals they complete, not one per topic.
    await history.recordPastSeries([...series, ...this.pastTotalsOf(deviceId, readings)]);
  }

  /** The total/* series that past readings complete; none while other instances drive inverters too. */
  private pastTotalsOf(deviceId: string, readings: Array<{ time: number; values: Record<string, number> }>): Array<[TopicMeta, Array<[number, number]>]> {
    this.pastTotals ??= new PastTotals(this.services.registry, this.devices.filter((d) => d.kind === 'inverter').map((d) => d.id));
    if (!this.pastTotals.coversAllInverters()) {
      if (!this.warnedPartialTotals) this.log.info('past readings recorded without totals: other instances drive inverters too, so past total/* values would be partial');
      this.warnedPartialTotals = true;
      return [];
    }
    return this.pastTotals.add(deviceId, readings);
  }

  private warnUnknown(topic: string): void {
    if (this.warnedUnknown.has(topic)) return;
    this.warnedUnknown.add(topic);
    this.log.warn(`ignoring values of undeclared metric ${topic}; declare it with ctx.topics.declare`);
  }

  private store(): PluginStore {
    const { db } = this.services;
    const instance = this.instanceId;
    return {
      async get<T>(key: string): Promise<T | undefined> {
        const row = await db.get<{ value: string }>('SELECT value FROM plugin_store WHERE instance = ? AND key = ?', instance, key);
        return row ? (JSON.parse(row.value) as T) : undefined;
      },
      async set(key, value) {
        await db.run(
          'INSERT INTO plugin_store (instance, key, value) VALUES (?, ?, ?) ON CONFLICT (instance, key) DO UPDATE SET value = excluded.value',
          instance,
          key,
          JSON.stringify(value),
        );
      },
      async delete(key) {
        await db.run('DELETE FROM plugin_store WHERE instance = ? AND key = ?', instance, key);
      },
    };
  }
}

function metricMeta(device: Device, metric: MetricDeclaration): TopicMeta {
  const type = metric.type ?? 'number';
  const group = metric.group ?? 'Status';
  return {
    topic: `${device.id}/${metric.name}`,
    deviceId: device.id,
    device: device.name,
    number: device.number,
    group,
    name: metric.displayName,
    unit: metric.unit ?? '',
    type,
    // Battery metrics are never recorded: the API contract answers 404 for their history.
    recorded: device.kind === 'battery' ? false : (metric.recorded ?? (type === 'number' && group === 'Status')),
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
    device: device.name,
    number: device.number,
    group: 'Settings',
    name: setting.displayName,
    unit: setting.unit ?? '',
    type: setting.options ? 'string' : 'number',
    recorded: false,
    writable,
  };
}
