/**
 * The plugin harness: one plugin instance run by the core's own PluginHost, ContextBuilder,
 * TopicRegistry and WriteService, with a manual clock, jobs run on demand and the plugin's
 * store in an in-memory SQLite database. `@heliograph/plugins-sdk/testing` loads it, so a
 * plugin's tests see exactly what the server does: the same config checks, topic rules,
 * staleness, availability, identity rows, write validation and plugin state.
 *
 * @example
 * const { startPluginHarness } = await import('@heliograph/core/plugin-harness');
 * const host = await startPluginHarness({ plugin, config: { watts: 1234 }, devices: ['inverter_1'] });
 * await host.runJob('poll');
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Got } from 'got';
import type { MetricValue, PluginContext, PluginDefinition } from '@heliograph/plugins-sdk';
import type { TestHost, TestHostOptions } from '@heliograph/plugins-sdk/testing';
import type { z } from 'zod';
import { ManualClock } from '../../clock.js';
import { migrate, openDatabase } from '../../db.js';
import { ForecastStore } from '../../forecast/store.js';
import { PriceBook } from '../../grid/book.js';
import { errorMessage } from '../../log.js';
import { TopicRegistry } from '../../topics/registry.js';
import { AuditLog, auditMigrations } from '../../writes/audit.js';
import { DbWriter } from '../../db-writer.js';
import { WriteRateLimiter } from '../../writes/rate-limit.js';
import { WRITE_TIMEOUT_MS, WriteService } from '../../writes/service.js';
import { isConfigError } from '../instances/config-checks.js';
import { ContextBuilder, type ContextServices, type PluginInstanceScope } from '../context/context.js';
import { idMismatch, readPluginPackage, type DiscoveredPlugin } from '../discovery/discovery.js';
import { PluginHost, type InstanceStatus } from '../host/host.js';
import { requestedGrants, type PluginGrants } from '../instances/grants.js';
import type { PluginInstanceConfig } from '../instances/instances.js';
import { createHttpClient } from '../context/http-client.js';
import { pluginStore, pluginStoreMigrations } from '../context/plugin-store.js';
import { OnDemandJobs } from './on-demand-jobs.js';
import { Recording } from './recording.js';

/** A context builder that hands each context it builds to `observe` first. */
class ObservedContextBuilder extends ContextBuilder {
  constructor(
    instance: PluginInstanceScope,
    services: ContextServices,
    http: (signal: AbortSignal) => Got,
    private readonly observe: (ctx: PluginContext) => PluginContext,
  ) {
    super(instance, services, http);
  }

  override build(): PluginContext {
    return this.observe(super.build());
  }
}

/**
 * Starts `options.plugin` as the server would start an instance of it (see the SDK's
 * `startTestHost`, which documents every option). Rejects when the config does not pass the
 * server's checks, or when setup fails, with the message the instance's status would show.
 */
export async function startPluginHarness<S extends z.ZodType>(options: TestHostOptions<S>): Promise<TestHost> {
  const plugin = options.plugin as unknown as PluginDefinition;
  const instanceId = options.instanceId ?? plugin.id;
  const core = await openCore(options, instanceId);
  const { recording, services, audit, db } = core;
  const companions = (options.companions ?? []).map((c) => companionOf(c, core.base));

  const discovered = new Map<string, DiscoveredPlugin>();
  for (const p of companions) discovered.set(p.plugin.id, discoveredOf(p.plugin, p.options.manifest));
  const own = packageOf(plugin, options);
  discovered.set(plugin.id, discoveredOf(plugin, options.manifest, own));
  const entry = instanceEntry(instanceId, plugin, options);
  let ctx: PluginContext | undefined;
  const host = new PluginHost(
    services,
    discovered,
    [...companions.map((c) => c.entry), entry],
    'plugins.json',
    (started) => {
      const companion = companions.find((c) => c.entry.id === started.id);
      // The test host plays the owner: a plugin read from its package has every grant its
      // manifest asks for, so a call beyond them fails as on a server, and loopback for the
      // local fakes of its services; one handed in without a package, and the companions,
      // are not checked.
      const instance = { ...started, grants: companion || !own ? undefined : ownerApproved(own.manifest) };
      if (companion)
        return new ContextBuilder(instance, companion.services, (signal) =>
          createHttpClient(signal, options.httpRetryDelayMs),
        );
      return new ObservedContextBuilder(
        instance,
        services,
        (signal) => createHttpClient(signal, options.httpRetryDelayMs),
        (c) => (ctx = recording.observe(c)),
      );
    },
  );
  const statusOf = (id: string) => host.status().find((s) => s.id === id)!;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await host.stopAll();
      recording.declarations.clear();
      await audit.flush();
      await db.close();
    })());

  try {
    await host.load();
  } catch (err) {
    await stop();
    if (isConfigError(err)) throw new Error(`invalid config for ${plugin.id}: ${errorMessage(err)}`, { cause: err });
    throw err;
  }
  await host.startAll();
  const status = statusOf(instanceId);
  // A failed setup aborts the instance's signal; the server would retry it, a test stops here.
  if (!ctx || ctx.signal.aborted) {
    await stop();
    throw new Error(status?.last_error ?? `${plugin.id} did not start`);
  }
  // A companion that failed would leave the site the test expects half built.
  const failed = companions.map((c) => statusOf(c.entry.id)).find((s) => s.state === 'failed');
  if (failed) {
    await stop();
    throw new Error(`companion ${failed.id} (${failed.plugin}) did not start: ${failed.last_error}`);
  }
  const deviceIds = new Set(entry.devices.map((d) => (typeof d === 'string' ? d : d.id)));
  return testHostOf({ ctx, core, deviceIds, status: () => statusOf(instanceId), companions, stop });
}

