import Router from '@koa/router';
import { scope } from '../auth/scopes.js';
import type { PluginHost } from '../plugins/host.js';
import { NO_QUERY, parseQuery } from './query.js';

/** GET /api/v1/plugins: every instance with its state, last error and last good poll. */
export function pluginsRoutes(deps: { host: PluginHost }): Router {
  const router = new Router();
  router.get('/plugins', scope('admin'), (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    ctx.body = deps.host.status();
  });
  return router;
}
