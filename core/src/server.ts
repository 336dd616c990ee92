import { join } from 'node:path';
import { systemClock } from './clock.js';
import { ROOT_DIR, VERSION, WEB_DIST } from './install-root.js';
import { loadConfig } from './config/load.js';
import type { Config } from './config/schema.js';
import { container, type DependencyContainer } from './container/di.js';
import { registerCoreServices } from './container/core-services.js';
import {
  CLOCK,
  CONFIG,
  CONTEXT_SERVICES,
  DATA_DIR,
  DB,
  DB_WRITER,
  HISTORY,
  PLUGIN_CONTEXTS,
  SITE_ID,
} from './container/tokens.js';
import { EnergyTotals, energyMigrations } from './energy/kwh-totals.js';
import { TopicRegistry } from './topics/registry.js';
import { TotalsDeriver } from './topics/power-totals.js';
import { AuditLog, auditMigrations } from './writes/audit.js';
import { WriteService } from './writes/service.js';
import { AuthService } from './auth/service.js';
import { pluginStoreMigrations } from './plugins/plugin-store.js';
import { discoverPlugins } from './plugins/discovery.js';
import { checkPluginDirs, withPluginDirs } from './plugins/plugin-dirs.js';
import { loadDefinition } from './plugins/isolation.js';
import { importDefinition } from './plugins/installed.js';
import { PluginHost } from './plugins/host.js';
import { loadPluginsFile, savePluginsFile } from './plugins/instances.js';
import { appRoutes, createApp, listen, type AppOptions } from './api/app.js';
import type { RouteInfo } from './api/routes.js';
import { HostPolicy } from './api/host-policy.js';
import { metricsRoutes } from './api/metrics/route.js';
import { snapshotLane } from './api/metrics/snapshot-lane.js';
import { pluginsRoutes } from './api/plugins/list.js';
import { auditRoutes } from './api/audit/route.js';
import { tokensRoutes } from './api/tokens/route.js';
import { ForecastStore } from './forecast/store.js';
import { PriceBook } from './grid/book.js';
import { priceMigrations } from './grid/price-history.js';
import { forecastRoutes } from './api/forecast/route.js';
import { gridRoutes } from './api/grid/route.js';
import { pluginConfigRoutes } from './api/plugins/config.js';
import { staticRoutes } from './api/static.js';
import { historyRoutes } from './api/history/route.js';
import { openCoreDatabase, openHistory } from './history/open.js';
import { historyStatusRow } from './history/status.js';
import { Recorder } from './history/recorder.js';
import { attachWebsocket, upgradeRequiredRoutes } from './api/websocket/index.js';
import { createLogger } from './log.js';
import { systemRoutes } from './api/system/route.js';
import { SystemInfo } from './system/info.js';
import { loadSiteId } from './system/site-id.js';
import { mdnsEnabled } from './system/mdns-enabled.js';
import { SetupCode } from './auth/setup-code.js';
import { setupRoutes } from './api/setup/route.js';
import { setupAudit } from './api/change-audit.js';
import { pluginInstancesRoutes } from './api/plugins/instances.js';
import { siteConfigRoutes } from './api/config/route.js';
import { LiveSiteSettings } from './config/site-settings.js';
import { applySiteSettingsLive } from './config/apply-live.js';
import { Alerts } from './alerts/alerts.js';
import { openApiRoutes } from './api/openapi/route.js';
import { prometheusRoutes } from './api/prometheus/route.js';
import type { prometheusRegistry } from './metrics-export/prometheus.js';

const log = createLogger('server');

/** The tokens a caller of startHeliograph may register over (ServerOptions.register). */
export { CLOCK, HTTP_CLIENT } from './container/tokens.js';

export { ROOT_DIR, VERSION } from './install-root.js';

export interface ServerOptions {
  host: string;
  port: number;
  dataDir: string;
  pluginsFile: string;
  /** User config file; default `<dataDir>/config.json` when it exists. */
  configFile?: string;
  /** Sets the device password at start (containers, tests). */
  password?: string;
  /**
   * Registrations over the defaults, made before anything is resolved: tests register a
   * manual clock (CLOCK), a fake HTTP client factory for plugins' `ctx.http`
   * (HTTP_CLIENT) or any service of their own instead of threading arguments through.
   */
  register?: (container: DependencyContainer) => void;
  /** Where plugins are discovered; default the repository root. */
  rootDir?: string;
  /** Plugin folders under development (`--plugin-dir`): a plugin package, or a folder of them. */
  pluginDirs?: string[];
  /** mDNS advertisement; overrides HELIOGRAPH_MDNS and the config (tests turn it off, or bind it to loopback). */
  mdns?: { enabled: boolean; interface?: string };
}

