import { z } from 'zod';
import { siteSettingsSchema } from '../config/site-settings.js';

/** PUT /api/v1/config: the site settings in force (site, energy, prices). */
export const siteSettings = siteSettingsSchema;

/**
 * GET /api/v1/config: the site settings, the zone in force (`site.timeZone`, or the
 * system's when that is null) and their JSON Schema, for the settings page's form.
 */
export const siteConfigResponse = siteSettingsSchema.extend({
  time_zone: z.string(),
  system_time_zone: z.string(),
  schema: z.unknown(),
});
