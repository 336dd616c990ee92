import type { DependencyContainer } from 'tsyringe';
import { LiveSiteSettings } from '../config/site-settings.js';
import { HISTORY_STATUS } from '../container/service-tokens.js';
import { SITE_ID } from '../container/tokens.js';
import { EnergyTotals } from '../energy/kwh-totals.js';
import { VERSION } from '../install-root.js';
import { PluginHost } from '../plugins/host/host.js';
import { TopicRegistry } from '../topics/registry.js';
import type { prometheusRegistry } from './prometheus.js';

/**
 * prom-client is loaded and its registry built at the first scrape: a service nobody
 * scrapes does not carry it (RSS after start, npm run bench).
 */
export function scrapeRegistry(di: DependencyContainer): () => Promise<ReturnType<typeof prometheusRegistry>> {
  let made: Promise<ReturnType<typeof prometheusRegistry>> | undefined;
  return () =>
    (made ??= import('./prometheus.js').then((exporter) => {
      const plugins = di.resolve(PluginHost);
      const energy = di.resolve(EnergyTotals);
      const settings = di.resolve(LiveSiteSettings);
      const historyStatus = di.resolve(HISTORY_STATUS);
      return exporter.prometheusRegistry({
        registry: di.resolve(TopicRegistry),
        plugins: () => [...plugins.status(), historyStatus()],
        energyPeriod: () => ({ period: settings.current().energy.resetPeriod, startMs: energy.currentPeriod.start }),
        version: VERSION,
        siteId: di.resolve(SITE_ID),
      });
    }));
}
