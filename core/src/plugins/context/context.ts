/*
 * plugins/context: the `ctx` each plugin instance gets. This file builds it from the parts
 * beside it: device topics and identity, past readings, `ctx.site`, `ctx.integration`, the
 * plugin store, the bounded HTTP client, and the sinks into the core's stores.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Got } from 'got';
import type { Cleanup, Device, Disposer, PluginContext, PluginStore, StatusApi } from '@heliograph/plugins-sdk';
import { inject, injectable } from '../../container/di.js';
import { createLogger } from '../../log.js';
import { DeviceTopics } from './device-topics.js';
import { integrationApi } from './integration.js';
import { PastReadings } from './past-readings.js';
import { ProgressBoard } from './progress.js';
import { pluginStore } from './plugin-store.js';
import { PublishLimiter, RefusalReport } from './refusals.js';
import { quotasOf, type PluginQuotas } from '../instances/quotas.js';
import { GrantCheck, GRANT_MISSING } from '../instances/grants.js';
import type { Refusal } from '../isolation/worker/refusals.js';
import { PluginScheduler } from '../scheduling/scheduler.js';
import { siteApi } from './site.js';
import { HTTP_CLIENT } from '../../container/tokens.js';
import { CONTEXT_SERVICES, PLUGIN_INSTANCE, type ContextServices, type PluginInstanceScope } from './services.js';

export { CONTEXT_SERVICES, PLUGIN_INSTANCE, type ContextServices, type PluginInstanceScope };

/** How long a cleanup that runs after the registrations were undone (a failed start) may take before it is logged. */
const CLEANUP_AFTER_DISPOSE_MS = 8_000;
/** Dropped publishes are reported at most this often. */
const PUBLISH_REPORT_EVERY_MS = 10_000;

/**
 * Builds the context of one plugin instance. Everything registered through it is undone by
 * `dispose()`, which the host calls on stop and after a failed start. Resolved from a child
 * container per instance start (see container/core-services.ts), where PLUGIN_INSTANCE is
 * that instance.
 */
@injectable()
export class ContextBuilder {
  private readonly disposers: Disposer[] = [];
  private disposed = false;
  /** The cleanup the plugin's setup returned, until it has run. */
  private cleanup: Cleanup | undefined;
  private forecastRegistered = false;
  private planPublished = false;
  private readonly log;
  private readonly topics: DeviceTopics;
  private readonly past: PastReadings;

  private readonly instanceId: string;
  private readonly pluginId: string;
  private readonly devices: readonly Device[];
  private readonly abort: AbortController;
  private readonly reporter: PluginInstanceScope['reporter'];
  private readonly quotas: PluginQuotas;
  private readonly refusals: RefusalReport;
  private readonly publishes: PublishLimiter;
  /** The instance's approved grants; undefined (nothing checked) for a builder made without them. */
  private readonly grants: GrantCheck | undefined;
  private publishReportAt = -Infinity;

  constructor(
    @inject(PLUGIN_INSTANCE) instance: PluginInstanceScope,
    @inject(CONTEXT_SERVICES) private readonly services: ContextServices,
    @inject(HTTP_CLIENT) private readonly createHttpClient: (signal: AbortSignal) => Got,
    /** The server's board (registered by the composition root); a builder made by hand keeps its own. */
    private readonly progress: ProgressBoard = new ProgressBoard(services.clock),
  ) {
    const { id: instanceId, devices, abort, reporter } = instance;
    this.instanceId = instanceId;
    this.pluginId = instance.plugin;
    this.devices = devices;
    this.abort = abort;
    this.reporter = reporter;
    this.log = (services.logger ?? createLogger)(`plugin:${instanceId}`);
    this.quotas = quotasOf(services.quotas, instance.quotas);
    this.grants = instance.grants && new GrantCheck(instance.grants, devices);
    this.refusals = new RefusalReport({
      instanceId,
      pluginId: this.pluginId,
      log: this.log,
      audit: services.audit,
      now: () => services.clock.now(),
    });
    // Real time, not the server's clock: a test's clock that stands still must not starve it.
    this.publishes = new PublishLimiter(this.quotas.publishesPerSecond, () => performance.now());
    const { registry, writes, history } = services;
    this.topics = new DeviceTopics({
      instanceId,
      devices,
      registry,
      writes,
      signal: abort.signal,
      writeFailed: (m) => reporter.writeFailed(m),
      log: this.log,
    });
    this.past = new PastReadings({
      devices,
      registry,
      topics: this.topics,
      history,
      log: this.log,
      energyReset: services.energyReset,
      pastEnergy: services.pastEnergy,
    });
  }

