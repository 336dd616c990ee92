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
    if (hostProblem) throw new ApiError('HOST_NOT_ALLOWED', hostProblem);
    const originProblem = policy.originProblem(ctx.get('origin') || undefined, host);
    if (originProblem) throw new ApiError('ORIGIN_NOT_ALLOWED', originProblem);
    await next();
  };
}
