import { z } from 'zod';

/** Bounds on a plugin instance that runs in a worker process. */
export interface WorkerLimits {
  /** V8 old-generation heap of the worker; a leak past it ends the worker, not the process. */
  maxMemoryMb: number;
  /** A worker whose event loop does not answer a ping within this long is terminated. */
  watchdogMs: number;
}

export const DEFAULT_WORKER_LIMITS: WorkerLimits = { maxMemoryMb: 128, watchdogMs: 10_000 };

/** The `worker` key of a plugins.json instance entry; every field optional. */
export const workerLimitsSchema = z
  .object({
    maxMemoryMb: z
      .number()
      .int()
      .min(16)
      .max(4096)
      .optional()
      .describe('Heap limit of the worker in MB (default 128).'),
    watchdogMs: z
      .number()
      .int()
      .min(100)
      .max(10 * 60_000)
      .optional()
      .describe('Ping timeout of the worker in ms (default 10000).'),
  })
  .strict();

export function workerLimitsOf(configured: z.infer<typeof workerLimitsSchema> | undefined): WorkerLimits {
  return {
    ...DEFAULT_WORKER_LIMITS,
    ...Object.fromEntries(Object.entries(configured ?? {}).filter(([, v]) => v !== undefined)),
  };
}
