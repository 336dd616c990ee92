import { siteTimeZone } from '../config/schema.js';
import { DbWriter } from '../db-writer.js';
import { EnergyTotals } from '../energy/kwh-totals.js';
import { ForecastStore } from '../forecast/store.js';
import { PriceBook } from '../grid/book.js';
import { PriceHistory } from '../grid/price-history.js';
import { Recorder } from '../history/recorder.js';
import { ContextBuilder, type ContextServices, type PluginInstanceScope } from '../plugins/context.js';
import { createHttpClient } from '../plugins/http-client.js';
import { RecordedFeed } from '../plugins/integration-recorded.js';
import { storeHistoryReader } from '../plugins/site.js';
import { TotalsDeriver } from '../topics/power-totals.js';
import { TopicRegistry } from '../topics/registry.js';
import { AuditLog } from '../writes/audit.js';
import { WriteService } from '../writes/service.js';
import { instanceCachingFactory, type DependencyContainer } from './di.js';
import {
  CLOCK,
  CONFIG,
  CONTEXT_SERVICES,
  DATA_DIR,
  DB,
  DB_WRITER,
  HISTORY,
  HTTP_CLIENT,
  PLUGIN_CONTEXTS,
  PLUGIN_INSTANCE,
  SITE,
  SITE_ID,
} from './tokens.js';

/**
 * Registers how the core's services are made; nothing is built here. The composition root
 * (server.ts) registers CLOCK and CONFIG before, opens what opens asynchronously (the
 * database, the history store, auth) and registers it as a value, and resolves services in
 * dependency order, so it also knows the order in which to close them.
 *
 * Classes whose collaborators are all injectable take them by constructor injection
 * (@injectable); those configured with plain values (a time zone, a reset period) are
 * registered with a factory that reads them from CONFIG. Every service is one instance per
 * container: two servers in one process (tests) never share one.
 */
export function registerCoreServices(di: DependencyContainer): void {
  const cached = <T>(make: (c: DependencyContainer) => T) => ({ useFactory: instanceCachingFactory(make) });

  di.register(
    SITE,
    cached((c) => {
      const { site } = c.resolve(CONFIG);
      return {
        timeZone: siteTimeZone(c.resolve(CONFIG)),
        latitude: site.latitude,
        longitude: site.longitude,
        temperatureUnit: site.temperatureUnit,
      };
    }),
  );
  // The one write path to the database file, shared by every writer (db-writer.ts).
  di.register(
    DB_WRITER,
    cached((c) => new DbWriter(() => c.resolve(CLOCK).now())),
  );
  di.registerSingleton(TopicRegistry);
  di.registerSingleton(TotalsDeriver);
  di.registerSingleton(AuditLog);
  di.registerSingleton(RecordedFeed);
  di.register(
    WriteService,
    cached((c) => new WriteService(c.resolve(TopicRegistry), c.resolve(AuditLog), c.resolve(CLOCK))),
  );
  di.register(
    EnergyTotals,
    cached((c) => {
      const config = c.resolve(CONFIG);
      // Saved after each tick that moves them; the interval (history's flush) retries a failed save.
      return new EnergyTotals(
        c.resolve(TopicRegistry),
        c.resolve(DB),
        c.resolve(CLOCK),
        config.energy.resetPeriod,
        siteTimeZone(config),
        config.history.flushIntervalMs,
        c.resolve(DB_WRITER),
      );
    }),
  );
  di.register(
    Recorder,
    cached(
      (c) =>
        new Recorder({
          registry: c.resolve(TopicRegistry),
          store: c.resolve(HISTORY),
          clock: c.resolve(CLOCK),
          feed: c.resolve(RecordedFeed),
        }),
    ),
  );
  di.register(
    ForecastStore,
    cached(
      (c) =>
        new ForecastStore({
          registry: c.resolve(TopicRegistry),
          clock: c.resolve(CLOCK),
          temperatureUnit: c.resolve(CONFIG).site.temperatureUnit,
        }),
    ),
  );
  di.register(
    PriceBook,
    cached((c) => {
      const config = c.resolve(CONFIG);
      return new PriceBook({
        clock: c.resolve(CLOCK),
        timeZone: siteTimeZone(config),
        multiplier: config.prices.multiplier,
        offset: config.prices.offset,
        // Past prices, for the cost of past days: in the database file, through its one write path.
        history: new PriceHistory(c.resolve(DB), c.resolve(CLOCK), c.resolve(DB_WRITER)),
      });
    }),
  );

  di.register(HTTP_CLIENT, { useValue: createHttpClient });
  di.register(
    CONTEXT_SERVICES,
    cached((c): ContextServices => ({
      clock: c.resolve(CLOCK),
      db: c.resolve(DB),
      writer: c.resolve(DB_WRITER),
      registry: c.resolve(TopicRegistry),
      writes: c.resolve(WriteService),
      // Unregistered when the service runs without history (a damaged file).
      history: c.isRegistered(HISTORY) ? c.resolve(HISTORY) : undefined,
      forecast: c.resolve(ForecastStore),
      prices: c.resolve(PriceBook),
      site: c.resolve(SITE),
      reads: {
        prices: c.resolve(PriceBook),
        forecast: c.resolve(ForecastStore),
        history: c.isRegistered(HISTORY) ? storeHistoryReader(c.resolve(TopicRegistry), c.resolve(HISTORY)) : undefined,
      },
      // Registered by the composition root, which knows where the data lives.
      integration: c.isRegistered(DATA_DIR)
        ? { recorded: c.resolve(RecordedFeed), dataDir: c.resolve(DATA_DIR), siteId: c.resolve(SITE_ID) }
        : undefined,
    })),
  );
  // Each start of a plugin instance gets a child container holding that instance, so what
  // its context is made of is resolved for it alone and overridable like everything else.
  di.register(
    PLUGIN_CONTEXTS,
    cached((c) => (instance: PluginInstanceScope) => {
      const scope = c.createChildContainer();
      scope.register(PLUGIN_INSTANCE, { useValue: instance });
      return scope.resolve(ContextBuilder);
    }),
  );
}
