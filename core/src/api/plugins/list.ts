import Router from '../router.js';
import { scope } from '../auth.js';
import type { InstanceStatus, PluginHost } from '../../plugins/host/host.js';
import type { ProgressBoard } from '../../plugins/context/progress.js';
import { NO_QUERY, parseQuery } from '../query.js';

/**
 * GET /api/v1/plugins: every instance with its state, last error and last good poll, then
 * `extra` rows for core services shaped the same (the `history` entry). Each instance has the
 * progress of its long task (`ctx.status.progress`), null when none.
 */
export function pluginsRoutes(deps: {
  host: PluginHost;
  extra?: () => InstanceStatus[];
  progress?: ProgressBoard;
}): Router {
  const router = new Router();
  router.get('/plugins', scope('admin'), (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    const instances = deps.host
      .status()
      .map((status) => ({ ...status, progress: deps.progress?.of(status.id) ?? null }));
    ctx.body = [...instances, ...(deps.extra?.() ?? [])];
  });
  return router;
}
