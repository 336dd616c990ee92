import { formatZodIssue } from '@heliograph/plugins-sdk';
import Router from '@koa/router';
import { z } from 'zod';
import { errorMessage } from '../log.js';
import type { PluginHost } from '../plugins/host.js';
import type { PluginInstanceConfig } from '../plugins/instances.js';
import { ApiError } from './errors.js';

const configBody = z.record(z.string(), z.unknown(), {
  error: 'the body must be the new config as a JSON object, e.g. {"port": 502}',
});

/** Persists the instance entries (plugins.json); given by the composition root. */
export type SavePluginEntries = (entries: PluginInstanceConfig[]) => Promise<void> | void;

/**
 * GET /api/v1/plugins/:id/config: `{schema, config}`, the plugin's own config schema as JSON
 * Schema (the settings page draws its form from it) and the config in force.
 * PUT /api/v1/plugins/:id/config: a new config, validated by that same schema; on success
 * the instance restarts with it and plugins.json is saved, so the change survives a restart.
 */
export function pluginConfigRoutes(deps: { host: PluginHost; save: SavePluginEntries }): Router {
  const { host, save } = deps;
  const router = new Router();
  // Saves run one after another, each writing the entries as they are when it runs, so the
  // file ends up holding the last accepted config even when two PUTs overlap.
  let saving: Promise<unknown> = Promise.resolve();

  const unknownInstance = (id: string) =>
    new ApiError(404, `no running plugin instance "${id}": GET /api/v1/plugins lists them (disabled instances are edited in plugins.json)`);

  router.get('/plugins/:id/config', (ctx) => {
    const id = ctx.params.id!;
    const described = host.describe(id);
    if (!described) throw unknownInstance(id);
    ctx.body = described;
  });

  router.put('/plugins/:id/config', async (ctx) => {
    const id = ctx.params.id!;
    const parsed = configBody.safeParse(ctx.request.body);
    if (!parsed.success) throw new ApiError(400, formatZodIssue(parsed.error.issues[0]!));
    const outcome = await host.reconfigure(id, parsed.data);
    if (!outcome) throw unknownInstance(id);
    if (!outcome.ok) throw new ApiError(400, outcome.errors);
    const saved = saving.then(() => save(host.entries()));
    saving = saved.catch(() => undefined);
    try {
      await saved;
    } catch (err) {
      throw new ApiError(500, `the new config is in force but could not be saved to plugins.json, so a restart would undo it: ${errorMessage(err)}`);
    }
    ctx.body = outcome.config;
  });

  return router;
}
