import { z } from 'zod';

/** Bounds on a plugin instance that runs in a process of its own (`worker` in plugins.json, its first name). */
export interface WorkerLimits {
  /** V8 old-generation heap of the plugin's process; a leak past it ends that process, not the server. */
  maxMemoryMb: number;
  /**
   * A process whose event loop spends this much CPU time without answering a ping is
   * terminated (six times as long of wall clock without CPU, too).
   */
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
      .describe("Heap limit of the plugin's process in MB (default 128)."),
    watchdogMs: z
      .number()
      .int()
      .min(100)
      .max(10 * 60_000)
      .optional()
      .describe("CPU time in ms the plugin's process may spend without answering a ping (default 10000)."),
  })
  .strict();

export function workerLimitsOf(configured: z.infer<typeof workerLimitsSchema> | undefined): WorkerLimits {
  return {
    ...DEFAULT_WORKER_LIMITS,
    ...Object.fromEntries(Object.entries(configured ?? {}).filter(([, v]) => v !== undefined)),
  };
}
