/*
 * Starting, stopping and containing one plugin instance: its setup, the reports of its jobs
 * and writes, and what each kind of failure does to it (retried with back-off, failed once,
 * switched off).
 */
import type { Clock } from '../../clock.js';
import { createLogger, errorMessage } from '../../log.js';
import type { ContextBuilder, PluginInstanceScope } from '../context/context.js';
import { isConfigError } from '../instances/config-checks.js';
import { approvedGrants } from '../instances/grants.js';
import { runSetup } from '../isolation/isolation.js';
import { ProcessCrashError } from '../isolation/worker/child.js';
import { ErrorLog } from './error-log.js';
import { FirstRuns } from './first-runs.js';
import { statusOf, type Instance, type InstanceState, type InstanceStatus } from './instance.js';

const log = createLogger('plugins');

const MAX_RESTART_DELAY_MS = 5 * 60_000;
/**
 * How long a stop waits for the plugin's own cleanup (a planner putting the battery back to
 * Normal through its driver, a driver ending a forced command) before it goes on without it.
 */
export const CLEANUP_DEADLINE_MS = 8_000;

export interface LifecycleOptions {
  clock: Clock;
  /** Longest wait before `ctx.http` retries (the plugin harness shortens it). */
  httpRetryDelayMs?: number;
  /** Builds an instance's context for one start. */
  contexts: (instance: PluginInstanceScope) => ContextBuilder;
  /** An instance's status changed. */
  changed: (status: InstanceStatus) => void;
}

/** Runs instances: the host decides which, this decides how. */
export class Lifecycle {
  private readonly errors = new ErrorLog(log);
  /** Set when the host stops for good: a start asked for after that (a restart, a retry) does nothing. */
  private closed = false;

  constructor(private readonly options: LifecycleOptions) {}

  async start(instance: Instance): Promise<void> {
    if (instance.undoing) await instance.undoing;
    // Another start of this instance still runs (two config changes at once): it is stopped
    // first, or its jobs would run on beside this one's, unseen, after every later stop.
    while (instance.abort && !instance.abort.signal.aborted) await this.stop(instance);
    // A restart that began before the host stopped (an approval, a retry) would leave a
    // running plugin behind the stopped server, keeping its process alive.
    if (this.closed) return;
    const { config, definition, plugin } = instance;
    if (!definition || !plugin) return;
    const firstRuns = new FirstRuns();
    const progress = { setupDone: false };
    // This start's own controller: a stop or a newer start replaces instance.abort meanwhile.
    const abort = (instance.abort = new AbortController());
    const reporter = this.reporter(instance, abort, firstRuns, progress);
    const devices = instance.devices ?? [];
    const builder = this.options.contexts({
      id: config.id,
      plugin: config.plugin,
      devices,
      abort,
      reporter,
      // The publish rate bounds code the project did not review; a bundled bridge relaying a
      // busy MQTT network may publish more, unless its entry says otherwise.
      quotas: plugin.bundled === false ? config.quotas : { publishesPerSecond: Infinity, ...config.quotas },
      grants: approvedGrants(plugin, config),
    });
    instance.builder = builder;
    this.setState(instance, 'starting');
    try {
      if (plugin.manifest.kind === 'forecast') builder.registerForecastSource();
      const cleanup = await runSetup({
        config,
        plugin,
        definition,
        parsedConfig: instance.parsedConfig,
        ctx: firstRuns.track(builder.build()),
        signal: abort.signal,
        retryDelayMs: this.options.httpRetryDelayMs,
        crashed: (message) => this.crashed(instance, abort, message),
        timedOut: (message) => this.timedOut(instance, abort, message),
        dataDir: builder.dataDir,
        refused: (refusal) => builder.sandboxRefused(refusal),
        hosts: builder.hosts,
        hostRefused: (host, message) => builder.hostRefused(host, message),
      });
      if (typeof cleanup === 'function') builder.setCleanup(cleanup);
      if (abort.signal.aborted || abort !== instance.abort) return;
      instance.failures = 0;
      progress.setupDone = true;
      // A job may already have failed during setup; keep that visible. Otherwise the
      // instance stays "starting" until its start-up jobs have run once (FirstRuns).
      if (instance.state === 'starting' && firstRuns.done) this.setState(instance, 'running');
    } catch (err) {
      // Stopped while setup ran (shutdown, a new config): stop() has undone it, and a retry
      // would bring back a plugin nobody runs any more.
      if (abort.signal.aborted || abort !== instance.abort) return;
      if (isConfigError(err)) return this.failOnce(instance, abort, errorMessage(err));
      if (err instanceof ProcessCrashError) return this.disable(instance, abort, errorMessage(err));
      abort.abort();
      builder.dispose();
      instance.failures += 1;
      this.restartLater(instance, `setup failed: ${errorMessage(err)}`);
    }
  }

  /** No start from now on: the host is stopping for good (see {@link start}). */
  close(): void {
    this.closed = true;
  }

  /** Stops an instance and starts it afresh (a new config, the site moved), clearing its error. */
  async restart(instance: Instance): Promise<void> {
    await this.stop(instance);
    instance.failures = 0;
    instance.lastError = null;
    await this.start(instance);
  }