export interface Heliograph {
  url: string;
  port: number;
  config: Config;
  registry: TopicRegistry;
  plugins: PluginHost;
  /** Resolves when every plugin has started or failed (the API answers before that). */
  pluginsStarted: Promise<void>;
  auth: AuthService;
  /** `system/site_id`, the unit's identity, kept in the data directory. */
  siteId: number;
  /** The first-run setup code (printed to the log); its value is undefined once a password exists. */
  setupCode: SetupCode;
  /** Every HTTP route with the scope it needs (`public` for the page and the stream's hint). */
  routes: RouteInfo[];
  /** Stops plugins, flushes everything to disk and closes the server. */
  close(): Promise<void>;
}

/**
 * The composition root. A container of this server's own (a child of tsyringe's global one,
 * so two servers in one process share nothing) knows how every service is made
 * (container/core-services.ts); what opens asynchronously is opened here first and
 * registered as a value. Services are resolved in dependency order and undone in reverse
 * on close; a failed start undoes what was built. Plugins start after the server listens,
 * so the API answers at once while devices are still being contacted.
 */
export async function startHeliograph(options: ServerOptions): Promise<Heliograph> {
  const configFile = options.configFile ?? join(options.dataDir, 'config.json');
  const config = loadConfig(configFile);
  const instances = loadPluginsFile(options.pluginsFile);
  const di = container.createChildContainer();
  di.register(CONFIG, { useValue: config });
  di.register(CLOCK, { useValue: systemClock });
  di.register(DATA_DIR, { useValue: options.dataDir });
  registerCoreServices(di);
  options.register?.(di);
  const clock = di.resolve(CLOCK);
  const startedAt = clock.now();
  const mdns = options.mdns ?? { enabled: mdnsEnabled(config), interface: config.mdns.interface ?? undefined };

  const dbFile = join(options.dataDir, 'heliograph.db');
  // A damaged file is set aside and a new one started (history/open.ts): never a dead service.
  const { db, setAsideAs } = await openCoreDatabase(
    dbFile,
    [...auditMigrations, ...energyMigrations, ...pluginStoreMigrations, ...priceMigrations],
    clock,
  );
  const closers: Array<() => Promise<void> | void> = [() => db.close()];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) {
      try {
        await closer();
      } catch (err) {
        log.error('error while closing', { err });
      }
    }
  };

  try {
    di.register(DB, { useValue: db });
    // Every writer of the file (history on its connection, audit, totals) takes its turn here.
    const writer = di.resolve(DB_WRITER);
    const siteId = loadSiteId(options.dataDir);
    di.register(SITE_ID, { useValue: siteId });

    const registry = di.resolve(TopicRegistry);
    closers.push(di.resolve(TotalsDeriver).start());
    const energy = di.resolve(EnergyTotals);
    closers.push(await energy.start());
    const staleTimer = setInterval(() => registry.checkStale(), 5000);
    closers.push(() => clearInterval(staleTimer));

    // History writes its batches on a connection of its own: a transaction on a shared
    // connection would take in whatever else ran on it meanwhile. Without history (its
    // tables damaged) the service still starts, and HISTORY stays unregistered: see history/open.ts.
    const opened = await openHistory(dbFile, clock, config.history, writer);
    const history = opened.store;
    if (opened.store) {
      const { db: historyDb, store } = opened;
      closers.push(() => historyDb.close());
      closers.push(() => store.close());
      di.register(HISTORY, { useValue: store });
      const recorder = di.resolve(Recorder);
      recorder.start();
      closers.push(() => recorder.stop());
    }
    const historyStatus = () => historyStatusRow(opened, setAsideAs, storageTrouble());
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

    const audit = di.resolve(AuditLog);
    closers.push(async () => {
      await audit.flush();
      audit.close();
    });
    const writes = di.resolve(WriteService);
    const auth = await AuthService.create(db, clock, config.auth);
    if (options.password) await auth.ensurePassword(options.password);
    const setupCode = SetupCode.forStart(await auth.hasPassword(), join(options.dataDir, 'setup-code'));
    const record = setupAudit(audit, clock);

    const forecast = di.resolve(ForecastStore);
    forecast.start();
    closers.push(() => forecast.stop());
    const system = new SystemInfo({ clock, siteId, version: VERSION, dataDir: options.dataDir, startedAt });
    const prices = di.resolve(PriceBook);
    closers.push(() => prices.flush());

    const discovered = withPluginDirs(discoverPlugins(options.rootDir ?? ROOT_DIR), options.pluginDirs ?? []);
    await checkPluginDirs(discovered, (plugin) => loadDefinition({}, plugin, () => importDefinition(plugin)));
    const plugins = new PluginHost(
      di.resolve(CONTEXT_SERVICES),
      discovered,
      instances,
      options.pluginsFile,
      di.resolve(PLUGIN_CONTEXTS),
    );
    await plugins.load();
    const settings = new LiveSiteSettings(config, configFile);
    const alerts = new Alerts(registry, clock, config.alerts);
    closers.push(alerts.start());
    closers.push(writes.onRefused((topic, message) => alerts.writeRefused(topic, message)));
    closers.push(applySiteSettingsLive(settings, { energy, prices, forecast, plugins, alerts }));
    const savePlugins = (entries: Parameters<typeof savePluginsFile>[1]) =>
      savePluginsFile(options.pluginsFile, entries);

    const hosts = new HostPolicy(config.security);
    // prom-client is loaded and its registry built at the first scrape: a service nobody
    // scrapes does not carry it (RSS after start, npm run bench).
    let scrapeRegistry: Promise<ReturnType<typeof prometheusRegistry>> | undefined;
    const prometheus = prometheusRoutes({
      register: () =>
        (scrapeRegistry ??= import('./metrics-export/prometheus.js').then((exporter) =>
          exporter.prometheusRegistry({
            registry,
            plugins: () => [...plugins.status(), historyStatus()],
            energyPeriod: () => ({
              period: settings.current().energy.resetPeriod,
              startMs: energy.currentPeriod.start,
            }),
            version: VERSION,
            siteId,
          }),
        )),
      open: config.prometheus.openScrape,
    });
    const appOptions: AppOptions = {
      auth,
      hosts,
      realm: config.site.name,
      routers: [
        metricsRoutes({ registry, writes }),
        historyRoutes({ registry, store: history, clock, unavailable: () => (opened.store ? '' : opened.reason) }),
        forecastRoutes({ store: forecast, clock, registry }),
        gridRoutes({ book: prices }),
        pluginInstancesRoutes({ host: plugins, save: savePlugins, record }),
        pluginsRoutes({ host: plugins, extra: () => [historyStatus()] }),
        pluginConfigRoutes({ host: plugins, save: savePlugins, record }),
        siteConfigRoutes({ settings, record }),
        auditRoutes({ audit }),
        tokensRoutes({ auth, record }),
        systemRoutes({ system }),
        openApiRoutes({ routes: () => appRoutes(appOptions), version: VERSION }),
      ],
      rootRouters: config.prometheus.openScrape ? [] : [prometheus],
      publicRouters: [
        ...(config.prometheus.openScrape ? [prometheus] : []),
        upgradeRequiredRoutes(),
        setupRoutes({ auth, setupCode, clock, realm: config.site.name, record }),
        staticRoutes({ dir: WEB_DIST }),
      ],
    };
    const app = createApp(appOptions);
    const server = await listen(app, options.host, options.port, snapshotLane({ registry, auth, hosts }));
    closers.push(() => server.close());
    // Open sockets would hold server.close() up, so they are closed first (closers run in reverse).
    const websocket = attachWebsocket({
      app,
      server: server.server,
      registry,
      auth,
      realm: config.site.name,
      writes,
      system,
      clock,
      hosts,
      revocations: auth,
    });
    closers.push(() => websocket.close());
    if (mdns.enabled) {
      // Loaded only when advertising: bonjour-service and its DNS code are ~5 MB of a small device's memory.
      const { advertiseMdns } = await import('./system/mdns.js');
      const advertisement = advertiseMdns({
        port: server.port,
        siteId,
        name: `${config.site.name} ${siteId}`,
        interface: mdns.interface,
      });
      closers.push(() => advertisement.close());
    }

    closers.push(() => plugins.stopAll());
    const pluginsStarted = plugins.startAll();
    return {
      url: server.url,
      port: server.port,
      config,
      registry,
      plugins,
      pluginsStarted,
      auth,
      siteId,
      setupCode,
      routes: appRoutes(appOptions),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
