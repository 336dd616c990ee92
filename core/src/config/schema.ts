import { isIPv4 } from 'node:net';
import { z } from 'zod';

/**
 * Core settings. config/default.json holds the defaults; a user file (`<data>/config.json`,
 * or --config FILE) overrides any subset of them. Every key is described here, and
 * config/schema.json is generated from this schema (`npm run config:schema`).
 */
/** A coordinate of the site in degrees, from -limit to limit, `negative` the side below zero. */
function degrees(limit: number, negative: 'south' | 'west', description: string, title: string) {
  // Range messages say what is refused, for the settings page's fields and the config file's errors.
  const range = `must be from -${limit} to ${limit} (degrees; ${negative} is negative)`;
  return z.number().min(-limit, range).max(limit, range).describe(description).meta({ title });
}

/** The owner's choice of one source (config `prices`, `forecast`): an instance id and its fallbacks. */
function sourceChoice(what: 'Price' | 'Forecast', source: string, fallbacks: string) {
  return {
    source: z
      .string()
      .min(1, 'must not be empty: a plugin instance id, or null for the automatic choice')
      .nullable()
      .default(null)
      .describe(source)
      .meta({ title: `${what} source` }),
    fallbacks: z
      .array(z.string().min(1, 'must not be empty: a plugin instance id'))
      .default([])
      .describe(fallbacks)
      .meta({ title: `${what} fallbacks` }),
  };
}

