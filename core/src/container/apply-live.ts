import type { Alerts } from '../alerts/alerts.js';
import type { EnergyTotals } from '../energy/kwh-totals.js';
import type { ForecastStore } from '../forecast/store.js';
import type { PriceBook } from '../grid/book.js';
import { createLogger } from '../log.js';
import type { PluginHost } from '../plugins/host/host.js';
import { siteTimeZone } from '../config/schema.js';
import type { LiveSiteSettings } from '../config/site-settings.js';

const log = createLogger('config');

/** The keys whose change plugins must see: they read `ctx.site` at setup. */
const SITE_KEYS_FOR_PLUGINS = new Set(['site.timeZone', 'site.latitude', 'site.longitude', 'site.temperatureUnit']);

/**
 * Hands changed site settings to the services that read them at start: energy totals (reset
 * period, time zone), the price book (multiplier, offset, export price, time zone, source), the
 * forecast store (temperature unit, source), the alerts (thresholds) and the plugins (`ctx.site`: they restart with the new one). Returns
 * the disposer.
 */
export function applySiteSettingsLive(
  settings: LiveSiteSettings,
  services: { energy: EnergyTotals; prices: PriceBook; forecast: ForecastStore; plugins: PluginHost; alerts?: Alerts },
): () => void {
  const listener: Parameters<LiveSiteSettings['on']>[1] = (config, changes) => {
    const changed = new Set(changes.map((c) => c.key));
    const timeZone = siteTimeZone(config);
    if (changed.has('energy.resetPeriod') || changed.has('site.timeZone'))
      services.energy.reconfigure({ period: config.energy.resetPeriod, timeZone });
    if ([...changed].some((key) => key.startsWith('prices.')) || changed.has('site.timeZone')) {
      const { multiplier, offset, exportPrice, source, fallbacks } = config.prices;
      services.prices.reconfigure({ timeZone, multiplier, offset, exportPrice, source, fallbacks });
    }
    if ([...changed].some((key) => key.startsWith('forecast.'))) services.forecast.choose(config.forecast);
    if ([...changed].some((key) => key.startsWith('alerts.'))) services.alerts?.reconfigure(config.alerts);
    if (changed.has('site.temperatureUnit')) services.forecast.setTemperatureUnit(config.site.temperatureUnit);
    if ([...changed].some((key) => SITE_KEYS_FOR_PLUGINS.has(key))) {
      const site = {
        timeZone,
        latitude: config.site.latitude,
        longitude: config.site.longitude,
        temperatureUnit: config.site.temperatureUnit,
      };
      // Not awaited: a plugin's setup may take long (a device, a provider); its status shows it.
      services.plugins
        .updateSite(site)
        .catch((err) => log.error('restarting plugins with the new site settings failed', { err }));
    }
  };
  settings.on('changed', listener);
  return () => settings.off('changed', listener);
}
