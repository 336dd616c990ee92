import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { listRoutes } from './routes.js';

/**
 * How a request path is compared with a gated route's: decoded, lower case, without empty
 * or `.` segments and with `..` applied, so `/METRICS/`, `//metrics` and `/%6detrics` all
 * read `/metrics`.
 */
export function canonicalPath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape is compared as it is.
  }
  const segments: string[] = [];
  for (const segment of decoded.toLowerCase().split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

type Gate = (ctx: Context, next: Next) => Promise<void>;

/**
 * Routes outside /api/v1 that need credentials (GET /metrics) share single-segment paths
 * with the public settings page (`/:file`). This gate sits in front of the public routes
 * and runs `authenticate` for any spelling of a gated route's path, so no spelling reaches
 * the page's routes (or a route) without credentials; every other request passes untouched.
 */
export function rootGate(routers: readonly Router[], authenticate: Gate): Gate {
  const gated = new Set(listRoutes(routers, '').map((route) => canonicalPath(route.path)));
  return (ctx, next) => (gated.has(canonicalPath(ctx.path)) ? authenticate(ctx, next) : next());
}
