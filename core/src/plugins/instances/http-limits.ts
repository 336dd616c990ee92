import { z } from 'zod';
import { limitField, withDefaults } from './limit-fields.js';

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
    maxResponseBytes: limitField(1024, 512 * 1024 * 1024, 'Largest answer accepted, in bytes (default 10 MiB).'),
    timeoutMs: limitField(100, 10 * 60_000, 'Time for one request attempt in ms (default 15000).'),
    maxJsonDepth: limitField(2, 1000, 'Deepest JSON nesting accepted (default 64).'),
  })
  .strict();

export function httpLimitsOf(configured: z.infer<typeof httpLimitsSchema> | undefined): HttpLimits {
  return withDefaults(DEFAULT_HTTP_LIMITS, configured);
}
