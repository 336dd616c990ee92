/*
 * plugins/isolation: where a plugin's code runs and what it may cost. This file decides it;
 * containment.ts keeps an in-process plugin's failures to itself, worker/ runs one in a
 * process of its own.
 *
 * Where and how a plugin instance's setup runs: in the server's thread inside its containment
 * scope, with ctx.http bounded by the instance's limits, or in a worker process of its own.
 * The host calls this one function and hears back through `crashed` and `timedOut`.
 */
import type { Cleanup, PluginContext, PluginDefinition } from '@heliograph/plugins-sdk';
import { errorMessage } from '../../log.js';
import { createScope, runInScope, scopedContext } from './containment.js';
import type { DiscoveredPlugin } from '../discovery/discovery.js';
import { createBoundedHttp } from '../context/bounded-got.js';
import { httpLimitsOf } from '../instances/http-limits.js';
import type { PluginInstanceConfig } from '../instances/instances.js';
import { definitionFromWorker } from './worker/describe.js';
import { workerLimitsOf } from '../instances/worker-limits.js';
import { setupInWorker } from './worker/worker-plugin.js';

export type Isolation = 'worker' | 'process-local';

/** The instance's setting, else a worker process of its own for plugins from outside the project. */
export function isolationOf(config: Pick<PluginInstanceConfig, 'isolation'>, plugin: DiscoveredPlugin): Isolation {
  return config.isolation ?? (plugin.bundled === false ? 'worker' : 'process-local');
}

/**
 * The plugin's definition as the host needs it (id, config schema). A plugin that runs in a
 * worker is not imported into the server's thread: a short-lived worker describes it.
 */
export function loadDefinition(
  config: Pick<PluginInstanceConfig, 'isolation' | 'worker'>,
  plugin: DiscoveredPlugin,
  importInProcess: () => Promise<PluginDefinition>,
): Promise<PluginDefinition> {
  return isolationOf(config, plugin) === 'worker'
    ? definitionFromWorker(plugin, workerLimitsOf(config.worker))
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
    }));
  return runInScope(scope, () =>
    options.definition.setup(scopedContext(ctx, scope, { http: makeHttp }), options.parsedConfig),
  );
}
