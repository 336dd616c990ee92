import { z } from 'zod';

/**
 * Bounds on one plugin instance's outbound HTTP (`ctx.http`). A provider answer of 200 MB
 * once took the process to 900 MB; real forecast and price answers stay below 1 MB.
 */
export interface HttpLimits {
  /** Answers larger than this are cut off and fail the request. */
  maxResponseBytes: number;
  /** Time for one attempt, connect to last byte; a hanging upstream fails after it. */
  timeoutMs: number;
  /** Deepest JSON nesting `.json()` accepts. */
  maxJsonDepth: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  maxResponseBytes: 10 * 1024 * 1024,
  timeoutMs: 15_000,
  maxJsonDepth: 64,
};

/** The `http` key of a plugins.json instance entry; every field optional. */
export const httpLimitsSchema = z
  .object({
    maxResponseBytes: z
      .number()
      .int()
      .min(1024)
      .max(512 * 1024 * 1024)
      .optional()
      .describe('Largest answer accepted, in bytes (default 10 MiB).'),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(10 * 60_000)
      .optional()
      .describe('Time for one request attempt in ms (default 15000).'),
    maxJsonDepth: z.number().int().min(2).max(1000).optional().describe('Deepest JSON nesting accepted (default 64).'),
  })
  .strict();

export function httpLimitsOf(configured: z.infer<typeof httpLimitsSchema> | undefined): HttpLimits {
  return {
    ...DEFAULT_HTTP_LIMITS,
    ...Object.fromEntries(Object.entries(configured ?? {}).filter(([, v]) => v !== undefined)),
  };
}
