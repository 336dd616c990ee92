/*
 * Authentication and scopes as the API applies them: credentials read from a request's
 * header or an upgrade's query, `requireAuth` in front of every route, `scope(...)` on each
 * route, and the error each refusal answers with. What the credentials and scopes mean is the
 * auth layer's (auth/service.ts, auth/scopes.ts).
 */
import type { Context, Middleware, Next, ParameterizedContext } from 'koa';
import { rememberingLast } from '../auth/rules.js';
import { scopeAllows, scopeMessage } from '../auth/scopes.js';
import type { Authenticator, AuthOutcome, Credentials, Identity, Scope } from '../auth/types.js';
import { ApiError } from '../contract/api-error.js';

/**
 * Reads `Authorization: Basic <any user>:<password>` or `Authorization: Bearer <token>`.
 * The API contract (docs/api.md, "Authentication"): the password is what counts, any user name is accepted (an official client
 * sends `solar-assistant`).
 */
export function credentialsFromHeader(header: string | undefined): Credentials | undefined {
  if (!header) return undefined;
  const space = header.indexOf(' ');
  if (space < 0) return undefined;
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (scheme === 'bearer' && value) return { kind: 'token', secret: value };
  if (scheme === 'basic') return basicCredentials(value);
  return undefined;
}

const basicCredentials = rememberingLast((value): Credentials | undefined => {
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { kind: 'password', secret: decoded.slice(colon + 1) };
});

/** Credentials of a WebSocket upgrade: `?password=` or `?token=`, else the Authorization header. */
export function credentialsFromQuery(query: URLSearchParams, header: string | undefined): Credentials | undefined {
  const token = query.get('token');
  if (token) return { kind: 'token', secret: token };
  const password = query.get('password');
  if (password) return { kind: 'password', secret: password };
  return credentialsFromHeader(header);
}

/** The error a refused outcome answers with (401 with the Bearer challenge, 403, 429 with Retry-After). */
export function authError(outcome: Extract<AuthOutcome, { ok: false }>, realm: string): ApiError {
  const headers: Record<string, string> = {};
  if (outcome.status === 401) headers['WWW-Authenticate'] = `Bearer realm="${realm}"`;
  if ((outcome.status === 429 || outcome.status === 503) && outcome.retryAfterS !== undefined)
    headers['Retry-After'] = String(outcome.retryAfterS);
  return new ApiError(AUTH_CODES[outcome.status], outcome.message, headers);
}

/** The code of each refusal (auth's only 403 is "no password set yet"). */
const AUTH_CODES = {
  401: 'AUTH_FAILED',
  403: 'NO_PASSWORD_SET',
  429: 'TOO_MANY_ATTEMPTS',
  503: 'AUTH_BUSY',
} as const satisfies Record<Extract<AuthOutcome, { ok: false }>['status'], string>;

/** Lets a request through only with valid credentials; sets `ctx.state.who` and `ctx.state.identity`. */
export function requireAuth(options: { auth: Authenticator; realm: string }) {
  return async function requireAuth(ctx: Context, next: Next): Promise<void> {
    const outcome = await options.auth.authenticate(
      credentialsFromHeader(ctx.get('authorization') || undefined),
      ctx.ip,
    );
    if (!outcome.ok) throw authError(outcome, options.realm);
    const { ok: _ok, ...identity } = outcome;
    ctx.state.who = outcome.who;
    ctx.state.identity = identity;
    await next();
  };
}

declare module 'koa' {
  interface DefaultState {
    /** Who signed in (set by requireAuth), as the audit log names them. */
    who: string;
  }
}

/** Middleware that carries its scope, so the route list can show what each route needs. */
export type ScopedMiddleware = Middleware & { readonly scope: Scope };

/**
 * A route's required scope, declared next to the route: `router.get('/x', scope('read'), handler)`.
 * It answers 403 naming both scopes when the signed-in client's is too small.
 */
export function scope(needed: Scope): ScopedMiddleware {
  const middleware = async (ctx: ParameterizedContext, next: Next) => {
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