  /**
   * Stops an instance: first its own cleanup, awaited (bounded by {@link CLEANUP_DEADLINE_MS})
   * while its registrations and every other plugin still work, then its jobs and
   * registrations. From the first step on, its reports no longer change its status.
   */
  async stop(instance: Instance): Promise<void> {
    clearTimeout(instance.retryTimer);
    const { abort, builder } = instance;
    instance.abort = undefined;
    instance.builder = undefined;
    await builder?.cleanUp(CLEANUP_DEADLINE_MS);
    abort?.abort();
    builder?.dispose();
    // A start that began while this stop waited owns the instance now.
    if (!instance.abort) this.setState(instance, 'stopped');
  }

  fail(instance: Instance, message: string): void {
    instance.lastError = message;
    this.errors.report(`${instance.config.id} (${instance.config.plugin})`, message);
    this.setState(instance, 'failed');
  }

  /** What the instance's jobs, writes and `ctx.status` report during one start. */
  private reporter(
    instance: Instance,
    abort: AbortController,
    firstRuns: FirstRuns,
    progress: { setupDone: boolean },
  ): PluginInstanceScope['reporter'] {
    const { config } = instance;
    // A stop (or a newer start) has taken the instance from this run: its reports are old news.
    const live = () => abort === instance.abort && !abort.signal.aborted;
    const cleared = () => {
      instance.lastError = null;
      this.errors.cleared(`${config.id} (${config.plugin})`);
    };
    return {
      succeeded: (job) => {
        if (!live()) return;
        instance.lastPoll = this.options.clock.now();
        instance.crashes = 0;
        firstRuns.ran(job);
        if (instance.state === 'starting' && progress.setupDone && firstRuns.done) this.setState(instance, 'running');
        else if (instance.state === 'failed' || instance.lastError) {
          cleared();
          this.setState(instance, 'running');
        } else this.options.changed(statusOf(instance));
      },
      // A job that did not finish in time: its state cannot be trusted, so the instance (its
      // process, for one that runs in a process) is restarted like after a crash.
      hung: (job, message) => {
        if (!live()) return;
        firstRuns.ran(job);
        this.crashed(instance, abort, message);
      },
      failed: (job, err) => {
        if (!live()) return;
        firstRuns.ran(job);
        if (isConfigError(err)) this.failOnce(instance, abort, `job ${job}: ${errorMessage(err)}`);
        else this.fail(instance, `job ${job} failed: ${errorMessage(err)}`);
      },
      // A write a crash or a stop cut short fails after the run ended: the crash is the news.
      writeFailed: (message) => {
        if (live()) this.fail(instance, message);
      },
      statusError: (message) => {
        if (live()) this.fail(instance, message);
      },
      statusOk: () => {
        if (!live()) return;
        if (instance.state !== 'failed' && !instance.lastError) return;
        cleared();
        this.setState(instance, progress.setupDone ? 'running' : 'starting');
      },
    };
  }

  /** Marks the instance failed and starts it again after a back-off that grows with each failure. */
  private restartLater(instance: Instance, message: string): void {
    const delay = Math.min(1000 * 2 ** (instance.failures + instance.crashes - 1), MAX_RESTART_DELAY_MS);
    this.fail(instance, `${message}; retrying in ${Math.round(delay / 1000)} s`);
    clearTimeout(instance.retryTimer);
    instance.retryTimer = setTimeout(() => void this.start(instance), delay);
  }

  /**
   * A failure escaped the plugin's own code after setup (an exception in its timer, a
   * rejection nobody handled): its state cannot be trusted, so it is stopped, every
   * registration undone, and started again with back-off. A failure left over from a run
   * already stopped is only logged.
   */
  private crashed(instance: Instance, abort: AbortController, message: string): void {
    if (abort !== instance.abort || abort.signal.aborted) {
      log.warn(`${instance.config.id} (${instance.config.plugin}): a stopped run of the plugin ${message}`);
      return;
    }
    this.undo(instance, abort);
    instance.crashes += 1;
    this.restartLater(instance, message);
  }

  /** An outbound request timed out: shown at once, not only when the job gives up retrying. */
  private timedOut(instance: Instance, abort: AbortController, message: string): void {
    if (abort !== instance.abort || abort.signal.aborted) return;
    this.fail(instance, message);
  }

  /** A configuration mistake: stopped and marked failed, not retried (retrying cannot help). */
  private failOnce(instance: Instance, abort: AbortController, message: string): void {
    if (abort !== instance.abort || abort.signal.aborted) return;
    this.undo(instance, abort);
    this.fail(instance, `configuration error: ${message}`);
  }

  /**
   * The plugin's process died natively while it started (an abort in a native module, say):
   * starting it again would only do the same. The instance is switched off with the reason;
   * switching it on again (or a new config) tries once more.
   */
  private disable(instance: Instance, abort: AbortController, message: string): void {
    if (abort !== instance.abort || abort.signal.aborted) return;
    this.undo(instance, abort);
    instance.config = { ...instance.config, enabled: false };
    this.fail(
      instance,
      `switched off: its process died while starting (switch it on again once the plugin or its config is fixed): ${message}`,
    );
  }

  /**
   * Ends the current start after a failure: its cleanup is given its chance (a crashed
   * planner still puts the battery back to Normal), then every registration is undone.
   */
  private undo(instance: Instance, abort: AbortController): void {
    const builder = instance.builder;
    instance.builder = undefined;
    instance.abort = undefined;
    const undoing = (instance.undoing = (async () => {
      await builder?.cleanUp(CLEANUP_DEADLINE_MS);
      abort.abort();
      builder?.dispose();
    })().finally(() => {
      if (instance.undoing === undoing) instance.undoing = undefined;
    }));
  }

  private setState(instance: Instance, state: InstanceState): void {
    instance.state = state;
    this.options.changed(statusOf(instance));
  }
}
