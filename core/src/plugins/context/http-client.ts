import type { Got } from 'got';
import { createBoundedHttp } from './bounded-got.js';

/**
 * `ctx.http` as the context builder makes it (the HTTP_CLIENT registration): bounded by the
 * default limits, and like every bounded client it loads got on first use only (see
 * bounded-got.ts). An in-process plugin's setup gets its instance's own limits and
 * time-out reports instead (isolation/isolation.ts); a worker makes its client in its thread.
 */
export function createHttpClient(signal: AbortSignal, retryDelayMs?: number): Got {
  return createBoundedHttp({ signal, retryDelayMs });
}
