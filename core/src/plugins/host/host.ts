/*
 * plugins/host: the running instances. This file is the PluginHost the server holds;
 * first-runs.ts and error-log.ts serve its status.
 */
import { z } from 'zod';
import { type Device, type DeviceIdentity, type PluginDefinition, formatZodError } from '@heliograph/plugins-sdk';
import { ConfigError } from '../../config/load.js';
import { SafeEmitter } from '../../events.js';
import { createLogger, errorMessage } from '../../log.js';
import { formatUtc } from '../../rfc3339.js';
import { ContextBuilder, type ContextServices, type PluginInstanceScope } from '../context/context.js';
import { createHttpClient } from '../context/http-client.js';
import { isolationOf, loadDefinition, runSetup, type Isolation } from '../isolation/isolation.js';
import type { DiscoveredPlugin } from '../discovery/discovery.js';
import type { PluginInstanceConfig } from '../instances/instances.js';
import { FirstRuns } from './first-runs.js';
import { ProcessCrashError } from '../isolation/worker/child.js';
import { deviceRule, importDefinition, listInstalled, type InstalledPlugin } from '../discovery/installed.js';
import { hideSecrets, keepSecrets, secretPaths, type SecretPaths } from '../instances/secrets.js';
import {
  deviceEntryId,
  deviceRuleProblems,
  isConfigError,
  parseConfig,
  parseDevices,
} from '../instances/config-checks.js';
import { ErrorLog } from './error-log.js';
import { plainErrorMap, fieldIssues, issuesText, type FieldIssue } from '../../api/field-issues.js';

export type { Isolation };

const log = createLogger('plugins');

export type InstanceState = 'starting' | 'running' | 'failed' | 'stopped';

/** An instance as GET /api/v1/plugins shows it. */
export interface InstanceStatus {
  id: string;
  plugin: string;
  kind: string;
  /** False for an instance kept in plugins.json but switched off; its state is "stopped". */
  enabled: boolean;
  /** The ids of the devices the instance drives, as in plugins.json (`inverter_1`). */
  devices: string[];
  /** Each device: whether it answers (and why not), and what it says it is. */
  device_status: DeviceStatus[];
  state: InstanceState;
  last_error: string | null;
  last_poll: string | null;
  /** Where the plugin's code runs: `worker` (a process of its own) or `process-local`. */
  isolation: Isolation;
}

/** A device of an instance as GET /api/v1/plugins shows it. */
export interface DeviceStatus {
  id: string;
  available: boolean;
  reason: string | null;
  identity: DeviceIdentity;
}

interface Instance {
  config: PluginInstanceConfig;
  /** Undefined for a disabled instance of a plugin that is not installed (any more). */
  plugin?: DiscoveredPlugin;
  definition?: PluginDefinition;
  /** The config schema as JSON Schema and its secret fields, worked out once per definition. */
  form?: { schema: unknown; secrets: SecretPaths };
  parsedConfig?: unknown;
  /** The devices with their config parsed by the plugin's deviceConfigSchema. */
  devices?: Device[];
  state: InstanceState;
  lastError: string | null;
  lastPoll: number | null;
  failures: number;
  /** Crashes (escaped exceptions) since the last good job run; they lengthen the back-off. */
  crashes: number;
  builder?: ContextBuilder;
  abort?: AbortController;
  retryTimer?: NodeJS.Timeout;
}

const MAX_RESTART_DELAY_MS = 5 * 60_000;

/**
 * Loads, starts and contains plugins. A plugin that throws in setup is stopped (every
 * registration undone) and started again with back-off; one whose job or write handler
 * fails is marked failed until a job succeeds again. Nothing a plugin throws reaches the API.
 */
export class PluginHost extends SafeEmitter<{ status: (status: InstanceStatus) => void }> {
  private readonly instances: Instance[] = [];
  private readonly errors = new ErrorLog(log);

  constructor(
    private readonly services: ContextServices,
    private readonly discovered: Map<string, DiscoveredPlugin>,
    private readonly configs: PluginInstanceConfig[],
    private readonly source = 'plugins.json',
    /** Builds an instance's context; the composition root resolves it from a child container. */
    private readonly contexts: (instance: PluginInstanceScope) => ContextBuilder = (instance) =>
      new ContextBuilder(instance, services, createHttpClient),
  ) {
    super();
  }

