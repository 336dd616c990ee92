/*
 * What the core hands a plugin instance: its context and the APIs on it, the devices it
 * drives and what they declare. Re-exported from the SDK's main entry.
 */
import type { Got } from 'got';
import type { Disposer } from './basics.js';
import type { Device } from './devices.js';
import type { ForecastApi, PricesApi } from './feeds.js';
import type { IntegrationApi } from './integration.js';
import type { SiteApi } from './site.js';
import type { TopicsApi } from './topics.js';

// The context's parts, each in the file of its concern; importers keep importing them from here.
export * from './basics.js';
export * from './devices.js';
export * from './topics.js';
export * from './feeds.js';

/**
 * A scheduled job. Runs never overlap; a run that throws is retried with back-off (doubling
 * from the interval's tenth up to the interval, at most 15 minutes), and the error shows
 * in the plugin's status until a run succeeds.
 *
 * @example
 * const job: JobOptions = { name: 'refresh', run: async ({ signal }) => { await fetchPrices(signal); } };
 * ctx.scheduler.every({ ...job, intervalMs: 3_600_000 });
 */
export interface JobOptions {
  /** Short name for logs and status, e.g. `poll`. */
  name: string;
  /** The work. Honour `signal`: it aborts when the plugin stops. */
  run(args: { signal: AbortSignal }): Promise<void> | void;
}

/**
 * Runs a plugin's periodic work.
 *
 * @example
 * ctx.scheduler.every({ name: 'poll', intervalMs: 5000, run: async ({ signal }) => read(signal) });
 * ctx.scheduler.daily({ name: 'tomorrow', times: ['13:05', '14:00'], run: fetchPrices });
 */
export interface SchedulerApi {
  /** Every `intervalMs`, first run at once unless `immediate: false`. */
  every(args: JobOptions & { intervalMs: number; immediate?: boolean }): Disposer;
  /** At local wall-clock times (`HH:MM`) each day, in `timeZone` (default: the site's). */
  daily(args: JobOptions & { times: string[]; timeZone?: string }): Disposer;
}

/**
 * Reports the plugin's health outside a scheduled job (a long-lived socket's `error`
 * event): shown in the plugin's status like a failing job, until `ok()` or a job succeeds.
 *
 * @example
 * socket.on('error', (err) => ctx.status.error({ message: `connection lost: ${err.message}` }));
 * socket.on('connect', () => ctx.status.ok());
 */
export interface StatusApi {
  /** Shows an error in the plugin's status now. */
  error(args: { message: string }): void;
  /** Clears an error reported with {@link StatusApi.error}. */
  ok(): void;
}

/**
 * A small persistent key-value store for the plugin instance's own state (JSON values).
 *
 * @example
 * if (!(await ctx.store.get('backfilled'))) { await backfill(); await ctx.store.set('backfilled', true); }
 */
export interface PluginStore {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * A logger already bound to the plugin instance's id.
 *
 * @example
 * ctx.log.warn('device did not answer', { attempt: 3 });
 */
export interface PluginLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * What the core hands a plugin instance: built for it alone, bound to its id. Never the
 * container, the web app, the database or another plugin.
 *
 * @example
 * export default definePlugin({
 *   id: 'hello',
 *   configSchema: z.object({ intervalMs: z.number().default(5000) }),
 *   setup(ctx, config) {
 *     const [inv] = ctx.devices;
 *     ctx.topics.declare({ device: inv.id, metrics: [{ name: 'pv_power', displayName: 'PV power', unit: 'W' }] });
 *     ctx.scheduler.every({ name: 'poll', intervalMs: config.intervalMs, run: () => ctx.topics.publish({ device: inv.id, values: { pv_power: 42 } }) });
 *   },
 * });
 */
export interface PluginContext {
  /** The instance id from plugins.json, e.g. `sim`. */
  readonly instanceId: string;
  readonly log: PluginLogger;
  /** The devices plugins.json assigns to this instance, in order. */
  readonly devices: readonly Device[];
  /** The site's settings, and its topics, prices, forecasts and history to read and settings to write. */
  readonly site: SiteApi;
  readonly topics: TopicsApi;
  readonly scheduler: SchedulerApi;
  /** Reports errors and recovery outside jobs. */
  readonly status: StatusApi;
  readonly forecast: ForecastApi;
  readonly prices: PricesApi;
  readonly integration: IntegrationApi;
  /** A got instance with timeouts and retries set, for outbound HTTP. */
  readonly http: Got;
  readonly store: PluginStore;
  /** Aborts when the plugin stops. */
  readonly signal: AbortSignal;
  /** The current time in Unix ms; tests may control it. Use it instead of Date.now(). */
  now(): number;
}
