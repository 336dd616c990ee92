/*
 * The plugin context's methods, described once: each entry names a method of the SDK's
 * PluginContext by its path (`topics.publish`), its kind, and a schema of its arguments.
 *
 * - `event`: applied and forgotten (a worker sends it; what it returns is dropped);
 * - `call`: the caller waits for the answer (a promise on both sides of a worker);
 * - `register`: hands over functions and returns a Disposer (`topics.declare`, `scheduler.*`,
 *   `site.subscribe`...). Its `callbacks` say where in the first argument the functions sit
 *   (`run`, `onValues`, `settings.*.write`: `*` is each item of an array) and whether the core
 *   waits for their outcome (`call`: a job's run, a setting's write) or not (`event`). In the
 *   schema each of them is the id it crosses a worker's boundary as. Its arguments cross it
 *   without their `signal` (an AbortSignal does not clone): a `call` callback gets the
 *   worker's own in its first argument instead.
 *
 * The implementation is the ContextBuilder's (context.ts). Derived from this table: the
 * worker's proxy of each method, which holds a registration's functions under ids and runs them
 * when the host calls (isolation/worker/worker-context.ts), the message that carries it and
 * the host's dispatch of it, its arguments checked by the schema since the worker runs code
 * the core does not trust, with each function id replaced by one that calls back across the
 * boundary (isolation/worker/worker-plugin.ts), and the wrapper that makes an in-process
 * plugin's call leave its containment scope and its callbacks run in it
 * (isolation/containment.ts).
 *
 * Written out by hand instead: `ctx.integration`, which only an in-process plugin has (its
 * callbacks take sockets and live objects no worker boundary carries); the checks a worker
 * makes before sending (a device is assigned before `topics.declare`, declared before
 * `topics.publish`), so the plugin's call throws where it was made; and the plain values
 * (`instanceId`, `devices`, `site.timeZone`...), which a worker gets once in its start message.
 */
import { z } from 'zod';
import type { PluginContext } from '@heliograph/plugins-sdk';

const record = z.record(z.string(), z.unknown());
const topicFilter = z.union([z.string(), z.array(z.string())]).optional();

/** The id a handed-over function crosses a worker's boundary as. */
const fn = z.number().int().nonnegative();

/** A function a `register` method takes: where it sits in the first argument, and its kind. */
export interface CtxCallback {
  at: string;
  kind: 'event' | 'call';
}

const event = <T extends z.ZodTuple>(args: T) => ({ kind: 'event' as const, args });
const call = <T extends z.ZodTuple>(args: T) => ({ kind: 'call' as const, args });
const register = <T extends z.ZodTuple>(args: T, ...callbacks: CtxCallback[]) => ({
  kind: 'register' as const,
  args,
  callbacks,
});
const job = { name: z.string(), timeoutMs: z.number().positive().optional(), run: fn };

/** Every method of `ctx` a worker forwards, by path. */
export const CTX_METHODS = {
  'topics.declare': register(
    z.tuple([
      z.object({
        device: z.string(),
        metrics: z.array(record.and(z.object({ name: z.string(), displayName: z.string() }))),
        settings: z.array(record.and(z.object({ name: z.string(), displayName: z.string(), write: fn }))).optional(),
        pollIntervalMs: z.number().optional(),
        identity: record.optional(),
      }),
    ]),
    { at: 'settings.*.write', kind: 'call' },
  ),
  'topics.publish': event(
    z.tuple([
      z.object({
        device: z.string(),
        values: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])),
      }),
    ]),
  ),
  'topics.identify': event(z.tuple([z.object({ device: z.string(), identity: z.record(z.string(), z.string()) })])),
  'topics.markUnavailable': event(z.tuple([z.object({ device: z.string(), reason: z.unknown() })])),
  'topics.markAvailable': event(z.tuple([z.object({ device: z.string() })])),
  'topics.updateSetting': event(z.tuple([record.and(z.object({ device: z.string(), name: z.string() }))])),
  'topics.record': call(
    z.tuple([
      z.object({
        device: z.string(),
        readings: z.array(z.object({ time: z.number(), values: z.record(z.string(), z.number()) })),
      }),
    ]),
  ),
  'scheduler.every': register(
    z.tuple([z.object({ ...job, intervalMs: z.number(), immediate: z.boolean().optional() })]),
    { at: 'run', kind: 'call' },
  ),
  'scheduler.daily': register(
    z.tuple([z.object({ ...job, times: z.array(z.string()), timeZone: z.string().optional() })]),
    { at: 'run', kind: 'call' },
  ),
  'status.error': event(z.tuple([z.object({ message: z.unknown() })])),
  'status.ok': event(z.tuple([])),
  'status.progress': event(z.tuple([z.unknown()])),
  'forecast.publish': event(z.tuple([record])),
  'prices.publish': event(z.tuple([record])),
  'prices.declare': register(
    z.tuple([
      z.object({
        provider: z.string(),
        currency: z.string().optional(),
        scheduleType: z.enum(['pricing', 'import_export_pricing', 'none']),
        demo: z.boolean().optional(),
      }),
    ]),
  ),
  'store.get': call(z.tuple([z.string()])),
  'store.set': call(z.tuple([z.string(), z.unknown()])),
  'store.delete': call(z.tuple([z.string()])),
  'site.definitions': call(z.tuple([])),
  'site.subscribe': register(z.tuple([z.object({ filter: topicFilter, onValues: fn })]), {
    at: 'onValues',
    kind: 'event',
  }),
  'site.onWrite': register(z.tuple([z.object({ filter: topicFilter, handler: fn })]), { at: 'handler', kind: 'event' }),
  'site.values': call(z.tuple([z.object({ filter: topicFilter }).optional()])),
  'site.prices': call(z.tuple([])),
  'site.forecast': call(
    z.tuple([
      z.object({ topic: z.string().optional(), fromMs: z.number().optional(), toMs: z.number().optional() }).optional(),
    ]),
  ),
  'site.history': call(
    z.tuple([
      z.object({
        topic: z.string(),
        fromMs: z.number(),
        toMs: z.number(),
        groupBy: z.string().optional(),
        agg: z.enum(['mean', 'max', 'min', 'sum', 'last']).optional(),
      }),
    ]),
  ),
  'site.write': call(
    z.tuple([
      z.object({
        topic: z.string(),
        value: z.union([z.string(), z.number(), z.boolean()]),
        together: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
      }),
    ]),
  ),
} satisfies Partial<
  Record<
    MethodPath,
    { kind: 'event' | 'call'; args: z.ZodTuple } | { kind: 'register'; args: z.ZodTuple; callbacks: CtxCallback[] }
  >
