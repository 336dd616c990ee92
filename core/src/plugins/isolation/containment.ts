/*
 * Failure containment for in-process plugins. Everything a plugin runs (its setup, its jobs,
 * its write handlers, and by inheritance every timer, socket callback and promise it creates
 * from them) runs inside an AsyncLocalStorage scope naming the instance. The process-level
 * handlers read that scope when an exception or rejection escapes, and hand the failure to
 * the instance (which the host marks failed and restarts) instead of letting it end the
 * process and lose the history not yet written.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { realpathSync } from 'node:fs';
import { sep } from 'node:path';
import type { Got } from 'got';
import type { Disposer, PluginContext } from '@heliograph/plugins-sdk';
import { ctxFunction, ctxMethods, withCallbacks } from '../context/methods.js';

/** Whom an escaped failure belongs to. */
export interface PluginScope {
  readonly instanceId: string;
  /**
   * Real path of the plugin's directory, ending in a separator. A stack frame under it names
   * the plugin where the async context is lost (a queueMicrotask callback does not keep it).
   */
  readonly dir: string;
  /** Takes a failure that escaped the plugin's own code. */
  crashed(error: unknown): void;
}

const storage = new AsyncLocalStorage<PluginScope>();
/** The newest scope of each instance, for attribution by stack frame. */
const scopesById = new Map<string, PluginScope>();

/** A scope for one start of an instance; it replaces the instance's previous one. */
export function createScope(instanceId: string, pluginDir: string, crashed: (error: unknown) => void): PluginScope {
  let dir = pluginDir;
  try {
    dir = realpathSync(pluginDir);
  } catch {
    // A directory that vanished keeps its given path; attribution by context still works.
  }
  const scope: PluginScope = { instanceId, dir: dir.endsWith(sep) ? dir : dir + sep, crashed };
  scopesById.set(instanceId, scope);
  return scope;
}

/** Runs `fn` (and whatever it schedules) as code of the scope's plugin. */
export function runInScope<T>(scope: PluginScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/**
 * The plugin a failure belongs to: the scope it was thrown in, else the plugin whose code
 * the stack passes through. Undefined for a failure of the core itself.
 */
export function attributeFailure(error: unknown): PluginScope | undefined {
  const current = storage.getStore();
  if (current) return current;
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : '';
  if (!stack) return undefined;
  for (const scope of scopesById.values()) if (stack.includes(scope.dir)) return scope;
  return undefined;
}

/**
 * The context as the plugin sees it. The callbacks the core calls from its own async context
 * (job runs from the scheduler, write handlers from an API request, subscriptions: each
 * function context/methods.ts says a method hands over) are wrapped to run in the plugin's
 * scope, so what they leave behind is attributed too. The other way round, every call into
 * the core leaves the scope: a timer the core starts while handling a plugin's publish (a
 * WebSocket throttle, a history flush) is the core's, and a failure in it must not be pinned
 * on the plugin.
 */
export function scopedContext(
  ctx: PluginContext,
  scope: PluginScope,
  overrides: { http?: () => Got } = {},
): PluginContext {
  const inScope = inScopeOf(scope);
  const { integration, site } = ctx;
  // Every method of context/methods.ts is a call into the core; a registration's disposer
  // too, and the functions it hands over run in the plugin's scope.
  const methods = ctxMethods((path, kind) => {
    const method = ctxFunction(ctx, path);
    if (kind !== 'register') return core(method);
    return core(
      coreRegistration(
        (...args: unknown[]) =>
          method(
            ...withCallbacks(path, args, (fn, holder) => inScope((fn as (...a: unknown[]) => unknown).bind(holder))),
          ) as Disposer,
      ),
    );
  });
  const scoped: Omit<PluginContext, 'http'> = {
    instanceId: ctx.instanceId,
    log: ctx.log,
    devices: ctx.devices,
    site: {
      timeZone: site.timeZone,
      latitude: site.latitude,
      longitude: site.longitude,
      temperatureUnit: site.temperatureUnit,
      ...methods.site,
    },
    topics: methods.topics,
    status: methods.status,
    scheduler: methods.scheduler,
    forecast: methods.forecast,
    prices: methods.prices,
    integration: scopedIntegration(integration, inScope),
    store: methods.store,
    signal: ctx.signal,
    now: () => ctx.now(),
  };
  // A getter, so got is still loaded only on the plugin's first request.
  return Object.defineProperty(scoped, 'http', {
    get: overrides.http ?? (() => ctx.http),
    enumerable: true,
  }) as PluginContext;
}

/** A function that runs `fn` in the plugin's scope (a callback of the plugin the core calls). */
function inScopeOf(scope: PluginScope) {
  return <A extends unknown[], R>(fn: (...args: A) => R) =>
    (...args: A): R =>
      runInScope(scope, () => fn(...args));
}

/** A function that runs `fn` outside any plugin's scope (a call into the core). */
function core<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return (...args) => storage.exit(() => fn(...args));
}

/** A registration made in the core, whose disposer runs in the core too. */
function coreRegistration<A extends unknown[]>(fn: (...args: A) => Disposer): (...args: A) => Disposer {
  return (...args) => core(fn(...args));
}

/** `ctx.integration` with its callbacks in the plugin's scope and its calls in the core's. */
function scopedIntegration(
  integration: PluginContext['integration'],
  inScope: ReturnType<typeof inScopeOf>,
): PluginContext['integration'] {
  return {
    definitions: core(() => integration.definitions()),
    subscribe: core(
      coreRegistration((options) =>
        integration.subscribe({
          ...options,
          onValues: inScope(options.onValues.bind(options)),
          onDefinitions: options.onDefinitions && inScope(options.onDefinitions.bind(options)),
        }),
      ),
    ),
    write: core((args) => integration.write(args)),
    onRecorded: core(
      coreRegistration(({ handler, after }) => integration.onRecorded({ handler: inScope(handler), after })),
    ),
    get dataDir() {
      return integration.dataDir;
    },
    get siteId() {
      return integration.siteId;
    },
    // The handler runs in the plugin's scope: what it throws, or its sockets later, is the plugin's.
    acceptUpgrades: core(
      coreRegistration(({ prefix, handler }) => integration.acceptUpgrades({ prefix, handler: inScope(handler) })),
    ),
  };
}

export interface ProcessHandlerOptions {
  /** A failure no plugin owns: the process must end, after writing what it holds. */
  fatal(error: unknown, origin: string): void;
}

/**
 * Installs the process-level handlers of the server process (main.ts only: a test runner
 * has handlers of its own). Returns a function that removes them.
 */
export function installProcessHandlers(options: ProcessHandlerOptions): () => void {
  const handle = (error: unknown, origin: string) => {
    const scope = attributeFailure(error);
    if (scope) scope.crashed(error);
    else options.fatal(error, origin);
  };
  const onException = (error: Error, origin: string) => handle(error, origin);
  const onRejection = (reason: unknown) => handle(reason, 'unhandledRejection');
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}
