import Router from '../router.js';
import { z } from 'zod';
import { scope } from '../auth.js';
import { MAX_PRICE_RANGE_MS, type PriceBook } from '../../grid/book.js';
import { ApiError } from '../errors.js';
import { gridAnswer } from './answer.js';
import { parseQuery, rfc3339Param } from '../query.js';

/** Both or neither: without them the answer is today onwards, as before they existed. */
export const gridQuery = z.strictObject({ from: rfc3339Param('from'), to: rfc3339Param('to') });

/** GET /api/v1/grid: the grid provider and its price slots, today onwards or of [from, to). */
export function gridRoutes(deps: { book: PriceBook }): Router {
  const router = new Router();
  router.get('/grid', scope('read'), async (ctx) => {
    const { from, to } = parseQuery(gridQuery, ctx.query);
    if (from === undefined && to === undefined) {
      ctx.body = gridAnswer(deps.book.schedule());
      return;
    }
    if (from === undefined || to === undefined)
      throw new ApiError('GRID_RANGE_INVALID', 'from and to go together: give both or neither');
    if (from >= to) throw new ApiError('GRID_RANGE_INVALID', 'from must be before to');
    if (to - from > MAX_PRICE_RANGE_MS)
      throw new ApiError('GRID_RANGE_INVALID', 'from and to may be at most 367 days apart');
    ctx.body = gridAnswer(await deps.book.rangeSchedule(from, to));
  });
  return router;
}
