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
  /**
   * Longest a run may take, in ms. A run still going then is reported by the job's name
   * (`job poll did not finish within 60 s (JOB_TIMEOUT)`) and the plugin is restarted (its
   * process, for one that runs in a process of its own). Default: twice the interval of an
   * `every` job, within 1 to 30 minutes; 30 minutes for a `daily` one. Since SDK 1.3.
   *
   * @example
   * ctx.scheduler.every({ name: 'backfill', intervalMs: 60_000, timeoutMs: 10 * 60_000, run: backfill });
   */
  timeoutMs?: number;
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
  /**
   * Reports how far a long task has got (a history backfill, a firmware read-out): shown as
   * `progress` in the plugin's status (`GET /api/v1/plugins`, with an estimated end) and on
   * the page's dashboard while `done < total`, and logged at most every 5 s and at the end.
   * Call it as often as is convenient; the last report stays in the status until the
   * instance stops. Optional: a core older than this method has none (call it as
   * `ctx.status.progress?.(...)`).
   *
   * @example
   * ctx.status.progress?.({ what: "Recording the demo's last 7 days", done: 3, total: 7, unit: 'days' });
   */
  progress?(args: ProgressReport): void;
}

/**
 * How far a long task has got, for {@link StatusApi.progress}.
 *
 * @example
 * const report: ProgressReport = { what: 'Reading the logger', done: 120, total: 400, unit: 'records' };
 */
export interface ProgressReport {
  /** What is being done, in words a person reads on the page: `Recording the demo's last 7 days`. */
  what: string;
  /** How much of `total` is done (0 to total; fractions allowed). */
  done: number;
  /** How much there is to do in all, in the same unit (more than 0). */
  total: number;
  /** The unit of `done` and `total`, plural (`days`, `records`); default none. */
  unit?: string;
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
