import Router from '@koa/router';
import type { PluginHost } from '../plugins/host.js';

/** GET /api/v1/plugins: every instance with its state, last error and last good poll. */
export function pluginsRoutes(deps: { host: PluginHost }): Router {
  const router = new Router();
  router.get('/plugins', (ctx) => {
    ctx.body = deps.host.status();
  });
  return router;
}
