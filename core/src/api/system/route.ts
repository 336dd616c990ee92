import Router from '../router.js';
import { z } from 'zod';
import { scope } from '../auth.js';
import type { SystemInfo } from '../../system/info.js';
import { discoveryParam } from '../discovery-param.js';
import { parseQuery } from '../query.js';

export const systemQuery = z.strictObject({ discovery: discoveryParam });

/**
 * GET /api/v1/system: the unit's `system/*` rows (site id, software version, CPU
 * temperature, free storage, uptime), the same ones the WebSocket `system` event carries.
 */
export function systemRoutes(deps: { system: SystemInfo }): Router {
  const router = new Router();
  router.get('/system', scope('read'), async (ctx) => {
    const query = parseQuery(systemQuery, ctx.query);
    ctx.body = await deps.system.rows(query.discovery);
  });
  return router;
}