/** The core services a harness runs its plugins on: in memory, on a manual clock. */
async function openCore(options: TestHostOptions<z.ZodType>, instanceId: string) {
  const clock = new ManualClock(options.now ?? Date.now());
  const db = await openDatabase(':memory:');
  await migrate(db, [...auditMigrations, ...pluginStoreMigrations]);
  const recording = new Recording(options.store ?? {});
  const initial = pluginStore(db, instanceId);
  for (const [key, value] of recording.store) await initial.set(key, value);

  const registry = new TopicRegistry(clock);
  const audit = new AuditLog(db, clock, new DbWriter(() => clock.now()));
  // A plugin under test has no clients to hold back: no rate limit on its writes.
  const writes = new WriteService(registry, audit, clock, WRITE_TIMEOUT_MS, new WriteRateLimiter(clock, Infinity));
  const site = { timeZone: 'UTC', latitude: 52.52, longitude: 13.405, temperatureUnit: 'C' as const, ...options.site };
  const forecastStore = new ForecastStore({ registry, clock, temperatureUnit: site.temperatureUnit });
  const book = new PriceBook({ clock, timeZone: site.timeZone, multiplier: 1, offset: 0 });
  const jobs = new OnDemandJobs();
  const base: ContextServices = {
    clock,
    db,
    registry,
    writes,
    site,
    history: recording.history,
    forecast: forecastStore,
    prices: book,
    reads: { prices: book, forecast: forecastStore, history: recording.historyReader(registry) },
    logger: () => recording.logger,
    httpRetryDelayMs: options.httpRetryDelayMs,
  };
  // The plugin under test: what it publishes is recorded, its jobs run when the test says.
  const services: ContextServices = {
    ...base,
    forecast: recording.forecastSink(forecastStore),
    prices: recording.priceSink(book),
    jobs: (signal, reporter) => jobs.bind(signal, reporter),
  };
  return { clock, db, recording, registry, audit, writes, jobs, base, services };
}

/** What the test sees of the started plugin (see the SDK's TestHost). */
function testHostOf(started: {
  ctx: PluginContext;
  core: Awaited<ReturnType<typeof openCore>>;
  deviceIds: Set<string>;
  status: () => InstanceStatus;
  companions: ReadonlyArray<ReturnType<typeof companionOf>>;
  stop: () => Promise<void>;
}): TestHost {
  const { core, deviceIds, status, companions } = started;
  const { recording, registry, clock, jobs, writes } = core;
  return {
    ctx: started.ctx,
    declarations: recording.declarations,
    get values() {
      const values = new Map<string, MetricValue>();
      for (const state of registry.list())
        if (deviceIds.has(state.meta.deviceId)) values.set(state.meta.topic, registry.visibleValue(state));
      return values;
    },
    recorded: recording.recorded,
    forecasts: recording.forecasts,
    prices: recording.prices,
    jobs: jobs.jobs,
    store: recording.store,
    logs: recording.logs,
    get status() {
      return status();
    },
    get identities() {
      return new Map(status().device_status.map((d) => [d.id, d.identity]));
    },
    get availability() {
      return new Map(status().device_status.map((d) => [d.id, { available: d.available, reason: d.reason }]));
    },
    value(topic) {
      const state = registry.get(topic);
      return state && registry.visibleValue(state);
    },
    runJob: (name) => runJob(name, jobs, companions),
    async write(topic, value) {
      const outcome = await writes.write({ topic, value: String(value), who: 'test', via: 'rest' });
      if (!outcome.ok) throw new Error(outcome.message);
    },
    setTime(ms) {
      clock.set(ms);
      registry.checkStale();
    },
    advance(ms) {
      clock.advance(ms);
      registry.checkStale();
    },
    stop: started.stop,
  };
}

