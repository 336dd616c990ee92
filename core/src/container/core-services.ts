import { Alerts } from '../alerts/alerts.js';
import { AuthService } from '../auth/service.js';
import { siteTimeZone } from '../config/schema.js';
import { LiveSiteSettings } from '../config/site-settings.js';
import { SettingsLog } from '../config/settings-log.js';
import { DbWriter } from '../db-writer.js';
import { EnergyTotals, type ResetPeriod } from '../energy/kwh-totals.js';
import { PeriodEnergy } from '../energy/period-energy.js';
import { latestCurrency } from '../energy/period-money.js';
import { ForecastStore } from '../forecast/store.js';
import { PriceBook } from '../grid/book.js';
import { PriceHistory } from '../grid/price-history.js';
import { Recorder } from '../history/recorder.js';
import { historyStatusRow } from '../history/status.js';
import { VERSION } from '../install-root.js';
import { ContextBuilder } from '../plugins/context/context.js';
import {
  CONTEXT_SERVICES,
  PLUGIN_INSTANCE,
  type ContextServices,
  type PluginInstanceScope,
} from '../plugins/context/services.js';
import { PluginHost } from '../plugins/host/host.js';
import { createHttpClient } from '../plugins/context/http-client.js';
import { RecordedFeed } from '../plugins/context/integration-recorded.js';
import { ProgressBoard } from '../plugins/context/progress.js';
import { UpgradeRoutes } from '../plugins/context/upgrades.js';
import { storeHistoryReader } from '../plugins/context/site.js';
import { SystemInfo } from '../system/info.js';
import { TotalsDeriver } from '../topics/power-totals.js';
import { TopicRegistry } from '../topics/registry.js';
import { AuditLog } from '../writes/audit.js';
import { WriteService } from '../writes/service.js';
import { instanceCachingFactory, type DependencyContainer } from './di.js';
import {
  CLOCK,
  CONFIG,
  CONFIG_FILE,
  DATA_DIR,
  DB,
  DB_WRITER,
  HTTP_CLIENT,
  PLUGINS_FILE,
  SITE,
  SITE_ID,
  STARTED_AT,
} from './tokens.js';
import {
  CORE_DB_OPENED,
  DISCOVERED_PLUGINS,
  HISTORY,
  HISTORY_STATUS,
  OPENED_HISTORY,
  PLUGIN_CONTEXTS,
  PLUGIN_INSTANCES,
} from './service-tokens.js';

/**
 * Registers how the core's services are made; nothing is built here. The composition root
 * (server.ts) registers the values it starts from (CLOCK, CONFIG, the files) before, opens
 * what opens asynchronously (the database, the history store) and registers it as a value,
 * and resolves services in dependency order, so it also knows the order in which to close
 * them.
 *
 * Each service is registered with a factory that hands it its collaborators, so the domain's
 * classes carry no DI decorators and a test builds one with `new`. The one class built by
 * constructor injection is the plugin ContextBuilder, made in a child container per instance
 * start (PLUGIN_INSTANCE differs in each). Every service is one instance per
 * container: two servers in one process (tests) never share one.
 */
export function registerCoreServices(di: DependencyContainer): void {
  registerStores(di);
  registerFedStores(di);
  registerEnergyServices(di);
  registerPluginServices(di);
  registerSiteServices(di);
}

/** One instance per container, made on the first resolve. */
const cached = <T>(make: (c: DependencyContainer) => T) => ({ useFactory: instanceCachingFactory(make) });

/** The site, the registry and its derivers, the audit and the write path. */
function registerStores(di: DependencyContainer): void {
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
  di.register(
    TopicRegistry,
    cached((c) => new TopicRegistry(c.resolve(CLOCK))),
  );
  di.register(
    TotalsDeriver,
    cached((c) => new TotalsDeriver(c.resolve(TopicRegistry))),
  );
  di.register(
    AuditLog,
    cached((c) => new AuditLog(c.resolve(DB), c.resolve(CLOCK), c.resolve(DB_WRITER))),
  );
  di.register(
    RecordedFeed,
    cached(() => new RecordedFeed()),
  );
  di.registerSingleton(UpgradeRoutes);
  di.register(
    WriteService,
    cached((c) => new WriteService(c.resolve(TopicRegistry), c.resolve(AuditLog), c.resolve(CLOCK))),
  );
}

/** The stores fed by the registry: energy totals, history, the forecast, prices. */
function registerFedStores(di: DependencyContainer): void {
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
          // The owner's forecast source and fallbacks: the others' forecasts are kept, not used.
          choice: { ...c.resolve(CONFIG).forecast },
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
        exportPrice: config.prices.exportPrice,
        // The owner's price source and fallbacks: the others' prices are kept, not used.
        source: config.prices.source,
        fallbacks: config.prices.fallbacks,
        // Past prices, for the cost of past days: in the database file, through its one write path.
        history: new PriceHistory(c.resolve(DB), c.resolve(CLOCK), c.resolve(DB_WRITER)),
      });
    }),
  );
}

