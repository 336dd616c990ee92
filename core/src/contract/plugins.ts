import { z } from 'zod';
import { manifestGrantsSchema } from '@heliograph/plugins-sdk';
import { utcTime } from './common-schemas.js';

/**
 * Grants (plugins/instances/grants.ts): settings of other devices it may write (topic
 * globs), whether it may publish grid prices and the forecast, the hosts ctx.http may reach.
 */
export const pluginGrants = manifestGrantsSchema;

/** One configured plugin instance as GET /api/v1/plugins lists it. */
export const pluginStatus = z.object({
  id: z.string(),
  plugin: z.string(),
  kind: z.string(),
  /** False for an instance kept in plugins.json but not run. */
  enabled: z.boolean(),
  /** The ids of the devices the instance drives, as in plugins.json (`inverter_1`). */
  devices: z.array(z.string()),
  /** Each device: whether it answers (and why not), and what it says it is. */
  device_status: z.array(
    z.object({
      id: z.string(),
      available: z.boolean(),
      reason: z.string().nullable(),
      identity: z.object({
        manufacturer: z.string().optional(),
        model: z.string().optional(),
        serial: z.string().optional(),
        firmware: z.string().optional(),
        /** What the device is reached through: another device's id, or a gateway's description. */
        parent: z.string().optional(),
      }),
    }),
  ),
  state: z.enum(['starting', 'running', 'failed', 'stopped']),
  last_error: z.string().nullable(),
  last_poll: utcTime.nullable(),
  /** Where the plugin runs: the server's thread, or a worker process of its own. */
  isolation: z.enum(['process-local', 'worker']),
  /**
   * What the plugin's manifest asks to do beyond its own devices, and what of it the owner
   * approved (a bundled plugin's requests are approved unless its entry says otherwise). A
   * call outside `approved` is refused (GRANT_MISSING). Absent on the `history` row.
   */
  grants: z.object({ requested: pluginGrants, approved: pluginGrants }).optional(),
  /**
   * How far the instance's long task has got (`ctx.status.progress`: the simulator's
   * backfill), with its estimated end; null when it reported none in this start. On every
   * plugin instance; the `history` row has none.
   */
  progress: z
    .object({
      what: z.string(),
      done: z.number(),
      total: z.number(),
      unit: z.string().nullable(),
      eta: utcTime.nullable(),
    })
    .nullable()
    .optional(),
  /**
   * For a price or forecast source (a `prices` or `forecast` plugin, or one approved to
   * publish them): `active` when the site uses its prices or forecast, `fallback` when the
   * owner named it in config `prices.fallbacks` / `forecast.fallbacks` (used where the active
   * one has nothing), `standby` when it is kept but not used (another source is chosen).
   */
  source_role: z.enum(['active', 'fallback', 'standby']).optional(),
});

export const pluginsResponse = z.array(pluginStatus);

/**
 * GET /api/v1/plugins/:id/config: the plugin's config schema (JSON Schema), its config with
 * secret values left out, and which secret fields are set.
 */
export const pluginConfigResponse = z.object({
  schema: z.unknown(),
  config: z.record(z.string(), z.unknown()),
  secrets: z.record(z.string(), z.boolean()),
});

/** PUT /api/v1/plugins/:id/config: the config in force, secret values left out. */
export const pluginConfigValues = z.record(z.string(), z.unknown());

/** One plugin GET /api/v1/plugins/installed offers to add (plugins/discovery/installed.ts). */
export const installedPlugin = z.object({
  plugin: z.string(),
  kind: z.string(),
  name: z.string(),
  description: z.string(),
  /** The config schema as JSON Schema; null when the plugin's code cannot be loaded. */
  schema: z.unknown(),
  devices: z.object({ kinds: z.array(z.string()), min: z.number().int(), max: z.number().int().nullable() }).nullable(),
  /**
   * What an instance of it will ask the owner to approve beyond its own devices (its
   * manifest's grants, and `prices` or `forecast` for a plugin of that kind); `{}` for none.
   */
  grants: pluginGrants,
  /**
   * Shipped with Heliograph: an instance added without `grants` gets all it asks; a
   * third-party plugin's instance gets only what POST /api/v1/plugins approves.
   */
  bundled: z.boolean(),
  error: z.string().optional(),
});

export const installedPluginsResponse = z.array(installedPlugin);