  build(): PluginContext {
    const { services, instanceId, pluginId } = this;
    const scheduler =
      services.jobs?.(this.abort.signal, this.reporter) ??
      new PluginScheduler(services.clock, this.abort.signal, this.reporter);
    const abort = this.abort;
    let http: Got | undefined;
    const createHttpClient = this.createHttpClient;
    const track = (dispose: Disposer) => this.track(dispose);
    const integration = integrationApi({
      ...services,
      instanceId,
      pluginId,
      services: services.integration,
      track,
      log: this.log,
      refusedWrite: (topic) => this.refusedWrite(topic, 'ctx.integration.write'),
    });
    return {
      instanceId,
      log: this.log,
      devices: this.devices,
      site: siteApi({
        ...services,
        info: services.site,
        pluginId,
        instanceId,
        readers: services.reads ?? {},
        track,
        log: this.log,
        refusedWrite: (topic) => this.refusedWrite(topic, 'ctx.site.write'),
      }),
      topics: {
        declare: (declaration) => track(this.topics.declare(declaration)),
        publish: ({ device, values }) => {
          if (this.mayPublish()) this.topics.publish(device, values);
        },
        record: ({ device, readings }) => this.past.record(device, readings),
        identify: ({ device, identity }) => this.topics.identify(device, identity),
        markUnavailable: ({ device, reason }) => this.topics.markUnavailable(device, String(reason)),
        markAvailable: ({ device }) => this.topics.markAvailable(device),
        updateSetting: (update) => this.topics.updateSetting(update),
      },
      status: this.statusApi(),
      scheduler: {
        every: (job) => track(scheduler.every(job)),
        daily: (job) => track(scheduler.daily({ ...job, timeZone: job.timeZone ?? services.site.timeZone })),
      },
      forecast: {
        publish: (run) => {
          if (!services.forecast) throw new Error('this server has no forecast store');
          // A plan alone (the planner's) is the instance's own; forecast series need the grant.
          if (Object.keys(run.series).length > 0 && this.refusedPublish('forecast')) return;
          if (!this.mayPublish()) return;
          // Any plugin that publishes a forecast (the simulator's demo one, say) is a source;
          // one that publishes only a plan (the planner) is not, and its plan goes with it.
          if (Object.keys(run.series).length > 0) this.registerForecastSource();
          if (run.plan && !this.planPublished) {
            this.planPublished = true;
            const sink = services.forecast;
            this.track(() => sink.dropPlans(instanceId));
          }
          services.forecast.publish(instanceId, run);
        },
      },
      prices: this.pricesApi(),
      integration,
      get http() {
        return (http ??= createHttpClient(abort.signal));
      },
      store: this.store(),
      signal: this.abort.signal,
      now: () => services.clock.now(),
    };
  }

  /** `ctx.prices`: with the instance's `prices` grant only, within its publish rate. */
  private pricesApi(): PluginContext['prices'] {
    const { services, instanceId } = this;
    return {
      declare: (args) => {
        if (!services.prices) throw new Error('this server has no price book');
        if (this.refusedPublish('prices')) return () => {};
        return this.track(services.prices.declare(instanceId, args));
      },
      publish: (schedule) => {
        if (!services.prices) throw new Error('this server has no price book');
        if (this.refusedPublish('prices')) return;
        if (!this.mayPublish()) return;
        services.prices.publish(instanceId, schedule);
      },
    };
  }

  /** `ctx.store`, within the instance's quota; a refusal is logged and audited. */
  private store(): PluginStore {
    const { db, writer } = this.services;
    return pluginStore(db, this.instanceId, writer, {
      quotas: this.quotas,
      refused: (error) => this.refusals.report({ code: error.code, what: 'ctx.store.set', message: error.message }),
    });
  }

  /**
   * The instance's own folder, `<data dir>/plugins/<instance>/` (its sandbox's one writable
   * place); undefined where there is no data directory (the plugin harness).
   */
  get ownDir(): string | undefined {
    const dataDir = this.services.integration?.dataDir;
    return dataDir === undefined ? undefined : join(dataDir, 'plugins', this.instanceId);
  }

  /** The data directory, which the sandbox keeps the plugin out of. */
  get dataDir(): string | undefined {
    return this.services.integration?.dataDir;
  }

  /** The plugin's sandbox refused one of its calls: logged and audited. */
  sandboxRefused(refusal: Refusal): void {
    this.refusals.report({
      code: 'ERR_ACCESS_DENIED',
      what: `${refusal.api} ${refusal.resource}`.trim(),
      message: `ERR_ACCESS_DENIED: the sandbox refused ${refusal.permission}${refusal.resource ? ` of ${refusal.resource}` : ''} (${refusal.api})`,
    });
  }

