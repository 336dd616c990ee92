import type Router from '@koa/router';
import { scope, type ScopedMiddleware } from './auth.js';
import type { Scope } from '../auth/types.js';

/** One registered route as the routers hold it: method, path pattern and who may call it. */
export interface RouteInfo {
  method: string;
  /** The path pattern with its prefix, e.g. `/api/v1/tokens/:id`. */
  path: string;
  /** The scope the route declares, or `public` for routes that answer without credentials. */
  scope: Scope | 'public';
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function declaredScope(layer: Router['stack'][number]): Scope | undefined {
  const scoped = layer.stack.find(
    (m): m is ScopedMiddleware => typeof (m as Partial<ScopedMiddleware>).scope === 'string',
  );
  return scoped?.scope;
}

/**
 * A route that declares no scope needs admin: forgetting the declaration must never open a
 * route to read-only tokens. The route list (and its test) still shows every scope.
 */
export function requireDeclaredScopes(routers: readonly Router[]): void {
  for (const router of routers) {
    for (const layer of router.stack) {
      if (layer.methods.length > 0 && declaredScope(layer) === undefined) layer.stack.unshift(scope('admin'));
    }
  }
}

/** Every route of the routers, read from their registered layers (not a hand-kept list). */
export function listRoutes(routers: readonly Router[], prefix: string, isPublic = false): RouteInfo[] {
  const routes: RouteInfo[] = [];
  for (const router of routers) {
    for (const layer of router.stack) {
      const path = prefix + String(layer.path);
      const routeScope = isPublic ? 'public' : (declaredScope(layer) ?? 'admin');
      for (const method of layer.methods)
        if (METHODS.includes(method)) routes.push({ method, path, scope: routeScope });
    }
  }
  return routes;
}
