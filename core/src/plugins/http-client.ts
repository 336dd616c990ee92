import { createRequire } from 'node:module';
import type { Got } from 'got';

const require = createRequire(import.meta.url);

/**
 * `ctx.http`. got is loaded on a plugin's first use of it, not at start: it is the largest
 * module the server would load, and most device plugins never make an HTTP call (on a
 * Raspberry Pi the 10 MB matter). Node 20.19+ can require an ES module such as got.
 */
export function createHttpClient(signal: AbortSignal): Got {
  const { got } = require('got') as typeof import('got');
  return got.extend({
    timeout: { request: 15_000 },
    retry: { limit: 2, methods: ['GET', 'POST'], statusCodes: [408, 500, 502, 503, 504, 521, 522, 524] },
    signal,
  });
}
