import type { Context, Next } from 'koa';
import { createLogger } from '../log.js';

const log = createLogger('api');

/** An error the API answers with its status and `{"error": message}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * Turns every failure into `{"error": "..."}` with the right status: ApiErrors as they are,
 * koa's own (body parser, ctx.throw) with their status, anything else as 500 with a log line.
 */
export function errorHandler() {
  return async function errorHandler(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError(404, `no such endpoint: ${ctx.method} ${ctx.path}`);
    } catch (err) {
      const status = err instanceof ApiError ? err.status : httpStatusOf(err);
      const message = status >= 500 && !(err instanceof ApiError) ? 'internal error' : (err as Error).message;
      if (status >= 500) log.error(`${ctx.method} ${ctx.path} failed`, { err });
      ctx.status = status;
      ctx.body = { error: message };
      if (err instanceof ApiError) ctx.set(err.headers);
    }
  };
}

function httpStatusOf(err: unknown): number {
  const status = (err as { status?: unknown })?.status;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}
