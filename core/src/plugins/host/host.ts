/*
 * plugins/host: the running instances. This file is the PluginHost the server holds (what the
 * API and the composition ask of it); instance.ts is one instance and its status,
 * lifecycle.ts starts, stops and contains one, entry-checks.ts checks an entry against its
 * plugin, first-runs.ts and error-log.ts serve the status.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { formatZodError, type PluginDefinition } from '@heliograph/plugins-sdk';
import { ConfigError } from '../../config/load.js';
import { SafeEmitter } from '../../events.js';
import { errorMessage } from '../../log.js';
import { ContextBuilder, type ContextServices, type PluginInstanceScope } from '../context/context.js';
import { createHttpClient } from '../context/http-client.js';
import { loadDefinition, type Isolation } from '../isolation/isolation.js';
import type { DiscoveredPlugin } from '../discovery/discovery.js';
import type { PluginInstanceConfig } from '../instances/instances.js';
import { beyondRequest, requestedGrants, type PluginGrants } from '../instances/grants.js';
import { importDefinition, listInstalled, type InstalledPlugin } from '../discovery/installed.js';
import { hideSecrets, keepSecrets, type SecretPaths } from '../instances/secrets.js';
import { isConfigError, parseConfig } from '../instances/config-checks.js';
import { plainErrorMap, fieldIssues, issuesText, type FieldIssue } from '../../contract/field-issues.js';
import { checkNewEntry, checkStoredEntry, fileDeviceProblems, newDeviceProblems } from './entry-checks.js';
import { formOf, newInstance, statusOf, type Instance, type InstanceStatus } from './instance.js';
import { Lifecycle } from './lifecycle.js';

export type { Isolation };
export type { DeviceStatus, InstanceState, InstanceStatus } from './instance.js';

/**
 * Loads, starts and contains plugins. A plugin that throws in setup is stopped (every
 * registration undone) and started again with back-off; one whose job or write handler
 * fails is marked failed until a job succeeds again. Nothing a plugin throws reaches the API.
 */
