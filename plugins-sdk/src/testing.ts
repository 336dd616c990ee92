/**
 * A test host for plugin authors: runs one plugin in-process, without the HTTP server, and
 * lets the test drive it. It is the core's own plugin code (`@heliograph/core`'s plugin
 * harness: its PluginHost, ContextBuilder, TopicRegistry and WriteService), so a plugin test
 * sees what the server does: config checks (unknown keys refused), values of undeclared
 * metrics dropped with a warning, staleness, availability, identity rows, writes validated
 * and converted, the instance's state. Scheduled jobs run only when the test says so
 * ({@link TestHost.runJob}), and time is whatever the test sets, so tests need no sleeps.
 *
 * Needs `@heliograph/core` installed next to the SDK (`npm install -D @heliograph/core`).
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
import type { z } from 'zod';
import type {
  DeviceDeclaration,
  DeviceIdentity,
  ForecastRun,
  MetricValue,
  PluginContext,
  PluginDefinition,
  PluginManifest,
  PriceProviderDeclaration,
  PriceSlot,
  SiteInfo,
} from './index.js';

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
  /**
   * The instance config, as it would stand in plugins.json: checked as the server checks it
   * (the plugin's schema, unknown keys refused).
   */
  config?: unknown;
  /**
   * The instance's devices, as plugins.json lists them: `['inverter_1', 'battery_1']`, or
   * with per-device config (`deviceConfigSchema`): `[{ id: 'inverter_1', config: { unitId: 2 } }]`.
   */
  devices?: Array<string | { id: string; config?: Record<string, unknown> }>;
  site?: Partial<SiteInfo>;
  /** Start time in Unix ms; default `Date.now()`. Move it with {@link TestHost.setTime}. */
  now?: number;
  /** Initial contents of the plugin's key-value store. */
  store?: Record<string, unknown>;
  /** The instance's id (plugins.json `id`, `ctx.instanceId`); default the plugin's id. */
  instanceId?: string;
  /**
   * The plugin's package: its folder (a path or a `file:` URL). Its package.json is checked
   * as the server checks an installed plugin's (the `heliograph-plugin` keyword, the
   * manifest, the `sdk` range against this SDK, the manifest's id against the code's), and
   * its manifest is the one the test runs with. Default: the working directory, when its
   * package.json's `heliograph.id` is the plugin's (`npm test` in the plugin's folder).
   * Since SDK 1.3.
   *
   * @example
   * const host = await startTestHost({ plugin, package: new URL('../..', import.meta.url) });
   */
  package?: string | URL;
  /**
   * Only for a plugin without a package of its own (a test's inline plugin): the rest of its
   * `heliograph` field, its `kind` (default `integration`) and the `devices` it drives. With a
   * package ({@link TestHostOptions.package}) the package's manifest is used, and a `manifest`
   * that differs from it is refused.
   */
  manifest?: Partial<Pick<PluginManifest, 'kind' | 'name' | 'devices'>>;
  /**
   * Other plugins of the site, run by the same core before this one, for a plugin that
   * reads or writes what others provide through `ctx.site` (a planner that needs an
   * inverter's settings, prices and a forecast). Each runs as its own instance (default id:
   * its plugin's id); its jobs run on demand as `host.runJob('<instance id>:<job>')`. What
   * they publish is not in `host.prices`, `host.forecasts` or `host.values`, which belong to
   * the plugin under test; read the site with `host.value(topic)` or `host.ctx.site`.
   *
   * @example
   * import simulator from '@heliograph/plugin-simulator';
   * const host = await startTestHost({ plugin, companions: [{ plugin: simulator, devices: ['inverter_1'] }] });
   * await host.runJob('simulator:poll');
   */
  companions?: Array<{
    plugin: PluginDefinition<z.ZodType>;
    config?: unknown;
    devices?: Array<string | { id: string; config?: Record<string, unknown> }>;
    instanceId?: string;
    manifest?: Partial<Pick<PluginManifest, 'kind' | 'name' | 'devices'>>;
  }>;
  /**
   * Longest wait before `ctx.http` retries a failed request, in ms. Default: the server's
   * back-off (1 s, then 2 s); a test of a 5xx answer sets it to 1 so it does not sleep. The
   * number of retries (two) is the server's either way.
   */
  httpRetryDelayMs?: number;
  /**
   * How long setup, a job run ({@link TestHost.runJob}) or a write ({@link TestHost.write})
   * may take before the test host fails it, naming what it waited for; default 10 000 ms. A
   * plugin waiting for an answer that never comes fails its test instead of hanging the run.
   */
  timeoutMs?: number;
}

/** The default of {@link TestHostOptions.timeoutMs}. */
export const TEST_HOST_TIMEOUT_MS = 10_000;

/** `work`, or a rejection naming `what` once `ms` have passed without it settling. */
function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`test host: ${what} did not finish within ${ms} ms (TestHostOptions.timeoutMs)`)),
      ms,
    );
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
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
  schedules: Array<{ import: PriceSlot[]; export?: PriceSlot[]; standing?: PriceSlot[] }>;
}

/**
 * The instance as `GET /api/v1/plugins` shows it: its state, its last error (a failed job,
 * write or `ctx.status.error`) and each device's availability and identity.
 *
 * @example
 * assert.equal(host.status.state, 'running');
 * assert.deepEqual(host.status.device_status[0], {
 *   id: 'inverter_1', available: false, reason: 'no answer within 1500 ms', identity: { serial: 'X1' },
 * });
 */
