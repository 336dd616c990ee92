/*
 * plugins/isolation: where a plugin's code runs and what it may cost. This file decides it;
 * containment.ts keeps an in-process plugin's failures to itself, worker/ runs one in a
 * process of its own.
 *
 * Where and how a plugin instance's setup runs: in the server's thread inside its containment
 * scope, with ctx.http bounded by the instance's limits (bundled plugins only), or in a
 * sandboxed process of its own (worker/sandbox.ts). A third-party plugin always runs in a
 * process: it is code the project did not review. The host calls this one function and hears
 * back through `crashed`, `timedOut` and `refused`.
 *
 * The isolation is called "worker" in the code and in GET /api/v1/plugins (its first name);
 * plugins.json takes "process" or, as before, "worker" for it.
 */
import { join } from 'node:path';
import type { Cleanup, PluginContext, PluginDefinition } from '@heliograph/plugins-sdk';
import { errorMessage } from '../../log.js';
import { createScope, runInScope, scopedContext } from './containment.js';
import type { DiscoveredPlugin } from '../discovery/discovery.js';
import { createBoundedHttp } from '../context/bounded-got.js';
import { approvedGrants } from '../instances/grants.js';
import { httpLimitsOf } from '../instances/http-limits.js';
import type { PluginInstanceConfig } from '../instances/instances.js';
import { definitionFromWorker } from './worker/describe.js';
import { workerLimitsOf } from '../instances/worker-limits.js';
import { setupInWorker } from './worker/worker-plugin.js';
import type { Refusal } from './worker/refusals.js';
import { sandboxFor, serialDevicesOf, type Sandbox } from './worker/sandbox.js';

export type Isolation = 'worker' | 'process-local';

/**
 * A sandboxed process of its own for every plugin from outside the project, whatever its
 * entry says; for a bundled one, the entry's setting (in-process by default).
 */
export function isolationOf(config: Pick<PluginInstanceConfig, 'isolation'>, plugin: DiscoveredPlugin): Isolation {
  if (plugin.bundled === false) return 'worker';
  return config.isolation === undefined || config.isolation === 'process-local' ? 'process-local' : 'worker';
}

/**
 * The sandbox of a plugin's process: its package, its own folder, what its manifest declares.
 * A bundled plugin in a process of its own gets the clean environment, not the permission model.
 */
export function pluginSandbox(
  plugin: DiscoveredPlugin,
  where: {
    dataDir?: string;
    ownDir?: string;
    config?: Pick<PluginInstanceConfig, 'config' | 'devices' | 'grants'>;
  } = {},
): Sandbox {
  const addons = plugin.manifest.nativeAddons === true;
  const hosts = where.config ? (approvedGrants(plugin, where.config).hosts ?? []) : [];
  return sandboxFor({
    confine: plugin.bundled === false,
    pluginDir: plugin.dir,
    dataDir: where.dataDir,
    ownDir: where.ownDir,
    grants: {
      addons,
      // node-gyp-build, which loads most addons, asks whether this file exists (musl or glibc).
      read: addons ? ['/etc/alpine-release'] : [],
      readWrite: addons && where.config ? serialDevicesOf(where.config.config, where.config.devices) : [],
      net: hosts.length > 0,
    },
  });
}

/**
 * The plugin's definition as the host needs it (id, config schema). A plugin that runs in a
 * worker is not imported into the server's thread: a short-lived worker describes it.
 */
export function loadDefinition(
  config: Pick<PluginInstanceConfig, 'isolation' | 'worker'>,
  plugin: DiscoveredPlugin,
  importInProcess: () => Promise<PluginDefinition>,
  /** The server's data directory, kept out of the describing process's reach (a plugin folder may hold it). */
  dataDir?: string,
): Promise<PluginDefinition> {
  return isolationOf(config, plugin) === 'worker'
    ? definitionFromWorker(plugin, workerLimitsOf(config.worker), pluginSandbox(plugin, { dataDir }))
    : importInProcess();
}

export interface SetupOptions {
  config: PluginInstanceConfig;
  plugin: DiscoveredPlugin;
  definition: PluginDefinition;
  /** The config as the plugin's schema parsed it (in-process); a worker parses its own. */
  parsedConfig: unknown;
  /** The instance's host-side context. */
  ctx: PluginContext;
  /** Aborts when this start of the instance is stopped. */
  signal: AbortSignal;
  /** Longest wait before an in-process `ctx.http` retries (the plugin harness); default got's back-off. */
  retryDelayMs?: number;
  /** Something escaped the plugin after (or during) setup; the message is for its status. */
  crashed(message: string): void;
  /** One of the plugin's requests timed out; the message is for its status. */
  timedOut(message: string): void;
  /** The server's data directory, which a sandboxed plugin cannot read; absent in the plugin harness. */
  dataDir?: string;
  /** The sandbox refused a call of the plugin. */
  refused?(refusal: Refusal): void;
  /** The hosts its grants let ctx.http reach; undefined: any (a harness's). */
  hosts?: readonly string[];
  /** ctx.http was refused a host: logged and audited. */
  hostRefused?(host: string, message: string): void;
}

/** Runs the plugin's setup where its isolation says; resolves with its cleanup, if any. */
export async function runSetup(options: SetupOptions): Promise<void | Cleanup> {
  const { config, plugin, ctx } = options;
  const http = httpLimitsOf(config.http);
  if (isolationOf(config, plugin) === 'worker') {
    return setupInWorker({
      ctx,
      entry: plugin.entry,
      config: config.config,
      http,
      limits: workerLimitsOf(config.worker),
      sandbox: pluginSandbox(plugin, {
        dataDir: options.dataDir,
        ownDir: options.dataDir === undefined ? undefined : join(options.dataDir, 'plugins', config.id),
        config,
      }),
      refused: (refusal) => options.refused?.(refusal),
      hosts: options.hosts,
      hostRefused: (host, message) => options.hostRefused?.(host, message),
      crashed: (message) => options.crashed(message),
      timedOut: (message) => options.timedOut(message),
    });
  }
  // Whatever escapes the plugin's code from here on (a timer, a socket callback) is its own.
  const scope = createScope(config.id, plugin.dir, (err) => options.crashed(`crashed: ${errorMessage(err)}`));
  let client: ReturnType<typeof createBoundedHttp> | undefined;
  const makeHttp = () =>
    (client ??= createBoundedHttp({
      signal: options.signal,
      limits: http,
      retryDelayMs: options.retryDelayMs,
      onTimeout: (message) => options.timedOut(message),
      hosts: options.hosts,
      onHostRefused: (host, message) => options.hostRefused?.(host, message),
    }));
  return runInScope(scope, () =>
    options.definition.setup(scopedContext(ctx, scope, { http: makeHttp }), options.parsedConfig),
  );
}
