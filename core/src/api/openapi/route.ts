import Router from '../router.js';
import { scope } from '../auth.js';
import { NO_QUERY, parseQuery } from '../query.js';
import type { RouteInfo } from '../routes.js';

/**
 * GET /api/v1/openapi.json: the OpenAPI 3.1 document of every route the app registers.
 * Scope read, as every API call needs credentials (the contract). `routes` is read at the
 * first request, when every router (this one included) is registered; the document is
 * built once. Its code (every resource's description, the schemas' conversion) is loaded at
 * that first request too: nothing the service's start or its first answer needs.
 */
export function openApiRoutes(deps: { routes: () => RouteInfo[]; version: string }): Router {
  const router = new Router();
  let document: string | undefined;
  router.get('/openapi.json', scope('read'), async (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    if (document === undefined) {
      const { openApiDocument } = await import('./document.js');
      document ??= JSON.stringify(openApiDocument(deps.routes(), deps.version));
    }
    ctx.type = 'application/json';
    ctx.body = document;
  });
  return router;
}