  /**
   * Imports every enabled instance's plugin and validates its config with the plugin's own
   * schema. Throws a ConfigError naming the exact bad key of plugins.json, so a wrong config
   * stops the start instead of leaving a plugin silently off. A plugin whose code fails to
   * load is not a config error: it is marked failed and the rest start.
   */
  async load(): Promise<void> {
    const problems: string[] = [];
    for (const [index, config] of this.configs.entries()) {
      const plugin = this.discovered.get(config.plugin);
      if (!plugin && config.enabled) {
        problems.push(`${this.source}: plugins[${index}].plugin: ${this.notInstalled(config.plugin)}`);
        continue;
      }
      // Disabled instances are listed (and their config can be edited) but never started.
      const instance: Instance = {
        config,
        plugin,
        state: 'stopped',
        lastError: null,
        lastPoll: null,
        failures: 0,
        crashes: 0,
      };
      this.instances.push(instance);
      if (!plugin) continue;
      try {
        instance.definition = await loadDefinition(config, plugin, () => importDefinition(plugin));
      } catch (err) {
        // A manifest mistake (its id is not the code's) stops the start, as plugins.json's do.
        if (config.enabled && isConfigError(err)) {
          problems.push(`${this.source}: plugins[${index}].plugin: ${errorMessage(err)}`);
          continue;
        }
        const message = `cannot load plugin ${plugin.packageName}: ${errorMessage(err)}`;
        if (config.enabled) this.fail(instance, message);
        else instance.lastError = message;
        continue;
      }
      if (!config.enabled) continue;
      const parsed = parseConfig(instance.definition.configSchema, config.config);
      if (!parsed.success) {
        problems.push(
          formatZodError(parsed.error, {
            source: this.source,
            input: config.config,
            pathPrefix: ['plugins', index, 'config'],
          }),
        );
        continue;
      }
      const devices = this.checkDevices(instance, index);
      if (!devices.ok) {
        problems.push(...devices.problems);
        continue;
      }
      instance.parsedConfig = parsed.data;
      instance.devices = devices.devices;
    }
    if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  }

  /** Starts every loaded instance; resolves when each has started or failed. */
  async startAll(): Promise<void> {
    await Promise.all(
      this.instances
        .filter((i) => i.config.enabled && i.definition && i.parsedConfig !== undefined)
        .map((i) => this.start(i)),
    );
  }

  /** Stops every instance at once (stopping waits for nothing); a promise for the closers' list. */
  stopAll(): Promise<void> {
    for (const instance of this.instances) this.stop(instance);
    return Promise.resolve();
  }

  status(): InstanceStatus[] {
    return this.instances.map((i) => this.statusOf(i));
  }

  /**
   * An instance's config form: the plugin's config schema as JSON Schema (the settings page
   * draws its form from it), the config in force without its secrets, and which secrets are
   * set. Undefined for an unknown id (or one whose plugin is not installed).
   */
  describe(
    id: string,
  ): { schema: unknown; config: Record<string, unknown>; secrets: Record<string, boolean> } | undefined {
    const instance = this.find(id);
    const form = instance && this.formOf(instance);
    if (!instance || !form) return undefined;
    return { schema: form.schema, ...hideSecrets(instance.config.config, form.secrets) };
  }

  /** The secret fields of an instance's config (for the audit log's "***"). */
  secretsOf(id: string): SecretPaths {
    const instance = this.find(id);
    return (instance && this.formOf(instance)?.secrets) ?? [];
  }

  /**
   * Validates a new config for an instance with the plugin's own schema and restarts the
   * instance with it (a disabled one just keeps it). Secrets the new config leaves out are
   * kept from the stored one. Resolves with the problems when the config is refused (the
   * running instance is left as it was), or with the config as answers may show it.
   */
  async reconfigure(
    id: string,
    config: Record<string, unknown>,
  ): Promise<
    | { ok: true; config: Record<string, unknown>; previous: Record<string, unknown> }
    | { ok: false; errors: string; issues: FieldIssue[] }
    | undefined
  > {
    const instance = this.find(id);
    const form = instance && this.formOf(instance);
    if (!instance?.definition || !form) return undefined;
    const merged = keepSecrets(config, instance.config.config, form.secrets);
    const parsed = parseConfig(instance.definition.configSchema, merged, { error: plainErrorMap });
    if (!parsed.success) {
      const issues = fieldIssues(parsed.error);
      return { ok: false, errors: issuesText(issues, 'config'), issues };
    }
    const previous = instance.config.config;
    instance.config = { ...instance.config, config: merged };
    instance.parsedConfig = parsed.data;
    if (instance.config.enabled) await this.restart(instance);
    return { ok: true, config: hideSecrets(merged, form.secrets).config, previous };
  }

