/*
 * The plain values every part of the plugin context shares: a registration's undo, a
 * current value, the site's settings. Re-exported from the SDK's main entry.
 */
/**
 * Undoes one registration (a declared device, a scheduled job, a price source...).
 * Calling it twice is harmless.
 *
 * @example
 * const stop = ctx.scheduler.every({ name: 'poll', intervalMs: 5000, run: poll });
 * stop(); // the job no longer runs
 */
export type Disposer = () => void;

/**
 * What a plugin's `setup` may return: undoes whatever else it started. One that returns a
 * promise is awaited (at most 8 s) while the plugin's registrations and every other plugin
 * still work, so a planner can put a battery back to Normal through its driver on the way out;
 * the registrations are undone after it.
 *
 * @example
 * return async () => { await controller.stop(); };
 */
export type Cleanup = () => void | Promise<void>;

/**
 * A current value: a number for measurements, a string for modes and enumerated settings,
 * a boolean for on/off settings, `null` when there is no reading.
 *
 * @example
 * ctx.topics.publish({ device: 'inverter_1', values: { pv_power: 1830, device_mode: 'Solar' } });
 */
export type MetricValue = number | string | boolean | null;

/**
 * Site settings a plugin may read (from the core config); `ctx.site` has them next to the
 * site's topics and prices (see `SiteApi`).
 *
 * @example
 * const days = localDays({ now: ctx.now(), zone: ctx.site.timeZone });
 * const unit = ctx.site.temperatureUnit === 'F' ? 'fahrenheit' : 'celsius';
 */
export interface SiteInfo {
  /** IANA time zone, e.g. `Europe/Berlin`. */
  timeZone: string;
  latitude: number;
  longitude: number;
  temperatureUnit: 'C' | 'F';
}
