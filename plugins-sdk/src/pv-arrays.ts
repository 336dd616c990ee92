import { z } from 'zod';
import { minutesField } from './config.js';

/**
 * One PV panel array as forecast plugins take it in their config: tilt, azimuth, peak power
 * and an optional AC limit, with the titles, help texts and plain-word range messages the
 * settings page shows. Shared so every forecast plugin asks for an array the same way.
 *
 * @example
 * import { definePlugin, pvArraySchema, z } from '@heliograph/plugins-sdk';
 * const configSchema = z.object({
 *   arrays: z.array(pvArraySchema).min(1).describe('The PV arrays on the roof.'),
 * });
 */
export const pvArraySchema = z.object({
  tilt: z
    .number()
    .min(0, 'must be from 0 to 90 (degrees from horizontal)')
    .max(90, 'must be from 0 to 90 (degrees from horizontal)')
    .describe('Tilt in degrees from horizontal: 0 = flat, 90 = vertical.')
    .meta({ title: 'Tilt (degrees)' }),
  azimuth: z
    .number()
    .min(-180, 'must be from -180 to 180 (degrees; 0 = south, -90 = east, 90 = west)')
    .max(180, 'must be from -180 to 180 (degrees; 0 = south, -90 = east, 90 = west)')
    .describe('Direction in degrees: 0 = south, -90 = east, 90 = west, 180 = north.')
    .meta({ title: 'Azimuth (degrees)' }),
  kWp: z.number().positive().describe('Peak power of the array in kW.').meta({ title: 'Peak power (kWp)' }),
  acLimitW: z
    .number()
    .positive()
    .optional()
    .describe('AC limit in W of the inverter behind the array; the prediction never exceeds it.')
    .meta({ title: 'AC limit (W)' }),
});

/** A PV panel array as {@link pvArraySchema} parses it. */
export type PvArray = z.infer<typeof pvArraySchema>;

/**
 * Where a PV plant is and what it is made of, as forecast plugins take it: latitude and
 * longitude (default: the site's) and one or more panel arrays. Spread into a plugin's
 * config object so every forecast form asks for the plant the same way.
 *
 * @example
 * import { definePlugin, pvPlantFields, z } from '@heliograph/plugins-sdk';
 * const configSchema = z.object({
 *   baseUrl: z.url().default('https://api.example.com'),
 *   ...pvPlantFields,
 * });
 */
export const pvPlantFields = {
  latitude: z
    .number()
    .min(-90, 'must be from -90 to 90 (degrees; south is negative)')
    .max(90, 'must be from -90 to 90 (degrees; south is negative)')
    .optional()
    .describe('Latitude of the panels; default: the site latitude.')
    .meta({ title: 'Latitude' }),
  longitude: z
    .number()
    .min(-180, 'must be from -180 to 180 (degrees; west is negative)')
    .max(180, 'must be from -180 to 180 (degrees; west is negative)')
    .optional()
    .describe('Longitude of the panels; default: the site longitude.')
    .meta({ title: 'Longitude' }),
  arrays: z
    .array(pvArraySchema)
    .min(1, 'at least one panel array is needed')
    .describe('Panel arrays, one per orientation.')
    .meta({ title: 'Panel arrays' }),
};

/**
 * Where the panels of a {@link pvPlantFields} config are: its `latitude` and `longitude`, each
 * the site's when the config leaves it out.
 *
 * @example
 * const { latitude, longitude } = plantLocation(config, ctx.site);
 */
export function plantLocation(
  config: { latitude?: number | undefined; longitude?: number | undefined },
  site: { latitude: number; longitude: number },
): { latitude: number; longitude: number } {
  return { latitude: config.latitude ?? site.latitude, longitude: config.longitude ?? site.longitude };
}

/**
 * A forecast source's `intervalMinutes` field: minutes between fetches, 15 to 360, 30 when
 * left out, titled "Fetch every (minutes)", with the source's own help text.
 *
 * @example
 * const configSchema = z.object({ ...pvPlantFields, intervalMinutes: fetchIntervalField({ description: 'Minutes between fetches.' }) });
 */
export function fetchIntervalField(options: { description: string }) {
  return minutesField({ min: 15, max: 360, default: 30, title: 'Fetch every (minutes)', ...options });
}
