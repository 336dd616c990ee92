import Router from '@koa/router';
import { scope } from '../../auth/scopes.js';
import type { PriceBook } from '../../grid/book.js';
import { NO_QUERY, parseQuery } from '../query.js';

/** GET /api/v1/grid: the grid provider and its price slots (no parameters). */
export function gridRoutes(deps: { book: PriceBook }): Router {
  const router = new Router();
  router.get('/grid', scope('read'), (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    ctx.body = deps.book.toResponse();
  });
  return router;
}
