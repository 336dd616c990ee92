import Router from '@koa/router';
import type { InstanceStatus, PluginHost } from '../plugins/host.js';

/**
 * GET /api/v1/plugins: every instance with its state, last error and last good poll, then
 * `extra` rows for core services shaped the same (the `history` entry).
 */
export function pluginsRoutes(deps: { host: PluginHost; extra?: () => InstanceStatus[] }): Router {
  const router = new Router();
  router.get('/plugins', (ctx) => {
    ctx.body = [...deps.host.status(), ...(deps.extra?.() ?? [])];
  });
  return router;
}
