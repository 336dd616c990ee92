import { z } from 'zod';
import { utcTime } from './common.js';

/** One configured plugin instance as GET /api/v1/plugins lists it. */
export const pluginStatus = z.object({
  id: z.string(),
  plugin: z.string(),
  kind: z.string(),
  devices: z.array(z.string()),
  state: z.enum(['starting', 'running', 'failed', 'stopped']),
  last_error: z.string().nullable(),
  last_poll: utcTime.nullable(),
});

export const pluginsResponse = z.array(pluginStatus);

/** GET /api/v1/plugins/:id/config: the plugin's config schema (JSON Schema) and its config. */
export const pluginConfigResponse = z.object({ schema: z.unknown(), config: z.record(z.string(), z.unknown()) });