  /** The instance entries as plugins.json holds them, with every change made through the API. */
  entries(): PluginInstanceConfig[] {
    return this.instances.map((i) => i.config);
  }

  /**
   * Adds an instance (the settings page's "add plugin"). The entry is checked as plugins.json
   * would be (id free, plugin installed, devices free) and its config by the plugin's own
   * schema; nothing changes when any check fails. An enabled instance starts in the
   * background: its status says "starting" until its first run is over.
   */
  async add(
    entry: PluginInstanceConfig,
  ): Promise<{ ok: true; status: InstanceStatus } | { ok: false; conflict?: boolean; issues: FieldIssue[] }> {
    const plugin = this.discovered.get(entry.plugin);
    if (!plugin) return { ok: false, issues: [{ path: ['plugin'], message: this.notInstalled(entry.plugin) }] };
    let definition: PluginDefinition;
    try {
      definition = await loadDefinition(entry, plugin, () => importDefinition(plugin));
    } catch (err) {
      return {
        ok: false,
        issues: [{ path: ['plugin'], message: `cannot load plugin ${plugin.packageName}: ${errorMessage(err)}` }],
      };
    }
    // Checked after the import's await, so two adds of one id cannot both pass.
    if (this.find(entry.id))
      return {
        ok: false,
        conflict: true,
        issues: [{ path: ['id'], message: `an instance "${entry.id}" already exists: choose another id` }],
      };
    const issues = this.deviceProblems(entry, plugin);
    const parsed = parseConfig(definition.configSchema, entry.config, { error: plainErrorMap });
    if (!parsed.success) issues.push(...fieldIssues(parsed.error, ['config']));
    const devices = parseDevices(entry.devices, definition, { source: 'devices', pathPrefix: [] });
    if (!devices.ok) issues.push(...devices.problems.map((message) => ({ path: ['devices'], message })));
    if (issues.length > 0 || !parsed.success || !devices.ok) return { ok: false, issues };
    const instance: Instance = {
      config: entry,
      plugin,
      definition,
      parsedConfig: parsed.data,
      devices: devices.devices,
      state: 'stopped',
      lastError: null,
      lastPoll: null,
      failures: 0,
      crashes: 0,
    };
    this.instances.push(instance);
    if (entry.enabled) void this.start(instance);
    return { ok: true, status: this.statusOf(instance) };
  }

  /** Every installed plugin, for the settings page's "add plugin" (see discovery/installed.ts). */
  installed(): Promise<InstalledPlugin[]> {
    // A plugin from outside the project is described by a worker, never imported here.
    return listInstalled(this.discovered, (plugin) => loadDefinition({}, plugin, () => importDefinition(plugin)));
  }

  /** Stops an instance and forgets it. False for an unknown id. */
  remove(id: string): boolean {
    const instance = this.find(id);
    if (!instance) return false;
    this.stop(instance);
    this.instances.splice(this.instances.indexOf(instance), 1);
    return true;
  }

  /**
   * Switches an instance on (its config is checked again first: the plugin may have been
   * updated while it was off) or off (stopped, kept in the list).
   */
  setEnabled(
    id: string,
    enabled: boolean,
  ): { ok: true; status: InstanceStatus } | { ok: false; issues: FieldIssue[] } | undefined {
    const instance = this.find(id);
    if (!instance) return undefined;
    if (instance.config.enabled === enabled) return { ok: true, status: this.statusOf(instance) };
    if (!enabled) {
      instance.config = { ...instance.config, enabled };
      this.stop(instance);
      return { ok: true, status: this.statusOf(instance) };
    }
    if (!instance.plugin || !instance.definition) {
      return {
        ok: false,
        issues: [{ path: ['enabled'], message: instance.lastError ?? this.notInstalled(instance.config.plugin) }],
      };
    }
    const parsed = parseConfig(instance.definition.configSchema, instance.config.config, { error: plainErrorMap });
    if (!parsed.success) {
      const issues = fieldIssues(parsed.error, ['config']);
      return {
        ok: false,
        issues: [
          {
            path: ['enabled'],
            message: `the stored config does not fit the plugin: ${issuesText(issues)}; fix it first`,
          },
          ...issues,
        ],
      };
    }
    const devices = parseDevices(instance.config.devices, instance.definition, { source: 'devices', pathPrefix: [] });
    if (!devices.ok) return { ok: false, issues: devices.problems.map((message) => ({ path: ['devices'], message })) };
    instance.config = { ...instance.config, enabled };
    instance.parsedConfig = parsed.data;
    instance.devices = devices.devices;
    instance.failures = 0;
    instance.lastError = null;
    void this.start(instance);
    return { ok: true, status: this.statusOf(instance) };
  }

