/**
 * A test host for plugin authors: runs one plugin in-process, without the server, and lets
 * the test drive it. Scheduled jobs run only when the test says so ({@link TestHost.runJob}),
 * and time is whatever the test sets, so tests need no sleeps.
 *
 * @example
 * import { startTestHost } from '@heliograph/plugins-sdk/testing';
 * import plugin from '../src/index.js';
 *
 * const host = await startTestHost({ plugin, config: { baseUrl: fake.url }, devices: ['inverter_1'] });
 * await host.runJob('poll');
 * assert.equal(host.value('inverter_1/pv_power'), 1830);
 * await host.stop();
 *
 * @packageDocumentation
 */
import got from 'got';
import type { z } from 'zod';
import { deviceFromId, unavailableIntegration } from './index.js';
import { assertJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
import type {
  Device,
  DeviceDeclaration,
  Disposer,
  ForecastRun,
  MetricValue,
  PluginContext,
  PluginDefinition,
  PriceProviderDeclaration,
  PriceSlot,
  DeviceIdentity,
  SettingDeclaration,
  SiteInfo,
} from './index.js';

/** The core's setting rules (core/src/writes/setting-values.ts), as the test host calls them. */
interface CoreSettingRules {
  writableOf(setting: SettingDeclaration, topic: string): unknown;
  parseSettingValue(
    setting: SettingDeclaration,
    writable: unknown,
    raw: string,
  ): { ok: true; write: { args: unknown; shown: MetricValue } } | { ok: false; message: string };
  callWrite(
    setting: SettingDeclaration,
    write: { args: unknown; shown: MetricValue },
    signal: AbortSignal,
  ): Promise<void>;
}

/**
 * Loads the core's setting rules. The core depends on the SDK, so the SDK reaches the core
 * only at run time (an optional peer dependency): one copy of the rules, run by both.
 */
async function coreSettingRules(): Promise<CoreSettingRules> {
  const specifier = '@heliograph/core/writes/setting-values';
  try {
    return (await import(specifier)) as CoreSettingRules;
  } catch (err) {
    throw new Error(
      `the test host validates writes with @heliograph/core's rules; install it next to the SDK (${(err as Error).message})`,
      { cause: err },
    );
  }
}

/**
 * Options of {@link startTestHost}.
 *
 * @example
 * const options: TestHostOptions<typeof configSchema> = {
 *   plugin, config: { baseUrl: fake.url }, site: { timeZone: 'Europe/Berlin' }, now: Date.parse('2026-11-20T13:00:00Z'),
 * };
 */
export interface TestHostOptions<S extends z.ZodType> {
  plugin: PluginDefinition<S>;
  /** The instance config, as it would stand in plugins.json (validated by the plugin's schema). */
  config?: unknown;
  /** Device ids assigned to the instance, e.g. `['inverter_1', 'battery_1']`. */
  devices?: string[];
  site?: Partial<SiteInfo>;
  /** Start time in Unix ms; default `Date.now()`. Move it with {@link TestHost.setTime}. */
  now?: number;
  /** Initial contents of the plugin's key-value store. */
  store?: Record<string, unknown>;
}

/**
 * A job the plugin scheduled, as {@link TestHost.jobs} holds it.
 *
 * @example
 * assert.equal(host.jobs.get('refresh')?.intervalMs, 3_600_000);
 * assert.deepEqual(host.jobs.get('day-ahead')?.times, ['13:05', '13:30', '14:15']);
 */
export interface ScheduledJob {
  name: string;
  kind: 'every' | 'daily';
  intervalMs?: number;
  times?: string[];
  run(args: { signal: AbortSignal }): Promise<void> | void;
}

/**
 * The provider a price plugin declared and every schedule it published, oldest first.
 *
 * @example
 * assert.equal(host.prices.provider?.scheduleType, 'import_export_pricing');
 * assert.equal(host.prices.schedules.at(-1)?.export?.length, 96);
 */
export interface RecordedPrices {
  provider?: PriceProviderDeclaration;
  schedules: Array<{ import: PriceSlot[]; export?: PriceSlot[] }>;
}

/**
 * A running plugin under test: what it declared, published and logged, and the controls
 * of its jobs, settings and clock.
 *
 * @example
 * host.setTime(Date.parse('2026-11-20T13:05:00+01:00'));
 * await host.runJob('day-ahead');
 * assert.ok(host.logs.some((line) => line.startsWith('info: published')));
 */
export interface TestHost {
  readonly ctx: PluginContext;
  /** Declarations by device id. */
  readonly declarations: Map<string, DeviceDeclaration>;
  /** Current values by topic (`inverter_1/pv_power`). */
  readonly values: Map<string, MetricValue>;
  /** Readings recorded into history through `ctx.topics.record`, by topic. */
  readonly recorded: Map<string, Array<[time: number, value: number]>>;
  /** Every forecast run published, oldest first. */
  readonly forecasts: ForecastRun[];
  readonly prices: RecordedPrices;
  readonly jobs: Map<string, ScheduledJob>;
  readonly store: Map<string, unknown>;
  /** Log lines, `level: message`. */
  readonly logs: string[];
  /** What each device said it is (declare's `identity` merged with `identify` calls). */
  readonly identities: Map<string, DeviceIdentity>;
  /** Whether each device answers, as markUnavailable / markAvailable / publish left it. */
  readonly availability: Map<string, { available: boolean; reason: string | null }>;
  /** The error reported with `ctx.status.error`, null after `ok()`. */
  readonly status: { error: string | null };
  /** The current value of a topic. */
  value(topic: string): MetricValue | undefined;
  /** Runs a scheduled job once and waits for it; throws what the job throws. */
  runJob(name: string): Promise<void>;
  /**
   * Writes a setting as a client would: the core's own rules validate the text and convert
   * it for the handler (a label to its option's value, a number, a switch payload to a
   * boolean). Throws the refusal or what the handler throws.
   */
  write(topic: string, value: string | number): Promise<void>;
  setTime(ms: number): void;
  advance(ms: number): void;
  /** Stops the plugin: aborts the signal and runs every disposer. */
  stop(): Promise<void>;
}

/** Hosts started and not stopped yet, for {@link stopTestHosts}. */
const running = new Set<TestHost>();

/**
 * Stops every host {@link startTestHost} started that is not stopped yet, so a test file
 * whose tests each start their own host needs one `after` hook rather than a list of hosts.
 *
 * @example
 * const start = (now: number) => startTestHost({ plugin, config: { baseUrl: fake.url }, now });
 * after(async () => {
 *   await stopTestHosts();
 *   await fake.close();
 * });
 */
export async function stopTestHosts(): Promise<void> {
  for (const host of [...running]) await host.stop();
}

/**
 * Starts `plugin` with a context that records what it does. Throws when the config does not
 * pass the plugin's schema, as the core would refuse it.
 *
 * @example
 * const host = await startTestHost({ plugin, config: { baseUrl: fake.url }, devices: ['inverter_1'] });
 * await host.runJob('poll');
 * assert.equal(host.value('inverter_1/pv_power'), 1830);
 */
export async function startTestHost<S extends z.ZodType>(options: TestHostOptions<S>): Promise<TestHost> {
  const parsed = options.plugin.configSchema.safeParse(options.config ?? {});
  if (!parsed.success) throw new Error(`invalid config for ${options.plugin.id}: ${parsed.error.message}`);

  let now = options.now ?? Date.now();
  const abort = new AbortController();
  const disposers: Disposer[] = [];
  const declarations = new Map<string, DeviceDeclaration>();
  const settings = new Map<string, SettingDeclaration>();
  const values = new Map<string, MetricValue>();
  const recorded = new Map<string, Array<[number, number]>>();
  const forecasts: TestHost['forecasts'] = [];
  const prices: RecordedPrices = { schedules: [] };
  const jobs = new Map<string, ScheduledJob>();
  const store = new Map<string, unknown>(Object.entries(options.store ?? {}));
  const logs: string[] = [];
  const identities = new Map<string, DeviceIdentity>();
  const availability = new Map<string, { available: boolean; reason: string | null }>();
  const status: { error: string | null } = { error: null };
  const register = (dispose: Disposer): Disposer => {
    disposers.push(dispose);
    return dispose;
  };

  const devices: Device[] = (options.devices ?? []).map(deviceFromId);
  const logAt = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    logs.push(`${level}: ${message}${fields ? ' ' + JSON.stringify(fields) : ''}`);
  };

  const ctx: PluginContext = {
    instanceId: options.plugin.id,
    log: { debug: logAt('debug'), info: logAt('info'), warn: logAt('warn'), error: logAt('error') },
    devices,
    site: { timeZone: 'UTC', latitude: 52.52, longitude: 13.405, temperatureUnit: 'C', ...options.site },
    topics: {
      declare(declaration) {
        if (!devices.some((d) => d.id === declaration.device))
          throw new Error(`device ${declaration.device} is not assigned to this instance`);
        declarations.set(declaration.device, declaration);
        if (declaration.identity) identities.set(declaration.device, { ...declaration.identity });
        for (const s of declaration.settings ?? []) {
          settings.set(`${declaration.device}/${s.name}`, s);
          values.set(`${declaration.device}/${s.name}`, s.initial ?? null);
        }
        return register(() => declarations.delete(declaration.device));
      },
      publish({ device, values: published }) {
        const declaration = declarations.get(device);
        if (!declaration) throw new Error(`publish before declare for device ${device}`);
        if (Object.values(published).some((v) => v !== null))
          availability.set(device, { available: true, reason: null });
        for (const [name, value] of Object.entries(published)) {
          const known =
            declaration.metrics.some((m) => m.name === name) || declaration.settings?.some((s) => s.name === name);
          if (!known) throw new Error(`publish of undeclared metric ${device}/${name}`);
          values.set(`${device}/${name}`, value);
        }
      },
      identify({ device, identity }) {
        if (!declarations.has(device)) throw new Error(`identify before declare for device ${device}`);
        identities.set(device, { ...identities.get(device), ...identity });
      },
      markUnavailable({ device, reason }) {
        if (!declarations.has(device)) throw new Error(`markUnavailable before declare for device ${device}`);
        availability.set(device, { available: false, reason });
      },
      markAvailable({ device }) {
        if (!declarations.has(device)) throw new Error(`markAvailable before declare for device ${device}`);
        availability.set(device, { available: true, reason: null });
      },
      updateSetting({ device, name, ...fields }) {
        const topic = `${device}/${name}`;
        const setting = settings.get(topic);
        if (!setting) throw new Error(`updateSetting: ${device} declares no setting "${name}"`);
        settings.set(topic, { ...setting, ...fields } as SettingDeclaration);
      },
      record({ device, readings }) {
        return settled(() => {
          for (const reading of readings) {
            for (const [name, value] of Object.entries(reading.values)) {
              const topic = `${device}/${name}`;
              let list = recorded.get(topic);
              if (!list) recorded.set(topic, (list = []));
              list.push([reading.time, value]);
            }
          }
        });
      },
    },
    scheduler: {
      every(job) {
        jobs.set(job.name, { name: job.name, kind: 'every', intervalMs: job.intervalMs, run: (ctx) => job.run(ctx) });
        return register(() => jobs.delete(job.name));
      },
      daily(job) {
        jobs.set(job.name, { name: job.name, kind: 'daily', times: job.times, run: (ctx) => job.run(ctx) });
        return register(() => jobs.delete(job.name));
      },
    },
    status: {
      error({ message }) {
        status.error = message;
      },
      ok() {
        status.error = null;
      },
    },
    forecast: {
      publish(run) {
        forecasts.push(run);
      },
    },
    // The same refusals as the core's PriceBook, so a plugin test fails where the core would.
    prices: {
      declare(args) {
        if (args.scheduleType !== 'none' && !args.currency)
          throw new Error(`prices.declare: currency is required when scheduleType is "${args.scheduleType}"`);
        prices.provider = args;
        return register(() => (prices.provider = undefined));
      },
      publish(schedule) {
        if (!prices.provider)
          throw new Error('prices.publish before prices.declare: declare the provider in setup first');
        if (schedule.export?.length && prices.provider.scheduleType !== 'import_export_pricing') {
          throw new Error(
            `prices.publish: export prices need scheduleType "import_export_pricing"; the plugin declared "${prices.provider.scheduleType}"`,
          );
        }
        prices.schedules.push(schedule);
      },
    },
    integration: unavailableIntegration('the SDK test host has none; test integrations against a real server'),
    // `.json()` refuses deep nesting as the server's ctx.http does (its size cap is the server's alone).
    http: got.extend({
      timeout: { request: 10_000 },
      retry: { limit: 0 },
      parseJson: (text) => {
        assertJsonDepth(text, MAX_JSON_DEPTH, 'the answer');
        return JSON.parse(text) as unknown;
      },
    }),
    store: {
      get<T>(key: string) {
        return settled(() => store.get(key) as T | undefined);
      },
      set(key, value) {
        return settled(() => {
          store.set(key, JSON.parse(JSON.stringify(value)) as unknown);
        });
      },
      delete(key) {
        return settled(() => {
          store.delete(key);
        });
      },
    },
    signal: abort.signal,
    now: () => now,
  };

  const cleanup = await options.plugin.setup(ctx, parsed.data);
  // As in the server: the plugin's own cleanup runs last, after its registrations are undone.
  if (typeof cleanup === 'function') disposers.unshift(cleanup);

  const host: TestHost = {
    ctx,
    declarations,
    values,
    recorded,
    forecasts,
    prices,
    jobs,
    store,
    logs,
    identities,
    availability,
    status,
    value: (topic) => values.get(topic),
    async runJob(name) {
      const job = jobs.get(name);
      if (!job) throw new Error(`no job named ${name}; scheduled: ${[...jobs.keys()].join(', ') || 'none'}`);
      await job.run({ signal: abort.signal });
    },
    async write(topic, value) {
      const setting = settings.get(topic);
      if (!setting) throw new Error(`${topic} is not a writable setting`);
      // The core's own rules validate and convert the value, as the server would.
      const rules = await coreSettingRules();
      const writable = rules.writableOf(setting, topic);
      const parsed = rules.parseSettingValue(setting, writable, String(value));
      if (!parsed.ok) throw new Error(parsed.message);
      await rules.callWrite(setting, parsed.write, abort.signal);
      values.set(topic, parsed.write.shown);
    },
    setTime: (ms) => void (now = ms),
    advance: (ms) => void (now += ms),
    stop() {
      return settled(() => {
        running.delete(host);
        abort.abort();
        for (const dispose of disposers.splice(0).reverse()) dispose();
      });
    },
  };
  running.add(host);
  return host;
}

/**
 * Runs `work` at once and answers as the async API it stands in for would: with a promise,
 * a throw becoming its rejection. (An async function would do the same, with nothing to await.)
 */
function settled<T>(work: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(work()));
}
