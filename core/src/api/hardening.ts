import type { Context, Next } from 'koa';
import { ApiError } from './errors.js';
import type { HostPolicy } from './host-policy.js';

/**
 * `nosniff` on every answer, so a browser never runs an error message or a metric value as
 * script or page. Set before anything else runs, so error answers carry it too.
 */
export function securityHeaders() {
  return async function securityHeaders(ctx: Context, next: Next): Promise<void> {
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  };
}

/** Refuses requests whose Host or Origin a browser attack would produce (see HostPolicy). */
export function hostAndOriginCheck(policy: HostPolicy) {
  return async function hostAndOriginCheck(ctx: Context, next: Next): Promise<void> {
    const host = ctx.get('host') || undefined;
    const hostProblem = policy.hostProblem(host);
    if (hostProblem) throw new ApiError(421, hostProblem);
    const originProblem = policy.originProblem(ctx.get('origin') || undefined, host);
    if (originProblem) throw new ApiError(403, originProblem);
    await next();
  };
}

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Writes take JSON only (415 otherwise). A cross-site HTML form can post `text/plain`,
 * form-encoded and multipart bodies without the browser asking first; it cannot post
 * `application/json`. A request without a body and without a content type passes, so a
 * plain DELETE works.
 */
export function requireJsonBody() {
  return async function requireJsonBody(ctx: Context, next: Next): Promise<void> {
    if (BODY_METHODS.has(ctx.method)) {
      const type = ctx.get('content-type');
      const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
      if ((type !== '' || hasBody) && !JSON_TYPE.test(type)) {
        throw new ApiError(
          415,
          `the body must be JSON sent with "Content-Type: application/json"${type ? `, not "${type.slice(0, 100)}"` : ''}`,
        );
      }
    }
    await next();
  };
}
