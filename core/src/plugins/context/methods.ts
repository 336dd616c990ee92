/*
 * The plugin context's plain-data methods, described once: each entry names a method of the
 * SDK's PluginContext by its path (`topics.publish`), its kind, and a schema of its arguments.
 *
 * - `event`: applied and forgotten (a worker sends it; what it returns is dropped);
 * - `call`: the caller waits for the answer (a promise on both sides of a worker).
 *
 * The implementation is the ContextBuilder's (context.ts). Derived from this table: the
 * worker's proxy of each method (isolation/worker/worker-context.ts), the message that carries
 * it and the host's dispatch of it, its arguments checked by the schema since the worker runs
 * code the core does not trust (isolation/worker/worker-plugin.ts), and the wrapper that makes
 * an in-process plugin's call leave its containment scope (isolation/containment.ts).
 *
 * Written out by hand instead: methods that hand over functions (`topics.declare`,
 * `scheduler.*`, `prices.declare`, `site.subscribe`, `site.onWrite`), which a worker holds
 * under ids and containment runs in the plugin's scope; `ctx.integration`, which only an
 * in-process plugin has; and the plain values (`instanceId`, `devices`, `site.timeZone`...),
 * which a worker gets once in its start message.
 */
import { z } from 'zod';
import type { PluginContext } from '@heliograph/plugins-sdk';

const record = z.record(z.string(), z.unknown());
const topicFilter = z.union([z.string(), z.array(z.string())]).optional();

const event = <T extends z.ZodTuple>(args: T) => ({ kind: 'event' as const, args });
const call = <T extends z.ZodTuple>(args: T) => ({ kind: 'call' as const, args });

/** Every plain-data method of `ctx` a worker forwards, by path. */
export const CTX_METHODS = {
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
  'status.error': event(z.tuple([z.object({ message: z.unknown() })])),
  'status.ok': event(z.tuple([])),
  'status.progress': event(z.tuple([z.unknown()])),
  'forecast.publish': event(z.tuple([record])),
  'prices.publish': event(z.tuple([record])),
  'store.get': call(z.tuple([z.string()])),
  'store.set': call(z.tuple([z.string(), z.unknown()])),
  'store.delete': call(z.tuple([z.string()])),
  'site.definitions': call(z.tuple([])),
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
  'site.write': call(z.tuple([z.object({ topic: z.string(), value: z.union([z.string(), z.number(), z.boolean()]) })])),
} satisfies Partial<Record<MethodPath, { kind: 'event' | 'call'; args: z.ZodTuple }>>;

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
export function ctxMethods(
  make: (path: CtxMethod, kind: 'event' | 'call') => (...args: unknown[]) => unknown,
): CtxMethods {
  const areas: Record<string, Record<string, (...args: unknown[]) => unknown>> = {};
  for (const path of ctxMethodNames) {
    const [area, name] = path.split('.') as [string, string];
    (areas[area] ??= {})[name] = make(path, CTX_METHODS[path].kind);
  }
  return areas as unknown as CtxMethods;
}