  /**
   * The site's settings changed (time zone, location, temperature unit): every running
   * instance restarts, so each gets the new `ctx.site` and schedules its daily jobs in the
   * new zone. Resolves when they have all started again.
   */
  async updateSite(site: ContextServices['site']): Promise<void> {
    this.services.site = site;
    await Promise.all(
      this.instances.filter((i) => i.config.enabled && i.parsedConfig !== undefined).map((i) => this.restart(i)),
    );
  }

  /**
   * Problems with the devices of a new entry: more or fewer than the plugin drives, a kind
   * it does not drive, or one another instance drives.
   */
  private deviceProblems(entry: PluginInstanceConfig, plugin: DiscoveredPlugin): FieldIssue[] {
    const name = plugin.manifest.name ?? plugin.manifest.id;
    const issues: FieldIssue[] = deviceRuleProblems(entry.devices, deviceRule(plugin), name).map((p) => ({
      path: p.index === undefined ? ['devices'] : ['devices', p.index],
      message: p.message,
    }));
    const owners = new Map(
      this.instances.flatMap((i) => i.config.devices.map((d) => [deviceEntryId(d), i.config.id] as const)),
    );
    entry.devices.forEach((device, index) => {
      const owner = owners.get(deviceEntryId(device));
      if (owner && !issues.some((i) => i.path[1] === index))
        issues.push({
          path: ['devices', index],
          message: `device "${deviceEntryId(device)}" is already driven by instance "${owner}": pick another number`,
        });
    });
    return issues;
  }

  /**
   * An enabled instance's devices against the rule its manifest states and the plugin's per-device
   * config schema, as plugins.json problems (plugins[i].devices...).
   */
  private checkDevices(
    instance: Instance,
    index: number,
  ): { ok: true; devices: Device[] } | { ok: false; problems: string[] } {
    const { config, plugin, definition } = instance;
    const name = plugin!.manifest.name ?? plugin!.manifest.id;
    // Only a rule the manifest states: SDK 1.0 plugins of any kind could drive devices.
    const rule = plugin!.manifest.devices ?? null;
    const ruleProblems = (rule ? deviceRuleProblems(config.devices, rule, name) : []).map(
      (p) => `${this.source}: plugins[${index}].devices${p.index === undefined ? '' : `[${p.index}]`}: ${p.message}`,
    );
    if (ruleProblems.length > 0) return { ok: false, problems: ruleProblems };
    return parseDevices(config.devices, definition!, {
      source: this.source,
      pathPrefix: ['plugins', index, 'devices'],
    });
  }