>;

/** `area.method` for every method of an API object on the context (`topics.publish`, `site.values`). */
type MethodPath = {
  [A in keyof PluginContext]: PluginContext[A] extends object
    ? {
        // Optional methods too (`status.progress`): a newer SDK's addition a core may lack.
        [M in keyof PluginContext[A]]-?: NonNullable<PluginContext[A][M]> extends (...args: never[]) => unknown
          ? `${A & string}.${M & string}`
          : never;
      }[keyof PluginContext[A]]
    : never;
}[keyof PluginContext];

export type CtxMethod = keyof typeof CTX_METHODS;
export type CtxKind = (typeof CTX_METHODS)[CtxMethod]['kind'];

export const ctxMethodNames = Object.keys(CTX_METHODS) as [CtxMethod, ...CtxMethod[]];

/** The function at `path` on a context, bound to its object. */
export function ctxFunction(ctx: PluginContext, path: CtxMethod): (...args: unknown[]) => unknown {
  const [area, name] = path.split('.') as [string, string];
  const api = (ctx as unknown as Record<string, Record<string, (...args: unknown[]) => unknown>>)[area]!;
  return (...args) => api[name]!(...args);
}

type AreaOf<P> = P extends `${infer A}.${string}` ? A : never;
type NameOf<P> = P extends `${string}.${infer N}` ? N : never;

/** The methods of the table, area by area, with the SDK's own signatures (`methods.topics.publish`). */
export type CtxMethods = {
  [A in AreaOf<CtxMethod> & keyof PluginContext]: Pick<
    PluginContext[A],
    NameOf<Extract<CtxMethod, `${A}.${string}`>> & keyof PluginContext[A]
  >;
};

/**
 * The table's methods, area by area (`topics`, `store`, `site`...), each made by `make` from
 * its path and kind: a worker's proxy that sends it, containment's wrapper that calls it.
 */
export function ctxMethods(make: (path: CtxMethod, kind: CtxKind) => (...args: unknown[]) => unknown): CtxMethods {
  const areas: Record<string, Record<string, (...args: unknown[]) => unknown>> = {};
  for (const path of ctxMethodNames) {
    const [area, name] = path.split('.') as [string, string];
    (areas[area] ??= {})[name] = make(path, CTX_METHODS[path].kind);
  }
  return areas as unknown as CtxMethods;
}

/**
 * `args` with each function a `register` method hands over (its callbacks, see the header)
 * replaced by `replace(value, holder, callback)`, `holder` being the object it sits on; the
 * rest as it was, each object on the way copied. Another method's arguments as they are.
 */
export function withCallbacks(
  path: CtxMethod,
  args: readonly unknown[],
  replace: (value: unknown, holder: object, callback: CtxCallback) => unknown,
): unknown[] {
  const entry = CTX_METHODS[path];
  if (entry.kind !== 'register') return [...args];
  let first = args[0];
  for (const callback of entry.callbacks)
    first = replaceAt(first, callback.at.split('.'), (value, holder) => replace(value, holder, callback));
  return [first, ...args.slice(1)];
}

function replaceAt(value: unknown, steps: string[], replace: (value: unknown, holder: object) => unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const [step, ...rest] = steps as [string, ...string[]];
  if (step === '*') return Array.isArray(value) ? value.map((item) => replaceAt(item, rest, replace)) : value;
  const inner = (value as Record<string, unknown>)[step];
  if (rest.length === 0) return { ...value, [step]: replace(inner, value) };
  return inner === undefined ? value : { ...value, [step]: replaceAt(inner, rest, replace) };
}
