import Router from '@koa/router';
import { z } from 'zod';
import type { AuditLog } from '../writes/audit.js';
import { parseQuery } from './query.js';

const auditQuery = z.object({
  limit: z.coerce.number({ error: 'limit must be a whole number from 1 to 1000' }).int('limit must be a whole number from 1 to 1000').min(1, 'limit must be a whole number from 1 to 1000').max(1000, 'limit must be a whole number from 1 to 1000').default(100),
});

/** GET /api/v1/audit?limit=N: write attempts, newest first. */
export function auditRoutes(deps: { audit: AuditLog }): Router {
  const router = new Router();
  router.get('/audit', async (ctx) => {
    const { limit } = parseQuery(auditQuery, ctx.query);
    ctx.body = await deps.audit.list(limit);
  });
  return router;
}