export const configSchema = z
  .object({
    site: z
      .object({
        name: z
          .string()
          .min(1, 'must not be empty: a name for this site')
          .max(64, 'must be at most 64 characters long')
          .describe('Product name shown in the settings page and the WWW-Authenticate realm.')
          .meta({ title: 'Site name' }),
        timeZone: z
          .string()
          .nullable()
          .refine((tz) => tz === null || isValidTimeZone(tz), 'an IANA time zone such as "Europe/Berlin"')
          .describe('IANA time zone of the site; null = the system time zone. Energy periods and price days follow it.')
          .meta({ title: 'Time zone' }),
        latitude: degrees(90, 'south', 'Latitude of the site, degrees.', 'Latitude'),
        longitude: degrees(180, 'west', 'Longitude of the site, degrees.', 'Longitude'),
        temperatureUnit: z
          .enum(['C', 'F'])
          .describe('Unit of weather/outside_temperature.')
          .meta({ title: 'Temperature unit', enumLabels: { C: '°C (Celsius)', F: '°F (Fahrenheit)' } }),
      })
      .strict(),
    energy: z
      .object({
        resetPeriod: z
          .enum(['daily', 'weekly', 'monthly'])
          .describe(
            'When the kWh totals restart from zero, at local midnight (Monday for weekly, the 1st for monthly).',
          )
          .meta({
            title: 'Energy totals restart',
            enumLabels: { daily: 'Every day', weekly: 'Every week (Monday)', monthly: 'Every month (the 1st)' },
          }),
      })
      .strict(),
    prices: z
      .object({
        multiplier: z
          .number()
          .describe('Grid prices are shown as raw * multiplier + offset (taxes, fees).')
          .meta({ title: 'Price multiplier' }),
        offset: z
          .number()
          .describe('Added to every grid price after the multiplier, in currency per kWh.')
          .meta({ title: 'Price offset (per kWh)' }),
        exportPrice: z
          .number()
          .min(-10, 'must be from -10 to 10 (currency per kWh)')
          .max(10, 'must be from -10 to 10 (currency per kWh)')
          .nullable()
          .describe(
            "Flat export (feed-in) price, in the price provider's currency per kWh, for a provider that publishes import prices only (a provider's own export prices win); multiplier and offset apply to it as to every grid price. Kept from now on: past days keep the price they had. null = no export price.",
          )
          .meta({ title: 'Export price (per kWh)' }),
        ...sourceChoice(
          'Price',
          "The plugin instance id whose prices the site uses (GET /api/v1/plugins lists them); other price plugins are kept on standby, their prices not used. null = automatic: the first price plugin that declares and has prices (a real provider before the simulator's demo prices).",
          'Plugin instance ids used in this order when the price source has no prices: the first with prices takes over, and later hours the source lacks are filled from them (same currency only). Only with a price source chosen.',
        ),
      })
      .strict(),
    forecast: z
      .object({
        ...sourceChoice(
          'Forecast',
          "The plugin instance id whose weather and PV forecast the site uses (the planner's too); other forecast plugins are kept on standby, their forecasts not used. null = automatic: for each forecast topic, the first forecast plugin that publishes it (a real forecast before the simulator's demo one).",
          'Plugin instance ids used in this order for a forecast topic the forecast source does not publish, and for the quarter hours before or after its own. Only with a forecast source chosen.',
        ),
      })
      .strict()
      .prefault({}),
    alerts: z
      .object({
        batteryBelowPercent: z
          .number()
          .min(0)
          .max(100)
          .nullable()
          .describe('system/alert_battery_low turns on while the battery is below this state of charge; null = off.')
          .meta({ title: 'Alert when the battery is below (%)' }),
        deviceUnavailableMinutes: z
          .number()
          .min(0)
          .max(10080)
          .nullable()
          .describe(
            'system/alert_device_unavailable turns on when a device has not answered for this long; null = off.',
          )
          .meta({ title: 'Alert when a device is unavailable for (min)' }),
        writeRefused: z
          .boolean()
          .describe('system/alert_write_refused turns on for 10 minutes after a write to a device is refused.')
          .meta({ title: 'Alert when a write is refused' }),
      })
      .strict(),
    history: z
      .object({
        retentionDays: z
          .number()
          .int()
          .positive()
          .describe('Days of 10-second history kept; older 10-s blocks are deleted, rollups stay.'),
        diskBudgetMb: z
          .number()
          .positive()
          .describe('When the database grows past this, the oldest 10-s blocks are deleted first.'),
        flushIntervalMs: z
          .number()
          .int()
          .min(500)
          .max(10000)
          .describe(
            'How often recorded readings are written in one transaction (at most 10 s of readings can be lost).',
          ),
      })
      .strict(),
    auth: z
      .object({
        maxFailedLogins: z
          .number()
          .int()
          .positive()
          .describe('Failed logins from one address within the window before it is throttled.'),
        failedLoginWindowMs: z.number().int().positive().describe('Window in which failed logins are counted.'),
        idleTokenDays: z
          .number()
          .positive()
          .max(3650)
          .describe(
            'Tokens created with "idle_expiry": true (the settings page signs in with them) stop working after this many days unused, and are then deleted.',
          ),
      })
      .strict(),
    mdns: z
      .object({
        enabled: z
          .boolean()
          .describe(
            'Advertise the unit over mDNS (_solar-assistant._tcp and _heliograph._tcp, TXT site_id) so clients find it again after its IP address changes. The environment variable HELIOGRAPH_MDNS=0 or 1 overrides this.',
          ),
        interface: z
          .string()
          .nullable()
          .refine(
            (ip) => ip === null || isIPv4(ip),
            'the IPv4 address of a network interface, such as "192.168.1.20", or null for all interfaces',
          )
          .describe('IPv4 address of the one interface to advertise on; null = every interface.'),
      })
      .strict(),
    security: z
      .object({
        allowedHosts: z
          .array(z.string().min(1).max(253))
          .describe(
            'Host names (without port) the device is reached by besides IP addresses, localhost and .local names; other Host headers answer 421 (DNS rebinding).',
          ),
        allowedOrigins: z
          .array(
            z
              .string()
              .regex(
                /^https?:\/\/[^/]+$/,
                'an origin such as "https://dashboard.example.net" (scheme, host, optional port; no path)',
              ),
          )
          .describe(
            "Web page origins besides the device's own page that may call the API and open the stream from a browser; others answer 403.",
          ),
      })
      .strict(),
    backups: z
      .object({
        schedule: z
          .enum(['daily', 'weekly', 'off'])
          .default('daily')
          .describe(
            'When the service writes a backup of its data directory by itself: every day, every week (Monday), or never.',
          )
          .meta({
            title: 'Scheduled backups',
            enumLabels: { daily: 'Every day', weekly: 'Every week (Monday)', off: 'Off' },
          }),
        time: z
          .string()
          .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time of day such as "03:30" (24-hour, HH:MM)')
          .default('03:30')
          .describe("The local time of day (the site's time zone) a scheduled backup is written at, HH:MM.")
          .meta({ title: 'Backup time' }),
        keep: z
          .number()
          .int('must be a whole number')
          .min(1, 'must be from 1 to 365')
          .max(365, 'must be from 1 to 365')
          .default(7)
          .describe(
            'How many scheduled backups are kept; the oldest beyond this are deleted (backups made by hand are kept).',
          )
          .meta({ title: 'Scheduled backups kept' }),
        path: z
          .string()
          .min(1)
          .nullable()
          .default(null)
          .describe(
            'The folder backups are written to (created 0700); null = <data directory>/backups. Set in config.json only, never from the API.',
          ),
      })
      .strict()
      .prefault({}),
    prometheus: z
      .object({
        openScrape: z
          .boolean()
          .describe(
            'Answer GET /metrics (Prometheus) without credentials. Off by default: the scraper then sends an API token of scope read (Authorization: Bearer).',
          ),
      })
      .strict(),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;

/** The site time zone with `null` resolved to the system's. */
export function siteTimeZone(config: Config): string {
  return config.site.timeZone ?? systemTimeZone();
}

/** The system's own zone (UTC on a fresh image): what a `null` site zone stands for. */
export function systemTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