  private async start(instance: Instance): Promise<void> {
    const { config, definition, plugin } = instance;
    if (!definition || !plugin) return;
    const firstRuns = new FirstRuns();
    let setupDone = false;
    // This start's own controller: a stop or a newer start replaces instance.abort meanwhile.
    const abort = (instance.abort = new AbortController());
    const reporter: PluginInstanceScope['reporter'] = {
      succeeded: (job) => {
        instance.lastPoll = this.services.clock.now();
        instance.crashes = 0;
        firstRuns.ran(job);
        if (instance.state === 'starting' && setupDone && firstRuns.done) this.setState(instance, 'running');
        else if (instance.state === 'failed' || instance.lastError) {
          instance.lastError = null;
          this.errors.cleared(`${config.id} (${config.plugin})`);
          this.setState(instance, 'running');
        } else this.emit('status', this.statusOf(instance));
      },
      failed: (job, err) => {
        firstRuns.ran(job);
        if (isConfigError(err)) this.failOnce(instance, abort, `job ${job}: ${errorMessage(err)}`);
        else this.fail(instance, `job ${job} failed: ${errorMessage(err)}`);
      },
      // A write a crash or a stop cut short fails after the run ended: the crash is the news.
      writeFailed: (message) => {
        if (abort === instance.abort && !abort.signal.aborted) this.fail(instance, message);
      },
      statusError: (message) => this.fail(instance, message),
      statusOk: () => {
        if (instance.state !== 'failed' && !instance.lastError) return;
        instance.lastError = null;
        this.errors.cleared(`${config.id} (${config.plugin})`);
        this.setState(instance, setupDone ? 'running' : 'starting');
      },
    };
    const devices = instance.devices ?? [];
    const builder = this.contexts({ id: config.id, plugin: config.plugin, devices, abort, reporter });
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
        retryDelayMs: this.services.httpRetryDelayMs,
        crashed: (message) => this.crashed(instance, abort, message),
        timedOut: (message) => this.timedOut(instance, abort, message),
      });
      if (typeof cleanup === 'function') builder.setCleanup(cleanup);
      if (abort.signal.aborted) return;
      instance.failures = 0;
      setupDone = true;
      // A job may already have failed during setup; keep that visible. Otherwise the
      // instance stays "starting" until its start-up jobs have run once (FirstRuns).
      if (instance.state === 'starting' && firstRuns.done) this.setState(instance, 'running');
    } catch (err) {
      // Stopped while setup ran (shutdown, a new config): stop() has undone it, and a retry
      // would bring back a plugin nobody runs any more.
      if (abort.signal.aborted) return;
      if (isConfigError(err)) return this.failOnce(instance, abort, errorMessage(err));
      if (err instanceof ProcessCrashError) return this.disable(instance, abort, errorMessage(err));
      abort.abort();
      builder.dispose();
      instance.failures += 1;
      this.restartLater(instance, `setup failed: ${errorMessage(err)}`);
    }
  }

  private find(id: string): Instance | undefined {
    return this.instances.find((i) => i.config.id === id);
  }

  private formOf(instance: Instance): { schema: unknown; secrets: SecretPaths } | undefined {
    if (!instance.definition) return undefined;
    if (!instance.form) {
      const schema = z.toJSONSchema(instance.definition.configSchema, { io: 'input', unrepresentable: 'any' });
      instance.form = { schema, secrets: secretPaths(schema) };
    }
    return instance.form;
  }

  private notInstalled(plugin: string): string {
    const known = [...this.discovered.keys()].sort().join(', ') || 'none';
    return `no plugin "${plugin}" is installed (installed: ${known})`;
  }

  /** Stops an instance and starts it afresh (a new config, the site moved), clearing its error. */
  private async restart(instance: Instance): Promise<void> {
    this.stop(instance);
    instance.failures = 0;
    instance.lastError = null;
    await this.start(instance);
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
    abort.abort();
    instance.builder?.dispose();
    instance.builder = undefined;
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
    abort.abort();
    instance.builder?.dispose();
    instance.builder = undefined;
    this.fail(instance, `configuration error: ${message}`);
  }

  /**
   * The plugin's process died natively while it started (an abort in a native module, say):
   * starting it again would only do the same. The instance is switched off with the reason;
   * switching it on again (or a new config) tries once more.
   */
  private disable(instance: Instance, abort: AbortController, message: string): void {
    if (abort !== instance.abort || abort.signal.aborted) return;
    abort.abort();
    instance.builder?.dispose();
    instance.builder = undefined;
    instance.config = { ...instance.config, enabled: false };
    this.fail(
      instance,
      `switched off: its process died while starting (switch it on again once the plugin or its config is fixed): ${message}`,
    );
  }

  private stop(instance: Instance): void {
    clearTimeout(instance.retryTimer);
    instance.abort?.abort();
    instance.builder?.dispose();
    instance.builder = undefined;
    this.setState(instance, 'stopped');
  }

  private fail(instance: Instance, message: string): void {
    instance.lastError = message;
    this.errors.report(`${instance.config.id} (${instance.config.plugin})`, message);
    this.setState(instance, 'failed');
  }

  private setState(instance: Instance, state: InstanceState): void {
    instance.state = state;
    this.emit('status', this.statusOf(instance));
  }

  private deviceStatus(instance: Instance, id: string): DeviceStatus {
    const running = instance.builder?.deviceStatus(id);
    const reason = !instance.config.enabled
      ? 'the instance is switched off'
      : instance.state === 'running'
        ? 'the plugin has not declared it'
        : `the instance is ${instance.state}`;
    return { id, ...(running ?? { available: false, reason, identity: {} }) };
  }

  private statusOf(i: Instance): InstanceStatus {
    return {
      id: i.config.id,
      plugin: i.config.plugin,
      kind: i.plugin?.manifest.kind ?? 'integration',
      enabled: i.config.enabled,
      devices: i.config.devices.map(deviceEntryId),
      device_status: i.config.devices.map((entry) => this.deviceStatus(i, deviceEntryId(entry))),
      state: i.state,
      last_error: i.lastError,
      last_poll: i.lastPoll === null ? null : formatUtc(i.lastPoll),
      isolation: i.plugin ? isolationOf(i.config, i.plugin) : (i.config.isolation ?? 'process-local'),
    };
  }
}
