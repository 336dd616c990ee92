import { formatZodIssue } from '@heliograph/plugins-sdk';
import Router from '../router.js';
import { z } from 'zod';
import { errorMessage } from '../../log.js';
import type { PluginHost } from '../../plugins/host/host.js';
import type { PluginInstanceConfig } from '../../plugins/instances/instances.js';
import { scope } from '../auth.js';
import { ApiError } from '../errors.js';
import { recordValueChange, type RecordChange } from '../change-audit.js';
import { ValidationError } from '../../contract/field-issues.js';
import { maskSecrets } from '../../plugins/instances/secrets.js';
import { NO_QUERY, parseQuery } from '../query.js';

export const configBody = z.record(z.string(), z.unknown(), {
  error: 'the body must be the new config as a JSON object, e.g. {"port": 502}',
});

/** Persists the instance entries (plugins.json); given by the composition root. */
export type SavePluginEntries = (entries: PluginInstanceConfig[]) => Promise<void> | void;

/**
 * GET /api/v1/plugins/:id/config: `{schema, config, secrets}`, the plugin's own config schema
 * as JSON Schema (the settings page draws its form from it), the config in force without
 * its secret fields, and which secrets are set.
 * PUT /api/v1/plugins/:id/config: a new config, validated by that same schema (a secret it
 * leaves out keeps its stored value); on success the instance restarts with it, plugins.json
 * is saved, so the change survives a restart, and the change is audited as `plugins/<id>`.
 */
export function pluginConfigRoutes(deps: { host: PluginHost; save: SavePluginEntries; record?: RecordChange }): Router {
  const { host, save } = deps;
  const record: RecordChange = deps.record ?? (async () => {});
  const router = new Router();
  // Saves run one after another, each writing the entries as they are when it runs, so the
  // file ends up holding the last accepted config even when two PUTs overlap.
  let saving: Promise<unknown> = Promise.resolve();

  const unknownInstance = (id: string) => {
    const entry = host.entries().find((e) => e.id === id);
    // Listed but without a form: its plugin is not installed (any more) or its code does not load.
    if (entry)
      return new ApiError(
        'PLUGIN_NOT_LOADABLE',
        `instance "${id}" has no config form: plugin "${entry.plugin}" is not installed or cannot be loaded (see last_error in GET /api/v1/plugins)`,
      );
    return new ApiError('PLUGIN_INSTANCE_NOT_FOUND', `no plugin instance "${id}": GET /api/v1/plugins lists them`);
  };

  router.get('/plugins/:id/config', scope('admin'), (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    const id = ctx.params.id!;
    const described = host.describe(id);
    if (!described) throw unknownInstance(id);
    ctx.body = described;
  });

  router.put('/plugins/:id/config', scope('admin'), async (ctx) => {
    parseQuery(NO_QUERY, ctx.query);
    const id = ctx.params.id!;
    const parsed = configBody.safeParse(ctx.request.body);
    if (!parsed.success) throw new ApiError('BODY_INVALID', formatZodIssue(parsed.error.issues[0]!));
    const outcome = await host.reconfigure(id, parsed.data);
    if (!outcome) throw unknownInstance(id);
    if (!outcome.ok) throw new ValidationError(outcome.errors, outcome.issues);
    const saved = saving.then(() => save(host.entries()));
    saving = saved.catch(() => undefined);
    try {
      await saved;
    } catch (err) {
      throw new ApiError(
        'PLUGINS_NOT_SAVED',
        `the new config is in force but could not be saved to plugins.json, so a restart would undo it: ${errorMessage(err)}`,
      );
    }
    const secrets = host.secretsOf(id);
    await recordValueChange(
      record,
      ctx.state.who,
      `plugins/${id}`,
      { config: maskSecrets(outcome.previous, secrets) },
      { config: maskSecrets(host.entries().find((e) => e.id === id)?.config ?? {}, secrets) },
    );
    ctx.body = outcome.config;
  });

  return router;
}