export class PluginHost extends SafeEmitter<{ status: (status: InstanceStatus) => void }> {
  private readonly instances: Instance[] = [];
  /** Stops under way that nobody awaits directly (removed or switched-off instances). */
  private readonly stopping = new Set<Promise<void>>();
  private readonly lifecycle: Lifecycle;

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
    this.lifecycle = new Lifecycle({
      clock: services.clock,
      httpRetryDelayMs: services.httpRetryDelayMs,
      contexts,
      changed: (status) => this.emit('status', status),
    });
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
      // One plugin's code at a time: the server answers while the service starts, and a
      // request that came in meanwhile is answered between two of them.
      await nextTurn();
      const plugin = this.discovered.get(config.plugin);
      if (!plugin && config.enabled) {
        problems.push(`${this.source}: plugins[${index}].plugin: ${this.notInstalled(config.plugin)}`);
        continue;
      }
      // Disabled instances are listed (and their config can be edited) but never started.
      const instance = newInstance({ config, plugin });
      this.instances.push(instance);
      if (!plugin) continue;
      try {
        instance.definition = await loadDefinition(
          config,
          plugin,
          () => importDefinition(plugin),
          this.services.integration?.dataDir,
        );
      } catch (err) {
        // A manifest mistake (its id is not the code's) stops the start, as plugins.json's do.
        if (config.enabled && isConfigError(err)) {
          problems.push(`${this.source}: plugins[${index}].plugin: ${errorMessage(err)}`);
          continue;
        }
        const message = `cannot load plugin ${plugin.packageName}: ${errorMessage(err)}`;
        if (config.enabled) this.lifecycle.fail(instance, message);
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
      const devices = fileDeviceProblems(config, plugin, instance.definition, { source: this.source, index });
      if (!devices.ok) {
        problems.push(...devices.problems);
        continue;
      }
      instance.parsedConfig = parsed.data;
      instance.devices = devices.devices;
    }
    if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  }

  /**
   * Starts every loaded instance, each a turn of the event loop after the one before (a
   * request that came in meanwhile is answered in between), without waiting for one to have
   * started before the next; resolves when each has started or failed.
   */
  async startAll(): Promise<void> {
    const starting: Array<Promise<void>> = [];
    for (const instance of this.instances) {
      if (!instance.config.enabled || !instance.definition || instance.parsedConfig === undefined) continue;
      await nextTurn();
      starting.push(this.lifecycle.start(instance));
    }
    await Promise.all(starting);
  }

  /**
   * Stops every instance: first those that control a battery (a planner), each awaited while
   * the drivers still run so that it can put its battery back to Normal, then all the others
   * (the drivers end what is still forced before they close). Resolves when all have stopped.
   */
  async stopAll(): Promise<void> {
    this.lifecycle.close();
    const controllers = this.services.writes.controllers;
    const first = this.instances.filter((i) => controllers.controls(i.config.id));
    await Promise.all(first.map((i) => this.lifecycle.stop(i)));
    await Promise.all(this.instances.filter((i) => !first.includes(i)).map((i) => this.lifecycle.stop(i)));
    await this.settled();
  }

  /** Resolves once every stop started by {@link remove} or {@link setEnabled} has finished. */
  async settled(): Promise<void> {
    while (this.stopping.size > 0) await Promise.all(this.stopping);
  }

  /** Stops an instance in the background, kept in {@link stopping} until it has stopped. */
  private stopLater(instance: Instance): void {
    const done = this.lifecycle.stop(instance).finally(() => this.stopping.delete(done));
    this.stopping.add(done);
  }

  status(): InstanceStatus[] {
    return this.instances.map((i) => statusOf(i));
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
    const form = instance && formOf(instance);
    if (!instance || !form) return undefined;
    return { schema: form.schema, ...hideSecrets(instance.config.config, form.secrets) };
  }

  /** The secret fields of an instance's config (for the audit log's "***"). */
  secretsOf(id: string): SecretPaths {
    const instance = this.find(id);
    return (instance && formOf(instance)?.secrets) ?? [];
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
    const form = instance && formOf(instance);
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
    if (instance.config.enabled) await this.lifecycle.restart(instance);
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
    if (entry.isolation === 'process-local' && plugin.bundled === false)
      return {
        ok: false,
        issues: [
          {
            path: ['isolation'],
            message: `plugin ${entry.plugin} is not bundled with Heliograph: it always runs sandboxed in a process of its own; leave "isolation" out or set "process"`,
          },
        ],
      };
    let definition: PluginDefinition;
    try {
      definition = await loadDefinition(
        entry,
        plugin,
        () => importDefinition(plugin),
        this.services.integration?.dataDir,
      );
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
    const beyond = beyondRequest(entry.grants ?? {}, requestedGrants(plugin.manifest));
    if (beyond.length > 0)
      return { ok: false, issues: beyond.map((issue) => ({ ...issue, path: ['grants', ...issue.path] })) };
    const checked = checkNewEntry(entry, definition, newDeviceProblems(entry, plugin, this.instances));
    if (!checked.ok) return checked;
    const { parsedConfig, devices } = checked;
    const instance = newInstance({ config: entry, plugin, definition, parsedConfig, devices });
    this.instances.push(instance);
    if (entry.enabled) void this.lifecycle.start(instance);
    return { ok: true, status: statusOf(instance) };
  }

  /**
   * The owner's approval of an instance's grants (a subset of what its manifest asks):
   * refused with the problems when it holds more; a running instance restarts with it.
   */
  async approveGrants(
    id: string,
    grants: PluginGrants,
  ): Promise<
    { ok: true; previous: PluginGrants; status: InstanceStatus } | { ok: false; issues: FieldIssue[] } | undefined
  > {
    const instance = this.find(id);
    if (!instance) return undefined;
    const requested = instance.plugin ? requestedGrants(instance.plugin.manifest) : {};
    const beyond = beyondRequest(grants, requested);
    if (beyond.length > 0) return { ok: false, issues: beyond };
    const previous = statusOf(instance).grants?.approved ?? {};
    instance.config = { ...instance.config, grants };
    if (instance.config.enabled && instance.parsedConfig !== undefined) await this.lifecycle.restart(instance);
    return { ok: true, previous, status: statusOf(instance) };
  }

  /** Every installed plugin, for the settings page's "add plugin" (see discovery/installed.ts). */
  installed(): Promise<InstalledPlugin[]> {
    // A plugin from outside the project is described by a worker, never imported here.
    return listInstalled(this.discovered, (plugin) =>
      loadDefinition({}, plugin, () => importDefinition(plugin), this.services.integration?.dataDir),
    );
  }

  /** Stops an instance and forgets it. False for an unknown id. */
  remove(id: string): boolean {
    const instance = this.find(id);
    if (!instance) return false;
    this.stopLater(instance);
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
    if (instance.config.enabled === enabled) return { ok: true, status: statusOf(instance) };
    if (!enabled) {
      instance.config = { ...instance.config, enabled };
      this.stopLater(instance);
      return { ok: true, status: statusOf(instance) };
    }
    if (!instance.plugin || !instance.definition) {
      return {
        ok: false,
        issues: [{ path: ['enabled'], message: instance.lastError ?? this.notInstalled(instance.config.plugin) }],
      };
    }
    const checked = checkStoredEntry(instance.config, instance.definition);
    if (!checked.ok) return checked;
    instance.config = { ...instance.config, enabled };
    instance.parsedConfig = checked.parsedConfig;
    instance.devices = checked.devices;
    instance.failures = 0;
    instance.lastError = null;
    // Switched off and on again quickly: the new start waits until the old run has stopped.
    if (this.stopping.size > 0) void this.settled().then(() => this.lifecycle.start(instance));
    else void this.lifecycle.start(instance);
    return { ok: true, status: statusOf(instance) };
  }

  /**
   * The site's settings changed (time zone, location, temperature unit): every running
   * instance restarts, so each gets the new `ctx.site` and schedules its daily jobs in the
   * new zone. Resolves when they have all started again.
   */
  async updateSite(site: ContextServices['site']): Promise<void> {
    this.services.site = site;
    await Promise.all(
      this.instances
        .filter((i) => i.config.enabled && i.parsedConfig !== undefined)
        .map((i) => this.lifecycle.restart(i)),
    );
  }

  private find(id: string): Instance | undefined {
    return this.instances.find((i) => i.config.id === id);
  }

  private notInstalled(plugin: string): string {
    const known = [...this.discovered.keys()].sort().join(', ') || 'none';
    return `no plugin "${plugin}" is installed (installed: ${known})`;
  }
}
