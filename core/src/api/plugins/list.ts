import Router from '../router.js';
import { scope } from '../auth.js';
import type { InstanceStatus, PluginHost } from '../../plugins/host/host.js';
import type { ProgressBoard } from '../../plugins/context/progress.js';
import { NO_QUERY, parseQuery } from '../query.js';
import { sourceRoleOf, type SourceRoles } from './source-role.js';

/**
 * GET /api/v1/plugins: every instance with its state, last error and last good poll, then
 * `extra` rows for core services shaped the same (the `history` entry). Each instance has the
 * progress of its long task (`ctx.status.progress`), null when none; a price or forecast
 * source its `source_role`.
 */
export function pluginsRoutes(deps: {
  host: PluginHost;
  extra?: () => InstanceStatus[];
  progress?: ProgressBoard;
  /** Each price or forecast source's role (`source_role`), from the price book and the forecast store. */
  roles?: SourceRoles;
}): Router {
  const router = new Router();
  router.get('/plugins', scope('admin'), (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    const instances = deps.host.status().map((status) => {
      const role = deps.roles && sourceRoleOf(status, deps.roles);
      return { ...status, progress: deps.progress?.of(status.id) ?? null, ...(role ? { source_role: role } : {}) };
    });
    ctx.body = [...instances, ...(deps.extra?.() ?? [])];
  });
  return router;
}
