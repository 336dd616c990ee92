import Router from '../router.js';
import { z } from 'zod';
import { scope } from '../auth.js';
import type { AuditLog } from '../../writes/audit.js';
import { parseQuery } from '../query.js';

// The schema's own error also words the failures of its checks (int, min, max).
export const auditQuery = z.strictObject({
  limit: z.coerce.number({ error: 'limit must be a whole number from 1 to 1000' }).int().min(1).max(1000).default(100),
});

/** GET /api/v1/audit?limit=N: write attempts, newest first. */
export function auditRoutes(deps: { audit: AuditLog }): Router {
  const router = new Router();
  router.get('/audit', scope('admin'), async (ctx) => {
    const { limit } = parseQuery(auditQuery, ctx.query);
    ctx.body = await deps.audit.list(limit);
  });
  return router;
}
