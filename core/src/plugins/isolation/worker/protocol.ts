/*
 * The messages between a plugin's worker process and the host-side context that serves it.
 * The worker holds the plugin's functions (job runs, write handlers, subscriptions) under
 * numeric ids; the host holds the registrations (topics, jobs, prices) and calls back by id.
 * Messages from the worker are checked with these schemas: the worker runs code the core
 * does not trust.
 */
import type { DeviceKind } from '@heliograph/plugins-sdk';
import { z } from 'zod';
import { ctxMethodNames } from '../../context/methods.js';

const id = z.number().int().nonnegative();
const record = z.record(z.string(), z.unknown());

/** An error's name and a refusal's answer travel with its message, so the host tells them apart. */
const errorFields = { error: z.string().optional(), errorName: z.string().optional(), answer: z.string().optional() };

/** What a worker sends. `call` numbers a request that expects a `reply`. */
export const fromWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('setup-done'), ok: z.boolean(), ...errorFields }),
  z.object({ type: z.literal('pong') }),
  /** Something nobody handled escaped the plugin; the process exits right after. */
  z.object({ type: z.literal('crashed'), ...errorFields }),
  z.object({
    type: z.literal('log'),
    level: z.enum(['debug', 'info', 'warn', 'error']),
    message: z.string(),
    fields: record.optional(),
  }),
  /** The registration under `id` (a method of kind `register`) is disposed of. */
  z.object({ type: z.literal('dispose'), id }),
  z.object({ type: z.literal('http-timeout'), message: z.string() }),
  /** ctx.http refused a host its grants do not name (GRANT_MISSING). */
  z.object({ type: z.literal('http-refused'), host: z.string().max(300), message: z.string().max(2000) }),
  /** The sandbox refused a call of the plugin (ERR_ACCESS_DENIED): refusals.ts. */
  z.object({
    type: z.literal('denied'),
    permission: z.string().max(100),
    resource: z.string().max(4096),
    api: z.string().max(200),
  }),
  /**
   * A method of the context as context/methods.ts describes it; `call` when the worker waits for
   * the answer, `id` for a registration. Its arguments are checked against the method's own
   * schema when it is applied.
   */
  z.object({
    type: z.literal('ctx'),
    method: z.enum(ctxMethodNames),
    args: z.array(z.unknown()),
    call: id.optional(),
    id: id.optional(),
  }),
  z.object({ type: z.literal('reply'), call: id, ok: z.boolean(), ...errorFields }),
]);

export type FromWorker = z.infer<typeof fromWorkerSchema>;

/**
 * Several messages of one run, applied by the host in order in one synchronous run, so what
 * they publish makes one tick. Each is checked with {@link fromWorkerSchema}.
 */
export const batchSchema = z.object({ type: z.literal('batch'), messages: z.array(z.unknown()).min(1) });

/** The fields of {@link errorFields} for an error thrown in the worker. */
export function errorToFields(err: unknown): { error: string; errorName?: string; answer?: string } {
  const e = err as { name?: unknown; answer?: unknown } | null;
  return {
    error: err instanceof Error ? err.message : String(err),
    ...(typeof e?.name === 'string' ? { errorName: e.name } : {}),
    ...(typeof e?.answer === 'string' ? { answer: e.answer } : {}),
  };
}

/** The error again on the host's side: same message, name and answer. */
export function errorFromFields(fields: { error?: string; errorName?: string; answer?: string }): Error {
  const err = new Error(fields.error ?? 'failed') as Error & { answer?: string };
  if (fields.errorName) err.name = fields.errorName;
  if (fields.answer !== undefined) err.answer = fields.answer;
  return err;
}

/** What the host sends. */
export type ToWorker =
  /** The first message: what the process is to run. */
  | { type: 'start'; start: WorkerStart }
  | { type: 'ping' }
  | { type: 'stop' }
  /** Runs a function held under `id` that the host waits for (a `call` callback: a job, a write handler). */
  | { type: 'call'; call: number; id: number; args: unknown[] }
  /** Runs a function held under `id` and answers nothing (an `event` callback: a subscription). */
  | { type: 'callback'; id: number; args: unknown[] }
  | { type: 'reply'; call: number; ok: true; value?: unknown }
  /** `code`: a refusal's stable code (`STORE_QUOTA_EXCEEDED`), set on the error the plugin sees. */
  | { type: 'reply'; call: number; ok: false; error: string; code?: string };

/** What the worker process is started with (its first message, structured-cloned). */
export interface WorkerStart {
  entry: string;
  instanceId: string;
  /** Each device's `config` is as plugins.json holds it; the worker parses it with the plugin's schema. */
  devices: Array<{
    id: string;
    kind: DeviceKind;
    number: number;
    name: string;
    config: Record<string, unknown>;
  }>;
  site: { timeZone: string; latitude: number; longitude: number; temperatureUnit: 'C' | 'F' };
  /** The instance's config as plugins.json holds it; the worker parses it with the plugin's schema. */
  config: unknown;
  http: { maxResponseBytes: number; timeoutMs: number; maxJsonDepth: number };
  /** The hosts ctx.http may reach (the instance's grants); absent: any. */
  hosts?: string[];
}