  /** The refusal's sentence when the instance may not write `topic` (reported), else undefined. */
  private refusedWrite(topic: string, api: string): string | undefined {
    const refused = this.grants?.write(String(topic));
    if (refused)
      this.refusals.report({ code: GRANT_MISSING, what: `${api} ${String(topic).slice(0, 256)}`, message: refused });
    return refused;
  }

  /** Whether a price or forecast publish lacks its grant (then reported, and dropped). */
  private refusedPublish(what: 'prices' | 'forecast'): boolean {
    const refused = this.grants?.publish(what);
    if (refused) this.refusals.report({ code: GRANT_MISSING, what: `ctx.${what}.publish`, message: refused });
    return refused !== undefined;
  }

  /** ctx.http was refused a host (its grants' `hosts`): logged and audited. */
  hostRefused(host: string, message: string): void {
    this.refusals.report({ code: GRANT_MISSING, what: `ctx.http ${host}`, message });
  }

  /** The hosts ctx.http may reach; undefined when nothing is checked (a builder made without grants). */
  get hosts(): readonly string[] | undefined {
    return this.grants && (this.grants.grants.hosts ?? []);
  }

  /** Whether a publish is within the instance's rate; a dropped one is reported now and then. */
  private mayPublish(): boolean {
    if (this.publishes.take()) return true;
    const now = performance.now();
    if (now - this.publishReportAt >= PUBLISH_REPORT_EVERY_MS) {
      this.publishReportAt = now;
      const dropped = this.publishes.dropped;
      this.publishes.dropped = 0;
      this.refusals.report({
        code: 'PUBLISH_RATE_EXCEEDED',
        what: 'ctx.topics.publish',
        message: `PUBLISH_RATE_EXCEEDED: ${dropped} publish${dropped === 1 ? '' : 'es'} dropped: more than ${this.quotas.publishesPerSecond} a second; publish less often, or raise "quotas": { "publishesPerSecond": ... } in plugins.json`,
      });
    }
    return false;
  }

  /** `ctx.status`: errors and recovery outside jobs, and a long task's progress (on the server's board). */
  private statusApi(): StatusApi {
    return {
      error: ({ message }) => this.reporter.statusError(String(message)),
      ok: () => this.reporter.statusOk(),
      progress: (report) => {
        if (!this.disposed) this.progress.report(this.instanceId, report, this.log);
      },
    };
  }

  /** Per device of the instance: whether it answers, and what it says it is. */
  deviceStatus(deviceId: string): ReturnType<DeviceTopics['deviceStatus']> {
    return this.topics.deviceStatus(deviceId);
  }

  /**
   * Registers the instance as a forecast source: at start for forecast plugins (so the API
   * can tell "not fetched yet" from "no forecast plugin"), at the first publish for others.
   */
  registerForecastSource(): void {
    if (this.forecastRegistered || !this.services.forecast) return;
    // Without the grant it is no source: its publishes are refused (and reported) one by one.
    if (this.grants?.publish('forecast')) return;
    this.forecastRegistered = true;
    this.track(this.services.forecast.register(this.instanceId));
  }

  /**
   * The cleanup a plugin's setup returned: run by {@link cleanUp} before the registrations are
   * undone, or at once when the instance was stopped before its setup finished.
   */
  setCleanup(cleanup: Cleanup): void {
    this.cleanup = cleanup;
    if (this.disposed) void this.cleanUp(CLEANUP_AFTER_DISPOSE_MS);
  }

  /**
   * Runs the plugin's cleanup once and waits for it, at most `deadlineMs`, while its
   * registrations still work: an async cleanup may still write through `ctx.site` (a planner
   * puts the battery back to Normal). Never throws; a failure or an overrun is logged.
   */
  async cleanUp(deadlineMs: number): Promise<void> {
    const cleanup = this.cleanup;
    this.cleanup = undefined;
    if (!cleanup) return;
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<'overrun'>((resolve) => (timer = setTimeout(() => resolve('overrun'), deadlineMs)));
    try {
      const ended = await Promise.race([Promise.resolve(cleanup()).then(() => 'done' as const), overrun]);
      if (ended === 'overrun')
        this.log.warn(`the plugin's cleanup took over ${deadlineMs / 1000} s; stopping it anyway`);
    } catch (err) {
      this.log.warn("the plugin's cleanup failed", { err });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Undoes every registration, newest first. Later registrations are undone as they come. */
  dispose(): void {
    this.disposed = true;
    // A cleanup nobody awaited (a failed start) still runs, last as before.
    if (this.cleanup) this.disposers.unshift(() => void this.cleanUp(CLEANUP_AFTER_DISPOSE_MS));
    for (const dispose of this.disposers.splice(0).reverse()) this.runDisposer(dispose);
    this.services.writes.controllers.release(this.instanceId);
    this.topics.clear();
    this.progress.clear(this.instanceId);
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
}
