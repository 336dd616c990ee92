import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { SafeEmitter } from '../events.js';
import { configSchema, siteTimeZone, type Config } from './schema.js';
import { saveConfigChanges } from './save.js';

/** The sections the settings page edits (the rest of config.json is for the file). */
export const siteSettingsSchema = configSchema.pick({
  site: true,
  energy: true,
  prices: true,
  forecast: true,
  alerts: true,
});
export type SiteSettings = z.infer<typeof siteSettingsSchema>;
export type SiteSettingsSection = keyof SiteSettings;

/** PUT /api/v1/config: any subset of the sections, each with any subset of its keys. */
export const siteSettingsPatchSchema = z.strictObject(
  {
    site: siteSettingsSchema.shape.site.partial().optional(),
    energy: siteSettingsSchema.shape.energy.partial().optional(),
    prices: withoutDefaults(siteSettingsSchema.shape.prices).partial().optional(),
    forecast: withoutDefaults(siteSettingsSchema.shape.forecast.unwrap()).partial().optional(),
    alerts: siteSettingsSchema.shape.alerts.partial().optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? undefined
        : 'the body must be a JSON object with any of "site", "energy", "prices", "forecast" and "alerts"',
  },
);

/**
 * A section with its keys' defaults left out: a patch that leaves a key out keeps its value
 * (zod would otherwise fill the default in, and `prices: {offset}` would reset `prices.source`).
 */
function withoutDefaults<T extends z.ZodObject>(section: T): T {
  const shape = Object.fromEntries(
    Object.entries(section.shape).map(([key, field]) => [key, field instanceof z.ZodDefault ? field.unwrap() : field]),
  );
  return section.extend(shape) as T;
}
export type SiteSettingsPatch = z.infer<typeof siteSettingsPatchSchema>;

/** One key that changed, `site.timeZone` say, with its values before and after. */
export interface SettingChange {
  key: string;
  oldValue: unknown;
  newValue: unknown;
}

/**
 * The site settings in force. An update is saved to the user config file first and then
 * applied: `config` (the object every service was built from) is updated in place and a
 * `changed` event goes out, which the services that read these settings at start listen to
 * (see container/apply-live.ts), so a change takes effect without a restart.
 */
export class LiveSiteSettings extends SafeEmitter<{ changed: (now: Config, changes: SettingChange[]) => void }> {
  constructor(
    private readonly config: Config,
    private readonly file: string,
  ) {
    super();
  }

  current(): SiteSettings {
    const { site, energy, prices, forecast, alerts } = this.config;
    return structuredClone({ site, energy, prices, forecast, alerts });
  }

  /** The site's time zone with null resolved to the system's. */
  timeZone(): string {
    return siteTimeZone(this.config);
  }

  /**
   * Applies a validated patch: saves it, updates the config in place, and tells the
   * listeners. Keys whose value does not change are left out of the file and the changes.
   */
  update(patch: SiteSettingsPatch): SettingChange[] {
    const changes: SettingChange[] = [];
    const toSave: Record<string, Record<string, unknown>> = {};
    for (const section of ['site', 'energy', 'prices', 'forecast', 'alerts'] as const) {
      const values = patch[section] as Record<string, unknown> | undefined;
      if (!values) continue;
      const target = this.config[section] as Record<string, unknown>;
      for (const [key, value] of Object.entries(values)) {
        // A list (`prices.fallbacks`) is a new array in every patch: compared by its items.
        if (value === undefined || isDeepStrictEqual(target[key], value)) continue;
        changes.push({ key: `${section}.${key}`, oldValue: target[key], newValue: value });
        (toSave[section] ??= {})[key] = value;
      }
    }
    if (changes.length === 0) return changes;
    saveConfigChanges(this.file, toSave);
    for (const [section, values] of Object.entries(toSave))
      Object.assign(this.config[section as SiteSettingsSection], values);
    this.emit('changed', this.config, changes);
    return changes;
  }
}
