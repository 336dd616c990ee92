import type { Context, Next } from 'koa';
import { STATUS_CODES } from './node-http.js';
import { createLogger } from '../log.js';
import { ApiError, errorBody } from '../contract/api-error.js';
import type { ErrorCode } from '../contract/error-codes.js';

export { ApiError, errorBody };

const log = createLogger('api');

/**
 * Turns every failure into `{"error": "...", "code": "..."}` with the right status: ApiErrors
 * as they are, koa's own (ctx.throw) and the router's (404, 405, 501) with their status,
 * anything else as 500 with a log line.
 */
export function errorHandler() {
  return async function errorHandler(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      // No route answered: koa's 404 and the router's 405/501 would go out as plain text.
      if (ctx.status >= 400 && ctx.body === undefined) {
        const status = ctx.status;
        ctx.body = unansweredBody(ctx);
        // Setting a body turns koa's implicit 404 into 200.
        ctx.status = status;
      }
    } catch (err) {
      const diskFull = isDiskFull(err);
      const status = err instanceof ApiError ? err.status : diskFull ? 507 : httpStatusOf(err);
      const internal = status >= 500 && !(err instanceof ApiError) && !diskFull;
      const message = diskFull ? DISK_FULL_MESSAGE : internal ? 'internal error' : (err as Error).message;
      const code: ErrorCode =
        err instanceof ApiError ? err.code : diskFull ? 'DISK_FULL' : internal ? 'INTERNAL_ERROR' : 'REQUEST_REFUSED';
      // A 503 is the service shedding load on purpose (password checks): one line per refused
      // request would flood the log exactly when it is under attack.
      if (status >= 500 && status !== 503) log.error(`${ctx.method} ${ctx.path} failed`, { err });
      ctx.status = status;
      // Field-level problems (see field-issues.ts) travel next to the message, for forms.
      const issues = (err as { issues?: unknown }).issues;
      ctx.body =
        err instanceof ApiError && Array.isArray(issues)
          ? { ...errorBody(message, code), issues }
          : errorBody(message, code);
      if (err instanceof ApiError) ctx.set(err.headers);
    }
  };
}

function unansweredBody(ctx: Context): { error: string; code: ErrorCode } {
  switch (ctx.status) {
    case 404:
      return errorBody(`no such endpoint: ${ctx.method} ${ctx.path}`, 'ENDPOINT_NOT_FOUND');
    case 405:
      return errorBody(
        `${ctx.method} is not allowed on ${ctx.path}: use ${ctx.response.get('Allow')}`,
        'METHOD_NOT_ALLOWED',
      );
    case 501:
      return errorBody(`the method ${ctx.method} is not supported`, 'METHOD_NOT_SUPPORTED');
    default:
      return errorBody(
        STATUS_CODES[ctx.status] ?? `HTTP ${ctx.status}`,
        ctx.status >= 500 ? 'INTERNAL_ERROR' : 'REQUEST_REFUSED',
      );
  }
}

const DISK_FULL_MESSAGE =
  'the disk holding the data directory is full: nothing was saved; free some space (or lower history.diskBudgetMb), then try again';

/** SQLite's "database or disk is full" and the file system's ENOSPC: the user can act on it. */
function isDiskFull(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return (
    code === 'SQLITE_FULL' || code === 'ENOSPC' || (err instanceof Error && /SQLITE_FULL|ENOSPC/.test(err.message))
  );
}

function httpStatusOf(err: unknown): number {
  const status = (err as { status?: unknown })?.status;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}
