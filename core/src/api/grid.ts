import Router from '@koa/router';
import type { PriceBook } from '../grid/book.js';

/** GET /api/v1/grid: the grid provider and its price slots (no parameters). */
export function gridRoutes(deps: { book: PriceBook }): Router {
  const router = new Router();
  router.get('/grid', (ctx) => {
    ctx.body = deps.book.toResponse();
  });
  return router;
}
