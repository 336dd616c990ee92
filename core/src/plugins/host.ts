import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { deviceFromId, type PluginDefinition, formatZodError } from '@heliograph/plugins-sdk';
import { ConfigError } from '../config/load.js';
import { SafeEmitter } from '../events.js';
import { createLogger, errorMessage } from '../log.js';
import { formatUtc } from '../rfc3339.js';
import { ContextBuilder, type ContextServices, type PluginInstanceScope } from './context.js';
import { createHttpClient } from './http-client.js';
import type { DiscoveredPlugin } from './discovery.js';
import type { PluginInstanceConfig } from './instances.js';

const log = createLogger('plugins');

export type InstanceState = 'starting' | 'running' | 'failed' | 'stopped';

/** An instance as GET /api/v1/plugins shows it. */
export interface InstanceStatus {
  id: string;
  plugin: string;
  kind: string;
  devices: string[];
  state: InstanceState;
  last_error: string | null;
  last_poll: string | null;
}

interface Instance {
  config: PluginInstanceConfig;
  plugin: DiscoveredPlugin;
  definition?: PluginDefinition;
  parsedConfig?: unknown;
  state: InstanceState;
  lastError: string | null;
  lastPoll: number | null;
  failures: number;
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

  constructor(
    private readonly services: ContextServices,
    private readonly discovered: Map<string, DiscoveredPlugin>,
    private readonly configs: PluginInstanceConfig[],
    private readonly source = 'plugins.json',
    /** Builds an instance's context; the composition root resolves it from a child container. */
    private readonly contexts: (instance: PluginInstanceScope) => ContextBuilder = (instance) => new ContextBuilder(instance, services, createHttpClient),
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
      if (!config.enabled) continue;
      const plugin = this.discovered.get(config.plugin);
      if (!plugin) {
        const known = [...this.discovered.keys()].sort().join(', ') || 'none';
        problems.push(`${this.source}: plugins[${index}].plugin: no plugin "${config.plugin}" is installed (installed: ${known})`);
        continue;
      }
      const instance: Instance = { config, plugin, state: 'stopped', lastError: null, lastPoll: null, failures: 0 };
      this.instances.push(instance);
      try {
        instance.definition = await importDefinition(plugin);
      } catch (err) {
        this.fail(instance, `cannot load plugin ${plugin.packageName}: ${errorMessage(err)}`);
        continue;
      }
      const parsed = instance.definition.configSchema.safeParse(config.config);
      if (!parsed.success) {
        problems.push(formatZodError(parsed.error, { source: this.source, input: config.config, pathPrefix: ['plugins', index, 'config'] }));
        continue;
      }
      instance.parsedConfig = parsed.data;
    }
    if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  }

  /** Starts every loaded instance; resolves when each has started or failed. */
  async startAll(): Promise<void> {
    await Promise.all(this.instances.filter((i) => i.definition && i.parsedConfig !== undefined).map((i) => this.start(i)));
  }

  async stopAll(): Promise<void> {
    for (const instance of this.instances) this.stop(instance);
  }

  status(): InstanceStatus[] {
    return this.instances.map((i) => this.statusOf(i));
  }

  /**
   * An instance's config form: the plugin's config schema as JSON Schema (the settings page
   * draws its form from it) and the config in force. Undefined for an unknown id.
   */
  describe(id: string): { schema: unknown; config: unknown } | undefined {
    const instance = this.instances.find((i) => i.config.id === id);
    if (!instance?.definition) return undefined;
    return { schema: z.toJSONSchema(instance.definition.configSchema, { io: 'input', unrepresentable: 'any' }), config: instance.config.config };
  }

  /**
   * Validates a new config for an instance with the plugin's own schema and restarts the
   * instance with it. Resolves with the error lines when the config is refused (the
   * running instance is left as it was), or with the config to persist.
   */
  async reconfigure(id: string, config: unknown): Promise<{ ok: true; config: Record<string, unknown> } | { ok: false; errors: string } | undefined> {
    const instance = this.instances.find((i) => i.config.id === id);
    if (!instance?.definition) return undefined;
    const parsed = instance.definition.configSchema.safeParse(config);
    if (!parsed.success) return { ok: false, errors: formatZodError(parsed.error, { source: 'config', input: config }) };
    this.stop(instance);
    instance.config = { ...instance.config, config: config as Record<string, unknown> };
    instance.parsedConfig = parsed.data;
    instance.failures = 0;
    instance.lastError = null;
    await this.start(instance);
    return { ok: true, config: instance.config.config };
  }

  /** The instance entries as plugins.json holds them, with any reconfigured configs. */
  entries(): PluginInstanceConfig[] {
    const byId = new Map(this.instances.map((i) => [i.config.id, i.config]));
    return this.configs.map((c) => byId.get(c.id) ?? c);
  }

  private async start(instance: Instance): Promise<void> {
    const { config, definition } = instance;
    if (!definition) return;
    // This start's own controller: a stop or a newer start replaces instance.abort meanwhile.
    const abort = (instance.abort = new AbortController());
    const reporter: PluginInstanceScope['reporter'] = {
      succeeded: () => {
        instance.lastPoll = this.services.clock.now();
        if (instance.state === 'failed' || instance.lastError) {
          instance.lastError = null;
          this.setState(instance, 'running');
        } else this.emit('status', this.statusOf(instance));
      },
      failed: (job, err) => this.fail(instance, `job ${job} failed: ${errorMessage(err)}`),
      writeFailed: (message) => this.fail(instance, message),
    };
    const builder = this.contexts({ id: config.id, devices: config.devices.map(deviceFromId), abort, reporter });
    instance.builder = builder;
    this.setState(instance, 'starting');
    try {
      if (instance.plugin.manifest.kind === 'forecast') builder.registerForecastSource();
      const cleanup = await definition.setup(builder.build(), instance.parsedConfig);
      if (typeof cleanup === 'function') builder.setCleanup(cleanup);
      if (abort.signal.aborted) return;
      instance.failures = 0;
      // A job may already have failed during setup; keep that visible.
      if (instance.state === 'starting') this.setState(instance, 'running');
    } catch (err) {
      // Stopped while setup ran (shutdown, a new config): stop() has undone it, and a retry
      // would bring back a plugin nobody runs any more.
      if (abort.signal.aborted) return;
      abort.abort();
      builder.dispose();
      instance.failures += 1;
      const delay = Math.min(1000 * 2 ** (instance.failures - 1), MAX_RESTART_DELAY_MS);
      this.fail(instance, `setup failed: ${errorMessage(err)}; retrying in ${Math.round(delay / 1000)} s`);
      instance.retryTimer = setTimeout(() => void this.start(instance), delay);
    }
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
    log.error(`${instance.config.id} (${instance.config.plugin}): ${message}`);
    this.setState(instance, 'failed');
  }

  private setState(instance: Instance, state: InstanceState): void {
    instance.state = state;
    this.emit('status', this.statusOf(instance));
  }

  private statusOf(i: Instance): InstanceStatus {
    return {
      id: i.config.id,
      plugin: i.config.plugin,
      kind: i.plugin.manifest.kind,
      devices: [...i.config.devices],
      state: i.state,
      last_error: i.lastError,
      last_poll: i.lastPoll === null ? null : formatUtc(i.lastPoll),
    };
  }
}

async function importDefinition(plugin: DiscoveredPlugin): Promise<PluginDefinition> {
  const module = (await import(pathToFileURL(plugin.entry).href)) as { default?: PluginDefinition };
  const definition = module.default;
  if (!definition || typeof definition.setup !== 'function' || !definition.configSchema) {
    throw new Error(`${plugin.entry} has no default export made with definePlugin`);
  }
  if (definition.id !== plugin.manifest.id) {
    throw new Error(`the plugin calls itself "${definition.id}" but its package.json says "${plugin.manifest.id}"`);
  }
  return definition;
}
