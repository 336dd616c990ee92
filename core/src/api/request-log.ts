/**
 * The request log, at `debug`: one line per request when its answer is done, with method,
 * path, status, time taken and client address. Query values that may be secrets (the
 * stream's `?password=`, tokens, keys) are never written. Taken at the HTTP server, so the
 * fast lane's answers are logged as koa's are.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createLogger, errorMessage, isLogEnabled } from '../log.js';

const log = createLogger('http');

const SECRET = /pass|token|secret|key|auth|code|sig/i;

/** The request's path and query, with the values of secret-looking parameters replaced by `***`. */
export function loggedPath(url: string | undefined): string {
  const raw = url ?? '/';
  const at = raw.indexOf('?');
  if (at < 0) return raw;
  const params = raw
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq >= 0 && SECRET.test(decodeURIComponentSafe(name)) ? `${name}=***` : pair;
    });
  return `${raw.slice(0, at)}?${params.join('&')}`;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Logs the request once its answer is finished or the client went away; nothing unless the level is debug. */
export function logRequest(req: IncomingMessage, res: ServerResponse): void {
  if (!isLogEnabled('debug')) return;
  const started = process.hrtime.bigint();
  const done = () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const status = res.writableFinished ? String(res.statusCode) : `${res.statusCode} (client went away)`;
    log.debug(`${req.method} ${loggedPath(req.url)} ${status} ${ms.toFixed(1)} ms ${req.socket.remoteAddress ?? '-'}`);
  };
  res.once('close', done);
}

/**
 * koa's 'error' event: without a listener koa prints errors with console.error, without a
 * time. A client that goes away mid-answer (ERR_STREAM_PREMATURE_CLOSE, ECONNRESET) is not
 * the service's error and is logged at debug; anything else at error.
 */
export function logAppError(err: unknown, ctx?: { method?: string; path?: string }): void {
  const code = (err as { code?: unknown })?.code;
  const where = ctx?.method ? ` (${ctx.method} ${ctx.path ?? ''})` : '';
  if (code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || code === 'EPIPE')
    log.debug(`client went away mid-answer${where}: ${code}`);
  else log.error(`request failed${where}: ${errorMessage(err)}`, { code });
}
