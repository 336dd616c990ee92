import Router from '@koa/router';
import { scope } from '../../auth/scopes.js';
import { NO_QUERY, parseQuery } from '../query.js';
import type { RouteInfo } from '../routes.js';
import { openApiDocument } from './document.js';

/**
 * GET /api/v1/openapi.json: the OpenAPI 3.1 document of every route the app registers.
 * Scope read, as every API call needs credentials (the contract). `routes` is read at the
 * first request, when every router (this one included) is registered; the document is
 * built once.
 */
export function openApiRoutes(deps: { routes: () => RouteInfo[]; version: string }): Router {
  const router = new Router();
  let document: string | undefined;
  router.get('/openapi.json', scope('read'), (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    document ??= JSON.stringify(openApiDocument(deps.routes(), deps.version));
    ctx.type = 'application/json';
    ctx.body = document;
  });
  return router;
}
