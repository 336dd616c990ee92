import type { RouterContext } from '@koa/router';
import Router from '../router.js';
import { z } from 'zod';
import { deviceFromId } from '@heliograph/plugins-sdk';
import { errorMessage } from '../../log.js';
import type { InstanceStatus, PluginHost } from '../../plugins/host/host.js';
import type { ProgressBoard } from '../../plugins/context/progress.js';
import type { PluginInstanceConfig } from '../../plugins/instances/instances.js';
import { grantsSchema } from '../../plugins/instances/grants.js';
import { scope } from '../auth.js';
import { maskSecrets } from '../../plugins/instances/secrets.js';
import { auditText, recordValueChange, type RecordChange } from '../change-audit.js';
import { ApiError } from '../errors.js';
import { issuesText, parseBody, ValidationError } from '../../contract/field-issues.js';
import type { SavePluginEntries } from './config.js';

const isDeviceId = (id: string) => {
  try {
    deviceFromId(id);
    return true;
  } catch {
    return false;
  }
};

export const newInstanceBody = z.strictObject(
  {
    id: z
      .string({ error: 'is required: a short name for this instance, e.g. "meteo"' })
      .regex(
        /^[a-z0-9][a-z0-9_-]*$/,
        'may hold only lower-case letters, digits, "-" and "_", starting with a letter or digit',
      )
      .max(64, 'must be at most 64 characters long'),
    plugin: z
      .string({ error: 'is required: one of the plugins GET /api/v1/plugins/installed lists' })
      .min(1, 'must name an installed plugin'),
    enabled: z.boolean({ error: 'must be true or false' }).default(true),
    devices: z
      .array(z.string().refine(isDeviceId, 'must be a device id such as "inverter_1", "battery_1" or "planner_1"'), {
        error: 'must be a list of device ids',
      })
      .default([])
      .refine((list) => new Set(list).size === list.length, 'must not name a device twice'),
    config: z.record(z.string(), z.unknown(), { error: "must be an object with the plugin's settings" }).default({}),
    // The owner approves at add time what the page showed of the plugin's requested grants.
    grants: grantsSchema.optional(),
    isolation: z
      .enum(['process', 'worker', 'process-local'], {
        error:
          'must be "process" (a sandboxed process of its own; "worker" is its old name) or "process-local" (bundled plugins only)',
      })
      .optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? undefined
        : 'the body must be a JSON object: {"id", "plugin", "enabled"?, "devices"?, "config"?, "grants"?, "isolation"?}',
  },
);

export const patchBody = z.strictObject(
  { enabled: z.boolean({ error: 'must be true or false' }) },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? undefined : 'the body must be a JSON object: {"enabled": true|false}',
  },
);

/** PUT /api/v1/plugins/:id/grants: what the owner approves, within what the manifest asks. */
export const grantsBody = grantsSchema;

const unknownInstance = (id: string) =>
  new ApiError('PLUGIN_INSTANCE_NOT_FOUND', `no plugin instance "${id}": GET /api/v1/plugins lists them`);

/** Saves the entries; when that fails, undoes the change and answers PLUGINS_NOT_SAVED. */
function persister(host: PluginHost, save: SavePluginEntries) {
  return async (undo: () => void): Promise<void> => {
    try {
      await save(host.entries());
    } catch (err) {
      undo();
      throw new ApiError(
        'PLUGINS_NOT_SAVED',
        `plugins.json could not be saved, so nothing was changed: ${errorMessage(err)}`,
      );
    }
  };
}

/** An instance's row as GET /api/v1/plugins answers it (with its progress). */
type Answer = (id: string, fallback: InstanceStatus) => InstanceStatus & { progress: unknown };

/** PUT /api/v1/plugins/:id/grants: the owner's approval, saved, audited; the instance restarts with it. */
function approveGrants(
  host: PluginHost,
  persist: (undo: () => void) => Promise<void>,
  record: RecordChange,
  answer: Answer,
) {
  return async function approveGrants(ctx: RouterContext): Promise<void> {
    const id = ctx.params.id!;
    const grants = parseBody(grantsBody, ctx.request.body);
    const outcome = await host.approveGrants(id, grants);
    if (!outcome) throw unknownInstance(id);
    if (!outcome.ok) throw new ValidationError(issuesText(outcome.issues), outcome.issues);
    await persist(() => void host.approveGrants(id, outcome.previous));
    await recordValueChange(record, ctx.state.who, `plugins/${id}`, { grants: outcome.previous }, { grants });
    ctx.body = answer(id, outcome.status);
  };
}

