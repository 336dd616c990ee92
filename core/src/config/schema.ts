import { z } from 'zod';

/**
 * Core settings. config/default.json holds the defaults; a user file (`<data>/config.json`,
 * or --config FILE) overrides any subset of them. Every key is described here, and
 * config/schema.json is generated from this schema (`npm run config:schema`).
 */
export const configSchema = z
  .object({
    site: z
      .object({
        name: z.string().min(1).describe('Product name shown in the settings page and the WWW-Authenticate realm.'),
        timeZone: z
          .string()
          .nullable()
          .refine((tz) => tz === null || isValidTimeZone(tz), 'an IANA time zone such as "Europe/Berlin"')
          .describe('IANA time zone of the site; null = the system time zone. Energy periods and price days follow it.'),
        latitude: z.number().min(-90).max(90).describe('Latitude of the site, degrees.'),
        longitude: z.number().min(-180).max(180).describe('Longitude of the site, degrees.'),
        temperatureUnit: z.enum(['C', 'F']).describe('Unit of weather/outside_temperature.'),
      })
      .strict(),
    energy: z
      .object({
        resetPeriod: z.enum(['daily', 'weekly', 'monthly']).describe('When the kWh totals restart from zero, at local midnight (Monday for weekly, the 1st for monthly).'),
      })
      .strict(),
    prices: z
      .object({
        multiplier: z.number().describe('Grid prices are shown as raw * multiplier + offset (taxes, fees).'),
        offset: z.number().describe('Added to every grid price after the multiplier, in currency per kWh.'),
      })
      .strict(),
    history: z
      .object({
        retentionDays: z.number().int().positive().describe('Days of 10-second history kept; older 10-s blocks are deleted, rollups stay.'),
        diskBudgetMb: z.number().positive().describe('When the database grows past this, the oldest 10-s blocks are deleted first.'),
        flushIntervalMs: z.number().int().min(500).max(10000).describe('How often recorded readings are written in one transaction (at most 10 s of readings can be lost).'),
      })
      .strict(),
    auth: z
      .object({
        maxFailedLogins: z.number().int().positive().describe('Failed logins from one address within the window before it is throttled.'),
        failedLoginWindowMs: z.number().int().positive().describe('Window in which failed logins are counted.'),
      })
      .strict(),
    security: z
      .object({
        allowedHosts: z
          .array(z.string().min(1).max(253))
          .describe('Host names (without port) the device is reached by besides IP addresses, localhost and .local names; other Host headers answer 421 (DNS rebinding).'),
        allowedOrigins: z
          .array(z.string().regex(/^https?:\/\/[^/]+$/, 'an origin such as "https://dashboard.example.net" (scheme, host, optional port; no path)'))
          .describe("Web page origins besides the device's own page that may call the API and open the stream from a browser; others answer 403."),
      })
      .strict(),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;

/** The site time zone with `null` resolved to the system's. */
export function siteTimeZone(config: Config): string {
  return config.site.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}

function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