export interface TestHostStatus {
  id: string;
  plugin: string;
  kind: string;
  enabled: boolean;
  /** The ids of the instance's devices. */
  devices: string[];
  /** Each device: whether it answers (and why not), and what it says it is. */
  device_status: Array<{ id: string; available: boolean; reason: string | null; identity: DeviceIdentity }>;
  /** `starting` until setup and the first run of each `every` job are over. */
  state: 'starting' | 'running' | 'failed' | 'stopped';
  last_error: string | null;
  /** When a job last succeeded, RFC 3339 UTC. */
  last_poll: string | null;
  isolation: 'worker' | 'process-local';
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
  /** The context the core built for the instance. */
  readonly ctx: PluginContext;
  /** Declarations by device id. */
  readonly declarations: Map<string, DeviceDeclaration>;
  /**
   * The values of the instance's devices' topics as clients read them (null while a device
   * is stale or unavailable), identity rows included; a copy made at each read.
   */
  readonly values: Map<string, MetricValue>;
  /** Past readings that reached history through `ctx.topics.record` (recorded topics only), by topic. */
  readonly recorded: Map<string, Array<[time: number, value: number]>>;
  /** Every forecast run published, oldest first. */
  readonly forecasts: ForecastRun[];
  readonly prices: RecordedPrices;
  readonly jobs: Map<string, ScheduledJob>;
  /** The plugin's store as last written. */
  readonly store: Map<string, unknown>;
  /** Log lines, `level: message`: the plugin's own and the core's about it (an undeclared metric). */
  readonly logs: string[];
  /** The instance's status, as the server's plugin host reports it. */
  readonly status: TestHostStatus;
  /** What each device of the instance says it is (`status.device_status[].identity`), by device id. */
  readonly identities: Map<string, DeviceIdentity>;
  /** Whether each device of the instance answers, and why not (from `status.device_status`), by device id. */
  readonly availability: Map<string, { available: boolean; reason: string | null }>;
  /** The current value of a topic, as clients read it; undefined for a topic not defined. */
  value(topic: string): MetricValue | undefined;
  /** Runs a scheduled job once and waits for it; the status hears how it went; throws what the job throws. */
  runJob(name: string): Promise<void>;
  /**
   * Writes a setting as a client would, through the server's write path: the text is
   * validated and converted for the handler (a label to its option's value, a number, a
   * switch payload to a boolean). Throws the refusal or failure as the API would answer it
   * ("the device refused: (NAK", "the device did not answer: ...", "write failed: ...").
   */
  write(topic: string, value: string | number): Promise<void>;
  /** Sets the clock; devices silent for longer than their stale timeout read null. */
  setTime(ms: number): void;
  advance(ms: number): void;
  /** Stops the plugin as the server does: aborts the signal and undoes every registration. */
  stop(): Promise<void>;
}

/** The core's plugin harness, as this module calls it. */
interface PluginHarness {
  startPluginHarness(options: TestHostOptions<z.ZodType>): Promise<TestHost>;
}

/**
 * Loads the core's plugin harness. The core depends on the SDK, so the SDK reaches the
 * core only at run time (an optional peer dependency): one copy of the rules, run by both.
 */
async function loadHarness(): Promise<PluginHarness> {
  const specifier = '@heliograph/core/plugin-harness';
  try {
    return (await import(specifier)) as PluginHarness;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw err;
    throw new Error(
      "the test host runs the Heliograph core's own plugin code: install it next to the SDK with `npm install -D @heliograph/core` " +
        `(or from a built Heliograph checkout: npm install -D ~/heliograph/core); ${(err as Error).message}`,
      { cause: err },
    );
  }
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
 * Starts `plugin` as the server starts an instance of it. Throws when the config or the
 * devices do not pass the server's checks ("invalid config for <id>: ..."), or when setup
 * fails (with the error the instance's status shows; the server would retry, a test stops).
 *
 * @example
 * const host = await startTestHost({ plugin, config: { baseUrl: fake.url }, devices: ['inverter_1'] });
 * await host.runJob('poll');
 * assert.equal(host.value('inverter_1/pv_power'), 1830);
 */
export async function startTestHost<S extends z.ZodType>(options: TestHostOptions<S>): Promise<TestHost> {
  const harness = await loadHarness();
  const ms = options.timeoutMs ?? TEST_HOST_TIMEOUT_MS;
  const host = await withDeadline(harness.startPluginHarness(options), ms, `the setup of ${options.plugin.id}`);
  const stop = host.stop.bind(host);
  const runJob = host.runJob.bind(host);
  const write = host.write.bind(host);
  running.add(host);
  return Object.assign(host, {
    stop: () => {
      running.delete(host);
      return stop();
    },
    runJob: (name: string) => withDeadline(runJob(name), ms, `job ${name}`),
    write: (topic: string, value: string | number) =>
      withDeadline(write(topic, value), ms, `the write of ${JSON.stringify(String(value))} to ${topic}`),
  });
}
export {
  assertPriceSlots,
  type ContractCase,
  type ContractHost,
  type ExpectedSlots,
  type FakeFailure,
  priceProviderContract,
  type PriceProviderContractOptions,
  priceProviderHostOptions,
  type PriceProviderHostOptions,
  resetFake,
} from './price-provider-contract.js';
export {
  assertDaylightSavingDays,
  assertMalformedAnswers,
  assertProviderDeclared,
  assertTomorrowFollows,
  type DaylightSavingDay,
  type ExpectedDeclaration,
  type PriceProviderHost,
  type TomorrowFollows,
} from './price-provider-checks.js';