/** The settings change log and the energy per period read by it. */
function registerEnergyServices(di: DependencyContainer): void {
  // When the zone and the reset period changed: the rules past energy is read by.
  di.register(
    SettingsLog,
    cached((c) => new SettingsLog(c.resolve(DB), c.resolve(CLOCK), c.resolve(DB_WRITER))),
  );
  // Needs HISTORY: resolved only when the history store opened.
  di.register(
    PeriodEnergy,
    cached((c) => {
      const config = c.resolve(CONFIG);
      const db = c.resolve(DB);
      const book = c.resolve(PriceBook);
      return new PeriodEnergy({
        store: c.resolve(HISTORY),
        db,
        log: c.resolve(SettingsLog),
        timeZone: () => siteTimeZone(config),
        now: () => c.resolve(CLOCK).now(),
        priceAdjust: () => config.prices,
        currency: async () => book.schedule().pricing?.currency ?? (await latestCurrency(db)),
      });
    }),
  );
}

/** What plugins are handed (their contexts) and the host that runs them. */
function registerPluginServices(di: DependencyContainer): void {
  di.register(HTTP_CLIENT, { useValue: createHttpClient });
  // One board for every instance's `ctx.status.progress`: the contexts write it, GET /plugins reads it.
  di.register(
    ProgressBoard,
    cached((c) => new ProgressBoard(c.resolve(CLOCK))),
  );
  di.register(
    CONTEXT_SERVICES,
    cached((c): ContextServices => ({
      clock: c.resolve(CLOCK),
      db: c.resolve(DB),
      writer: c.resolve(DB_WRITER),
      registry: c.resolve(TopicRegistry),
      writes: c.resolve(WriteService),
      audit: c.resolve(AuditLog),
      // Unregistered when the service runs without history (a damaged file).
      history: c.isRegistered(HISTORY) ? c.resolve(HISTORY) : undefined,
      forecast: c.resolve(ForecastStore),
      prices: c.resolve(PriceBook),
      energyReset: energyRulesAt(c),
      // Today's part of a first start's backfill counts in today's live totals.
      pastEnergy: (series) => c.resolve(EnergyTotals).addPast(series),
      site: c.resolve(SITE),
      reads: {
        prices: c.resolve(PriceBook),
        forecast: c.resolve(ForecastStore),
        history: c.isRegistered(HISTORY) ? storeHistoryReader(c.resolve(TopicRegistry), c.resolve(HISTORY)) : undefined,
      },
      // Registered by the composition root, which knows where the data lives.
      integration: c.isRegistered(DATA_DIR)
        ? {
            recorded: c.resolve(RecordedFeed),
            dataDir: c.resolve(DATA_DIR),
            siteId: c.resolve(SITE_ID),
            upgrades: c.resolve(UpgradeRoutes),
          }
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
  di.register(
    PluginHost,
    cached(
      (c) =>
        new PluginHost(
          c.resolve(CONTEXT_SERVICES),
          c.resolve(DISCOVERED_PLUGINS),
          c.resolve(PLUGIN_INSTANCES),
          c.resolve(PLUGINS_FILE),
          c.resolve(PLUGIN_CONTEXTS),
        ),
    ),
  );
}

/** The site's settings, alerts, auth, the unit's description and history's status row. */
function registerSiteServices(di: DependencyContainer): void {
  di.register(
    AuthService,
    cached((c) => new AuthService(c.resolve(DB), c.resolve(CLOCK), c.resolve(CONFIG).auth, c.resolve(DB_WRITER))),
  );
  di.register(
    LiveSiteSettings,
    cached((c) => new LiveSiteSettings(c.resolve(CONFIG), c.resolve(CONFIG_FILE))),
  );
  di.register(
    Alerts,
    cached((c) => new Alerts(c.resolve(TopicRegistry), c.resolve(CLOCK), c.resolve(CONFIG).alerts)),
  );
  di.register(
    SystemInfo,
    cached(
      (c) =>
        new SystemInfo({
          clock: c.resolve(CLOCK),
          siteId: c.resolve(SITE_ID),
          version: VERSION,
          dataDir: c.resolve(DATA_DIR),
          startedAt: c.resolve(STARTED_AT),
        }),
    ),
  );
  di.register(
    HISTORY_STATUS,
    cached((c) => {
      const writer = c.resolve(DB_WRITER);
      const audit = c.resolve(AuditLog);
      const energy = c.resolve(EnergyTotals);
      const storageTrouble = () => {
        const waiting = writer.trouble;
        return (
          audit.trouble ??
          energy.trouble ??
          (waiting
            ? `database writes wait for a lock held by another process since ${new Date(waiting.since).toISOString()} (${waiting.error}); ${waiting.what} retrying, nothing dropped`
            : null)
        );
      };
      const opened = c.resolve(OPENED_HISTORY);
      const { setAsideAs } = c.resolve(CORE_DB_OPENED);
      return () => historyStatusRow(opened, setAsideAs, storageTrouble());
    }),
  );
}

/**
 * The energy rules in force at a past reading's time (the settings log), else those of the live
 * totals; asked once per reading of a backfill, so the services are resolved once.
 */
function energyRulesAt(c: DependencyContainer): (time: number) => { period: ResetPeriod; timeZone: string } {
  let log: SettingsLog | undefined;
  let totals: EnergyTotals | undefined;
  return (time) => {
    log ??= c.resolve(SettingsLog);
    return log.energyRulesAt(time) ?? (totals ??= c.resolve(EnergyTotals)).reset;
  };
}
