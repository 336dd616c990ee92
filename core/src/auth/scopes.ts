import type { Middleware, Next, ParameterizedContext as Context } from 'koa';
import { z } from 'zod';
import { ApiError } from '../api/api-error.js';
import type { Identity, Scope } from './types.js';

/**
 * Token scopes, each including the ones before it:
 * - `read`: snapshot, history, forecast, grid, system, the stream;
 * - `write`: also writes (POST /api/v1/metrics, the stream's `set`) and settings;
 * - `admin`: also tokens, plugins and their config, the audit log. The password is admin.
 */
export const SCOPES = ['read', 'write', 'admin'] as const satisfies readonly Scope[];

export const scopeSchema = z.enum(SCOPES, { error: `scope must be one of ${SCOPES.join(', ')}` });

export function scopeAllows(granted: Scope, needed: Scope): boolean {
  return SCOPES.indexOf(granted) >= SCOPES.indexOf(needed);
}

/** What a client is told when its token cannot do something. */
export function scopeMessage(identity: Identity, needed: Scope, what: string): string {
  return `token "${identity.who}" has scope ${identity.scope}, but ${what} needs scope ${needed}: create a token with "scope": "${needed}" (POST /api/v1/tokens, signed in with the password)`;
}

/** Middleware that carries its scope, so the route list can show what each route needs. */
export type ScopedMiddleware = Middleware & { readonly scope: Scope };

/**
 * A route's required scope, declared next to the route: `router.get('/x', scope('read'), handler)`.
 * It answers 403 naming both scopes when the signed-in client's is too small.
 */
export function scope(needed: Scope): ScopedMiddleware {
  const middleware = async (ctx: Context, next: Next) => {
    const identity = ctx.state.identity as Identity | undefined;
    if (!identity || !scopeAllows(identity.scope, needed)) {
      throw new ApiError(
        'SCOPE_TOO_LOW',
        identity
          ? scopeMessage(identity, needed, `${ctx.method} ${ctx.path}`)
          : `${ctx.method} ${ctx.path} needs scope ${needed}`,
      );
    }
    await next();
  };
  return Object.assign(middleware, { scope: needed });
}
