import { z } from 'zod';
import { siteSettingsSchema } from '../../config/site-settings.js';
import { metric } from './metrics.js';

/** GET /api/v1/system: the unit's `system/*` rows, shaped like metric rows (device `system`). */
export const systemResponse = z.array(metric);

/** GET /api/v1/setup: whether the first password still has to be set. */
export const setupStatus = z.object({ needs_setup: z.boolean() });

/** PUT /api/v1/config: the site settings in force (site, energy, prices). */
export const siteSettings = siteSettingsSchema;

/**
 * GET /api/v1/config: the site settings, the zone in force (`site.timeZone`, or the
 * system's when that is null) and their JSON Schema, for the settings page's form.
 */
export const siteConfigResponse = siteSettingsSchema.extend({ time_zone: z.string(), schema: z.unknown() });
