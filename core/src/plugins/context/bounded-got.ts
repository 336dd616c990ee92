/*
 * The got instance behind `ctx.http`: time-outs and retries, a cap on the answer's size, JSON
 * parsed only when its nesting is sane, and time-outs reported to the plugin's status as they
 * happen (a hanging upstream must not leave the plugin "running, no error" while it retries).
 */
import { createRequire } from 'node:module';
import type { Got, HandlerFunction, Progress, RequestError, RequestPromise } from 'got';
import { assertJsonDepth } from '@heliograph/plugins-sdk';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../instances/http-limits.js';
import { GrantMissingError, hostRefusal } from '../instances/grants.js';

const require = createRequire(import.meta.url);

export interface BoundedHttpOptions {
  signal: AbortSignal;
  limits?: HttpLimits;
  /** Called on each attempt that timed out, with a message for the plugin's status. */
  onTimeout?(message: string): void;
  /**
   * Longest wait before a retry, in ms. Default: got's back-off, 1 s then 2 s (with up to
   * 100 ms of noise). The plugin test host shortens it so a test of a 5xx does not sleep.
   */
  retryDelayMs?: number;
  /**
   * The hosts the instance's grants let it reach (instances/grants.ts); a request to another
   * is refused before it leaves, with `code: 'GRANT_MISSING'`. Undefined: any host.
   */
  hosts?: readonly string[];
  /** Called with each refused host and the refusal's sentence (the host logs and audits it). */
  onHostRefused?(host: string, message: string): void;
}

/** An answer cut off at the instance's size limit. */
export class ResponseTooLargeError extends Error {
  constructor(
    readonly url: string,
    readonly limit: number,
  ) {
    super(
      `the answer from ${url} is larger than ${formatBytes(limit)}, the plugin's limit; it was not read further ` +
        '(raise "http": { "maxResponseBytes": ... } of the instance in plugins.json if the service really sends that much)',
    );
    this.name = 'ResponseTooLargeError';
  }
}

/**
 * got is loaded on a plugin's first use of `ctx.http`, not at start: it is the largest
 * module the server would load, and most device plugins never make an HTTP call (on a
 * Raspberry Pi the 10 MB matter). Node 22.12+ can require an ES module such as got.
 */
export function createBoundedHttp(options: BoundedHttpOptions): Got {
  const got = (require('got') as typeof import('got')).default;
  const limits = options.limits ?? DEFAULT_HTTP_LIMITS;
  const reportTimeout = (error: RequestError, retrying: boolean) => {
    if (error.name !== 'TimeoutError' || !options.onTimeout) return;
    const url = withoutQuery(error.options?.url);
    options.onTimeout(
      `HTTP ${error.options?.method ?? 'GET'} ${url} got no complete answer within ${seconds(limits.timeoutMs)}${retrying ? '; retrying' : ''}`,
    );
  };
  return got.extend({
    timeout: { request: limits.timeoutMs },
    retry: {
      limit: 2,
      methods: ['GET', 'POST'],
      statusCodes: [408, 500, 502, 503, 504, 521, 522, 524],
      ...(options.retryDelayMs !== undefined && { backoffLimit: options.retryDelayMs, noise: 0 }),
    },
    signal: options.signal,
    parseJson: (text: string) => {
      assertJsonDepth(text, limits.maxJsonDepth, 'the answer');
      return JSON.parse(text) as unknown;
    },
    handlers: [sizeLimit(limits.maxResponseBytes)],
    hooks: {
      // Each request, redirects included: a granted host cannot redirect to one not granted.
      ...(options.hosts && {
        beforeRequest: [checkHost(options.hosts, (host, message) => options.onHostRefused?.(host, message))],
        beforeRedirect: [checkHost(options.hosts, (host, message) => options.onHostRefused?.(host, message))],
      }),
      beforeRetry: [(error: RequestError) => reportTimeout(error, true)],
      beforeError: [
        (error: RequestError) => {
          reportTimeout(error, false);
          return error;
        },
      ],
    },
  });
}

/** A hook that refuses a request to a host not among `hosts`. */
function checkHost(hosts: readonly string[], refused?: (host: string, message: string) => void) {
  return (options: { url?: URL | string }): void => {
    let host: string;
    try {
      host = new URL(String(options.url)).hostname;
    } catch {
      return;
    }
    const message = hostRefusal(hosts, host);
    if (message === undefined) return;
    refused?.(host, message);
    throw new GrantMissingError(message);
  };
}

/** Cuts a download off once it passes `limit` bytes, or at once when Content-Length says it will. */
function sizeLimit(limit: number): HandlerFunction {
  return <T>(options: Parameters<HandlerFunction>[0], next: (options: Parameters<HandlerFunction>[0]) => T): T => {
    const url = withoutQuery(options.url);
    const over = (progress: Progress) =>
      progress.transferred > limit || (progress.total !== undefined && progress.total > limit);
    if (options.isStream) {
      const stream = next(options) as unknown as NodeJS.ReadableStream & { destroy(error: Error): void };
      stream.on('downloadProgress', (progress: Progress) => {
        if (over(progress)) stream.destroy(new ResponseTooLargeError(url, limit));
      });
      return stream as unknown as T;
    }
    // A promise has no cancel() since got 15: the request is stopped through a signal of its own,
    // joined with the plugin's.
    const stop = new AbortController();
    options.signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    const request = next(options) as unknown as RequestPromise;
    let tooLarge: ResponseTooLargeError | undefined;
    // `on` hands back the request itself, a promise: it is awaited (and its failure handled) below.
    void request.on('downloadProgress', (progress: Progress) => {
      if (tooLarge || !over(progress)) return;
      tooLarge = new ResponseTooLargeError(url, limit);
      stop.abort(tooLarge);
    });
    // got copies `.json()` and `.text()` onto the promise a handler returns.
    return (async () => {
      try {
        return await request;
      } catch (err) {
        throw tooLarge ?? err;
      }
    })() as unknown as T;
  };
}

function withoutQuery(url: URL | string | undefined): string {
  if (url === undefined) return 'the service';
  try {
    const parsed = new URL(String(url));
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return String(url);
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${+(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}
