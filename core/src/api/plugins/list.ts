import Router from '@koa/router';
import { scope } from '../../auth/scopes.js';
import type { InstanceStatus, PluginHost } from '../../plugins/host/host.js';
import { NO_QUERY, parseQuery } from '../query.js';

/**
 * GET /api/v1/plugins: every instance with its state, last error and last good poll, then
 * `extra` rows for core services shaped the same (the `history` entry).
 */
export function pluginsRoutes(deps: { host: PluginHost; extra?: () => InstanceStatus[] }): Router {
  const router = new Router();
  router.get('/plugins', scope('admin'), (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    ctx.body = [...deps.host.status(), ...(deps.extra?.() ?? [])];
  });
  return router;
}