/**
 * The settings page's plugin list:
 * GET /api/v1/plugins/installed (what can be added, with config schemas),
 * POST /api/v1/plugins (add an instance), PATCH /api/v1/plugins/:id (enable, disable),
 * PUT /api/v1/plugins/:id/grants (approve what the plugin asks beyond its own devices),
 * DELETE /api/v1/plugins/:id (stop and remove). Every accepted change is saved to
 * plugins.json at once and audited as `plugins/<id>`.
 */
export function pluginInstancesRoutes(deps: {
  host: PluginHost;
  save: SavePluginEntries;
  record?: RecordChange;
  /** The instances' long tasks, for answers shaped as GET /api/v1/plugins' rows. */
  progress?: ProgressBoard;
  /** The owner's price and forecast sources (config `prices`, `forecast`): one of them is not removed. */
  sources?: () => SourceChoices;
}): Router {
  const { host, save } = deps;
  /** The instance's row as GET /api/v1/plugins answers it. */
  const answer: Answer = (id, fallback) => ({
    ...(host.status().find((s) => s.id === id) ?? fallback),
    progress: deps.progress?.of(id) ?? null,
  });
  const record: RecordChange = deps.record ?? (async () => {});
  const router = new Router();

  const persist = persister(host, save);
  const shown = (entry: PluginInstanceConfig) =>
    auditText({ ...entry, config: maskSecrets(entry.config, host.secretsOf(entry.id)) });

  router.get('/plugins/installed', async (ctx) => {
    ctx.body = await host.installed();
  });

  router.post('/plugins', async (ctx) => {
    const entry = parseBody(newInstanceBody, ctx.request.body);
    const outcome = await host.add(entry);
    if (!outcome.ok)
      throw new ValidationError(
        issuesText(outcome.issues),
        outcome.issues,
        outcome.conflict ? 'PLUGIN_INSTANCE_EXISTS' : 'BODY_INVALID',
      );
    await persist(() => host.remove(entry.id));
    await record({ who: ctx.state.who, topic: `plugins/${entry.id}`, oldValue: '', newValue: shown(entry) });
    ctx.status = 201;
    ctx.body = answer(entry.id, outcome.status);
  });

  router.patch('/plugins/:id', async (ctx) => {
    const id = ctx.params.id!;
    const { enabled } = parseBody(patchBody, ctx.request.body);
    const before = host.entries().find((e) => e.id === id);
    if (!before) throw unknownInstance(id);
    const outcome = host.setEnabled(id, enabled);
    if (!outcome) throw unknownInstance(id);
    if (!outcome.ok) throw new ValidationError(issuesText(outcome.issues), outcome.issues);
    // Answered once a switched-off instance has stopped (its battery back to Normal).
    await host.settled();
    if (before.enabled !== enabled) {
      await persist(() => {
        host.setEnabled(id, before.enabled);
      });
      await recordValueChange(record, ctx.state.who, `plugins/${id}`, { enabled: before.enabled }, { enabled });
    }
    ctx.body = answer(id, outcome.status);
  });

  router.put('/plugins/:id/grants', scope('admin'), approveGrants(host, persist, record, answer));

  router.delete('/plugins/:id', async (ctx) => {
    const id = ctx.params.id!;
    const before = host.entries().find((e) => e.id === id);
    if (!before) throw unknownInstance(id);
    if (deps.sources) refuseSourceRemoval(id, deps.sources());
    const oldValue = shown(before);
    host.remove(id);
    await host.settled();
    try {
      await save(host.entries());
    } catch (err) {
      throw new ApiError(
        'PLUGINS_NOT_SAVED',
        `instance "${id}" is stopped but plugins.json could not be saved, so it comes back at the next start: ${errorMessage(err)}`,
      );
    }
    await record({ who: ctx.state.who, topic: `plugins/${id}`, oldValue, newValue: '' });
    ctx.status = 204;
  });

  return router;
}

/** The sources an owner chose, as the site settings hold them. */
export type SourceChoices = Record<'prices' | 'forecast', { source: string | null; fallbacks: readonly string[] }>;

/** Refuses removing one of the site's chosen sources (or fallbacks): the owner chooses another first. */
function refuseSourceRemoval(id: string, choices: SourceChoices): void {
  const what = { prices: 'grid prices', forecast: 'the forecast' } as const;
  for (const section of ['prices', 'forecast'] as const) {
    const use =
      choices[section].source === id
        ? `the site's chosen source of ${what[section]}`
        : choices[section].fallbacks.includes(id)
          ? `a fallback source of ${what[section]}`
          : null;
    if (use)
      throw new ApiError(
        'PLUGIN_INSTANCE_IN_USE',
        `instance "${id}" is ${use}: choose another in the site settings (Site tab) first, then remove it`,
      );
  }
}