type Companion = NonNullable<TestHostOptions<z.ZodType>['companions']>[number];

/** A companion instance: its plugins.json entry, and services whose jobs run on demand as `<id>:<job>`. */
function companionOf(companion: Companion, base: ContextServices) {
  const plugin = companion.plugin;
  const entry = instanceEntry(companion.instanceId ?? plugin.id, plugin, companion);
  const jobs = new OnDemandJobs();
  const services: ContextServices = { ...base, jobs: (signal, reporter) => jobs.bind(signal, reporter) };
  return { plugin, options: companion, entry, jobs, services };
}

/** Runs the plugin's job `name`, or a companion's as `<instance id>:<job>`. */
function runJob(name: string, jobs: OnDemandJobs, companions: ReadonlyArray<ReturnType<typeof companionOf>>) {
  const colon = name.indexOf(':');
  const companion = colon > 0 ? companions.find((c) => c.entry.id === name.slice(0, colon)) : undefined;
  return companion ? companion.jobs.run(name.slice(colon + 1)) : jobs.run(name);
}

/**
 * The plugin's own package, read and checked as discovery reads an installed one: the one
 * named by `package`, else the working directory's when it is this plugin's. A mistake the
 * server would refuse the plugin for fails the test host's start with the server's words.
 */
function packageOf(
  plugin: PluginDefinition,
  options: Pick<TestHostOptions<z.ZodType>, 'package' | 'manifest'>,
): DiscoveredPlugin | undefined {
  const given = options.package;
  const dir = given === undefined ? process.cwd() : given instanceof URL ? fileURLToPath(given) : resolve(given);
  if (given === undefined && ownManifestId(dir) !== plugin.id) return undefined;
  const read = readPluginPackage(dir, { requireKeyword: true, bundled: false });
  if ('notPlugin' in read)
    throw new Error(
      `test host: ${join(dir, 'package.json')} ${existsSync(join(dir, 'package.json')) ? 'lacks "keywords": ["heliograph-plugin"], without which the server does not find the installed package' : 'does not exist'}`,
    );
  if ('problem' in read) throw new Error(`test host: ${read.problem}`);
  const mismatch = idMismatch(read.plugin, plugin.id);
  if (mismatch) throw new Error(`test host: ${mismatch}`);
  const manifest = read.plugin.manifest;
  for (const key of ['kind', 'name', 'devices'] as const) {
    const hand = options.manifest?.[key];
    if (hand !== undefined && JSON.stringify(hand) !== JSON.stringify(manifest[key]))
      throw new Error(
        `test host: the manifest option's ${key} (${JSON.stringify(hand)}) is not package.json's (${JSON.stringify(manifest[key])}): remove the manifest option; the test host reads package.json`,
      );
  }
  return read.plugin;
}

/** The `heliograph.id` of the package.json in `dir`, if any. */
function ownManifestId(dir: string): unknown {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { heliograph?: { id?: unknown } };
    return pkg.heliograph?.id;
  } catch {
    return undefined;
  }
}

/** What the test host approves of a packaged plugin: all it asks, and loopback hosts for the fakes of its services. */
function ownerApproved(manifest: DiscoveredPlugin['manifest']): PluginGrants {
  const grants = requestedGrants(manifest);
  return { ...grants, hosts: [...(grants.hosts ?? []), ...LOOPBACK] };
}

const LOOPBACK = ['127.0.0.1', '::1', 'localhost'];

function discoveredOf(
  plugin: PluginDefinition,
  manifest: TestHostOptions<z.ZodType>['manifest'],
  own?: DiscoveredPlugin,
): DiscoveredPlugin {
  return {
    manifest: own?.manifest ?? { ...manifest, id: plugin.id, kind: manifest?.kind ?? 'integration', sdk: '^1' },
    packageName: plugin.id,
    // Only containment reads it, to pin escaped failures on a plugin by stack path; the
    // test runner's own handlers take those, as no server process handlers are installed.
    dir: process.cwd(),
    entry: `${plugin.id} (handed to the test host)`,
    bundled: true,
    definition: plugin,
  };
}

function instanceEntry(
  id: string,
  plugin: PluginDefinition,
  options: Pick<TestHostOptions<z.ZodType>, 'devices' | 'config'>,
): PluginInstanceConfig {
  return {
    id,
    plugin: plugin.id,
    enabled: true,
    devices: options.devices ?? [],
    config: (options.config ?? {}) as Record<string, unknown>,
    isolation: 'process-local',
  };
}
