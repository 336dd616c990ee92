import { join } from 'node:path';
import { systemClock } from './clock.js';
import { VERSION, WEB_DIST } from './install-root.js';
import { loadConfig } from './config/load.js';
import type { Config } from './config/schema.js';
import { container, instanceCachingFactory, type DependencyContainer, type InjectionToken } from './container/di.js';
import { Closers } from './container/closers.js';
import { discoverAll, loadPlugins } from './container/plugin-load.js';
import { lockDataDir, SERVE_HINT } from './system/data-dir-lock.js';
import { registerCoreServices } from './container/core-services.js';
import {
  CLOCK,
  CONFIG,
  CONFIG_FILE,
  DATA_DIR,
  DB,
  DB_WRITER,
  PLUGINS_FILE,
  SITE_ID,
  STARTED_AT,
} from './container/tokens.js';
import {
  CORE_DB_OPENED,
  DISCOVERED_PLUGINS,
  HISTORY,
  HISTORY_STATUS,
  OPENED_HISTORY,
  PLUGIN_INSTANCES,
} from './container/service-tokens.js';
import { EnergyTotals } from './energy/kwh-totals.js';
import { TopicRegistry } from './topics/registry.js';
import { TotalsDeriver } from './topics/power-totals.js';
import { AuditLog } from './writes/audit.js';
import { WriteService } from './writes/service.js';
import { CORE_MIGRATIONS, prepareSchema } from './schema.js';
import { AuthService } from './auth/service.js';
import { PluginHost } from './plugins/host/host.js';
import { ProgressBoard } from './plugins/context/progress.js';
import { loadPluginsFile, savePluginsFile } from './plugins/instances/instances.js';
import { appRoutes, createApp, listen, type AppOptions } from './api/app.js';
import { pluginsLoadedLane } from './api/loading-lane.js';
import { listenFailure } from './api/listen-failure.js';
import type { RouteInfo } from './api/routes.js';
import { HostPolicy } from './api/host-policy.js';
import { metricsRoutes } from './api/metrics/route.js';
import { snapshotLane } from './api/metrics/snapshot-lane.js';
import { pluginsRoutes } from './api/plugins/list.js';
import { auditRoutes } from './api/audit/route.js';
import { tokensRoutes } from './api/tokens/route.js';
import { ForecastStore } from './forecast/store.js';
import { PriceBook } from './grid/book.js';
import { forecastRoutes } from './api/forecast/route.js';
import { gridRoutes } from './api/grid/route.js';
import { energyRoutes } from './api/energy/route.js';
import { pluginConfigRoutes, type SavePluginEntries } from './api/plugins/config.js';
import { staticRoutes } from './api/static.js';
import { historyRoutes } from './api/history/route.js';
import { historyLane } from './api/history/lane.js';
import type { HistoryDeps } from './api/history/answer.js';
import { HistoryAnswers } from './api/history/answer-cache.js';
import { openCoreDatabase, openHistory } from './history/open.js';
import { Recorder } from './history/recorder.js';
import { attachWebsocket, upgradeRequiredRoutes } from './api/websocket/index.js';
import { UpgradeRoutes } from './plugins/context/upgrades.js';
import { systemRoutes } from './api/system/route.js';
import { SystemInfo } from './system/info.js';
import { loadSiteId } from './system/site-id.js';
import { mdnsEnabled } from './system/mdns-enabled.js';
import { SetupCode } from './auth/setup-code.js';
import { setupRoutes } from './api/setup/route.js';
import { setupAudit, type RecordChange } from './api/change-audit.js';
import { pluginInstancesRoutes } from './api/plugins/instances.js';
import { siteConfigRoutes } from './api/config/route.js';
import { LiveSiteSettings } from './config/site-settings.js';
import { SettingsLog } from './config/settings-log.js';
import { PeriodEnergy } from './energy/period-energy.js';
import { applySiteSettingsLive } from './container/apply-live.js';
import { Alerts } from './alerts/alerts.js';
import { openApiRoutes } from './api/openapi/route.js';
import { prometheusRoutes } from './api/prometheus/route.js';
import { scrapeRegistry } from './metrics-export/scrape-registry.js';
import { Backups } from './backup/backups.js';
import { RestartRequest } from './backup/restart.js';
import { RestoreStaging } from './backup/stage.js';
import { applyPendingRestore } from './backup/restore.js';
import { LAST_RESTORE, registerBackupServices } from './backup/services.js';
import { backupsRoutes } from './api/backups/route.js';
import { restoreRoutes } from './api/backups/restore-route.js';

/** The tokens a caller of startHeliograph may register over (ServerOptions.register). */
export { CLOCK, HTTP_CLIENT } from './container/tokens.js';

export { ROOT_DIR, VERSION } from './install-root.js';

/** Where the web app's files are served from; tests register a folder of their own. */
export const WEB_DIR: InjectionToken<string> = Symbol('WebDir');
/** Saves plugins.json after a change through the API; tests register a failing one. */
export const SAVE_PLUGINS: InjectionToken<SavePluginEntries> = Symbol('SavePlugins');

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
   * (HTTP_CLIENT), the web app's folder (WEB_DIR) or any service of their own instead of
   * threading arguments through.
   */
  register?: (container: DependencyContainer) => void;
  /** Where plugins are discovered; default the repository root. */
  rootDir?: string;
  /** Plugin folders under development (`--plugin-dir`): a plugin package, or a folder of them. */
  pluginDirs?: string[];
  /** mDNS advertisement; overrides HELIOGRAPH_MDNS and the config (tests turn it off, or bind it to loopback). */
  mdns?: { enabled: boolean; interface?: string };
  /**
   * Called once the server answers, before the plugins are discovered and loaded (`serve`
   * prints "listening on" here); the promise startHeliograph returns resolves after they are.
   */
  onListening?: (url: string) => void;
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
  /** This server's container: tests resolve the services they look at from it. */
  services: DependencyContainer;
  /** Resolves when the service asks to be restarted (a restore staged from the page): close it and start again. */
  restartRequested: Promise<string>;
  /** Stops plugins, flushes everything to disk and closes the server. */
  close(): Promise<void>;
}

/**
 * The composition root. A container of this server's own (a child of tsyringe's global one,
 * so two servers in one process share nothing) knows how every service is made
 * (container/core-services.ts, and the web side below); what opens asynchronously is opened
 * first and registered as a value. The steps below resolve the services in dependency order
 * and push each one's closer. The server listens before the plugins are discovered and
 * loaded (their code is a third of the start's CPU), so the API answers at once; a request
 * about plugins waits for the load (pluginsLoadedLane), and a plugins.json mistake the load
 * finds still stops the start.
 */
export async function startHeliograph(options: ServerOptions): Promise<Heliograph> {
  // First of all: a second server on this data directory stops here, before it opens anything.
  const lock = lockDataDir(options.dataDir, { command: 'heliograph serve', hint: SERVE_HINT });
  const closers = new Closers();
  closers.push(() => lock.release());
  let di: DependencyContainer;
  try {
    // Before anything reads the data directory: a restore staged before the restart is put in place.
    const restored = await applyPendingRestore({ ...options, now: systemClock.now() });
    di = compose(options);
    registerBackupServices(di, restored);
  } catch (err) {
    await closers.close();
    throw err;
  }
  try {
    await openStorage(di, closers);
    const setupCode = await besideEachOther(startAuth(di, options.password), () => startCore(di, closers));
    startSite(di, closers);
    const appOptions = webApp(di, setupCode);
    // Plugin folders under development (--plugin-dir) are checked before the server answers:
    // a mistake there stops the start before "listening on", as a developer expects.
    const checkedEarly = Boolean(options.pluginDirs?.length);
    if (checkedEarly) await discoverAll(di, options);
    let loaded = (): void => undefined;
    const pluginsLoaded = new Promise<void>((resolve) => (loaded = resolve));
    const url = await serve(di, closers, appOptions, options, pluginsLoaded);
    const plugins = di.resolve(PluginHost);
    closers.push(() => plugins.stopAll());
    options.onListening?.(url.url);
    // Whether the load succeeds or stops the start, the requests waiting for it go on.
    await loadPlugins(di, options, checkedEarly).finally(loaded);
    const pluginsStarted = plugins.startAll();
    return {
      ...url,
      config: di.resolve(CONFIG),
      registry: di.resolve(TopicRegistry),
      plugins,
      pluginsStarted,
      auth: di.resolve(AuthService),
      siteId: di.resolve(SITE_ID),
      setupCode,
      routes: appRoutes(appOptions),
      services: di,
      restartRequested: di.resolve(RestartRequest).requested,
      close: () => closers.close(),
    };
  } catch (err) {
    await closers.close();
    throw err;
  }
}

/** This server's container: the values it starts from, every recipe, then the caller's registrations. */
function compose(options: ServerOptions): DependencyContainer {
  const configFile = options.configFile ?? join(options.dataDir, 'config.json');
  const di = container.createChildContainer();
  di.register(CONFIG, { useValue: loadConfig(configFile) });
  di.register(CONFIG_FILE, { useValue: configFile });
  di.register(PLUGINS_FILE, { useValue: options.pluginsFile });
  // A bad key stops the start, naming the key, before anything is opened.
  di.register(PLUGIN_INSTANCES, { useValue: loadPluginsFile(options.pluginsFile) });
  // Filled by loadPlugins once the server answers; the PluginHost holds this same map.
  di.register(DISCOVERED_PLUGINS, { useValue: new Map() });
  di.register(CLOCK, { useValue: systemClock });
  di.register(DATA_DIR, { useValue: options.dataDir });
  di.register(WEB_DIR, { useValue: WEB_DIST });
  di.register(SAVE_PLUGINS, { useValue: (entries) => savePluginsFile(options.pluginsFile, entries) });
  registerCoreServices(di);
  registerWebServices(di);
  options.register?.(di);
  di.register(STARTED_AT, { useValue: di.resolve(CLOCK).now() });
  return di;
}

/** The web side's own services (the layers below api/ do not know them). */
function registerWebServices(di: DependencyContainer): void {
  di.register(HostPolicy, { useFactory: instanceCachingFactory((c) => new HostPolicy(c.resolve(CONFIG).security)) });
  // One for the history route and its fast lane.
  di.register(HistoryAnswers, { useFactory: instanceCachingFactory((c) => new HistoryAnswers(c.resolve(CLOCK))) });
}

/**
 * The database file, and history on a connection of its own: a transaction on a shared
 * connection would take in whatever else ran on it meanwhile. A damaged file is set aside
 * and a new one started (history/open.ts), never a dead service; without history (its
 * tables damaged) the service still starts and HISTORY stays unregistered.
 */
async function openStorage(di: DependencyContainer, closers: Closers): Promise<void> {
  const clock = di.resolve(CLOCK);
  const dataDir = di.resolve(DATA_DIR);
  const dbFile = join(dataDir, 'heliograph.db');
  const { db, setAsideAs } = await openCoreDatabase(
    dbFile,
    { migrations: CORE_MIGRATIONS, prepare: prepareSchema },
    clock,
  );
  closers.push(() => db.close());
  di.register(DB, { useValue: db });
  di.register(CORE_DB_OPENED, { useValue: { setAsideAs } });
  di.register(SITE_ID, { useValue: loadSiteId(dataDir) });
  // Every writer of the file (history on its connection, audit, totals) takes its turn here.
  const opened = await openHistory(dbFile, clock, di.resolve(CONFIG).history, di.resolve(DB_WRITER));
  di.register(OPENED_HISTORY, { useValue: opened });
  if (opened.store) {
    const { db: historyDb, store } = opened;
    closers.push(() => historyDb.close());
    closers.push(() => store.close());
    di.register(HISTORY, { useValue: store });
  }
}

/** The registry and what hangs on its ticks: totals, history's recorder, the audit, forecasts. */
async function startCore(di: DependencyContainer, closers: Closers): Promise<void> {
  const registry = di.resolve(TopicRegistry);
  closers.push(di.resolve(TotalsDeriver).start());
  const energy = di.resolve(EnergyTotals);
  closers.push(await energy.start());
  // Before any change can be made: the values in force are logged at the start.
  closers.push(await di.resolve(SettingsLog).start(di.resolve(LiveSiteSettings), di.resolve(CONFIG)));
  const staleTimer = setInterval(() => registry.checkStale(), 5000);
  closers.push(() => clearInterval(staleTimer));
  if (di.isRegistered(HISTORY)) {
    const recorder = di.resolve(Recorder);
    recorder.start();
    closers.push(() => recorder.stop());
  }
  const audit = di.resolve(AuditLog);
  closers.push(async () => {
    await audit.flush();
    audit.close();
  });
  const forecast = di.resolve(ForecastStore);
  forecast.start();
  closers.push(() => forecast.stop());
  // Prices queued for the database are written before it closes.
  const prices = di.resolve(PriceBook);
  closers.push(() => prices.flush());
}

/**
 * Runs `other` while `first` is under way and answers what `first` does, once both have
 * finished (so nothing is left running when a failure closes what was opened): the start
 * hashes or checks HELIOGRAPH_PASSWORD (a scrypt: 65 ms on this machine, several times that on
 * a Pi) on libuv's threads while the core's services start on this one.
 */
async function besideEachOther<T>(first: Promise<T>, other: () => Promise<void>): Promise<T> {
  const [a, b] = await Promise.allSettled([first, other()]);
  if (b.status === 'rejected') throw b.reason;
  if (a.status === 'rejected') throw a.reason;
  return a.value;
}

/** The password (set from the options when given) and the first-run setup code. */
async function startAuth(di: DependencyContainer, password: string | undefined): Promise<SetupCode> {
  const auth = di.resolve(AuthService);
  if (password) await auth.ensurePassword(password);
  return SetupCode.forStart(await auth.hasPassword(), join(di.resolve(DATA_DIR), 'setup-code'));
}

/** Alerts, refused writes shown as alerts, and site settings applied without a restart. */
function startSite(di: DependencyContainer, closers: Closers): void {
  const alerts = di.resolve(Alerts);
  closers.push(alerts.start());
  closers.push(di.resolve(Backups).start());
  // /grid's status and ctx.site.prices name a price plugin that fails, as GET /api/v1/plugins shows it.
  const host = di.resolve(PluginHost);
  closers.push(di.resolve(PriceBook).watchHealth((source) => host.status().find((s) => s.id === source)));
  const writes = di.resolve(WriteService).events;
  const onRefused = (topic: string, message: string) => alerts.writeRefused(topic, message);
  writes.on('refused', onRefused);
  closers.push(() => {
    writes.off('refused', onRefused);
  });
  closers.push(
    applySiteSettingsLive(di.resolve(LiveSiteSettings), {
      energy: di.resolve(EnergyTotals),
      prices: di.resolve(PriceBook),
      forecast: di.resolve(ForecastStore),
      plugins: di.resolve(PluginHost),
      alerts,
    }),
  );
}

/** What GET /api/v1/history reads: its koa route and its fast lane are given the same. */
function historyDeps(di: DependencyContainer): HistoryDeps {
  const opened = di.resolve(OPENED_HISTORY);
  return {
    registry: di.resolve(TopicRegistry),
    store: opened.store,
    clock: di.resolve(CLOCK),
    unavailable: () => (opened.store ? '' : opened.reason),
    answers: di.resolve(HistoryAnswers),
  };
}

/** Every route, with the services each one needs and no more. */
function webApp(di: DependencyContainer, setupCode: SetupCode): AppOptions {
  const config = di.resolve(CONFIG);
  const clock = di.resolve(CLOCK);
  const registry = di.resolve(TopicRegistry);
  const auth = di.resolve(AuthService);
  const host = di.resolve(PluginHost);
  const historyStatus = di.resolve(HISTORY_STATUS);
  const save = di.resolve(SAVE_PLUGINS);
  const record: RecordChange = setupAudit(di.resolve(AuditLog), clock);
  const prometheus = prometheusRoutes({ register: scrapeRegistry(di), open: config.prometheus.openScrape });
  const roles = { prices: di.resolve(PriceBook), forecast: di.resolve(ForecastStore) };
  const appOptions: AppOptions = {
    auth,
    hosts: di.resolve(HostPolicy),
    realm: config.site.name,
    routers: [
      metricsRoutes({ registry, writes: di.resolve(WriteService) }),
      historyRoutes(historyDeps(di)),
      forecastRoutes({ store: di.resolve(ForecastStore), clock, registry }),
      gridRoutes({ book: di.resolve(PriceBook) }),
      energyRoutes({
        energy: () => (di.isRegistered(HISTORY) ? di.resolve(PeriodEnergy) : undefined),
        unavailable: () => {
          const opened = di.resolve(OPENED_HISTORY);
          return opened.store ? '' : opened.reason;
        },
      }),
      pluginInstancesRoutes({
        host,
        save,
        record,
        progress: di.resolve(ProgressBoard),
        sources: () => di.resolve(LiveSiteSettings).current(),
      }),
      pluginsRoutes({ host, extra: () => [historyStatus()], progress: di.resolve(ProgressBoard), roles }),
      pluginConfigRoutes({ host, save, record }),
      siteConfigRoutes({ settings: di.resolve(LiveSiteSettings), record, sources: () => host.status() }),
      auditRoutes({ audit: di.resolve(AuditLog) }),
      tokensRoutes({ auth, record }),
      backupsRoutes({
        backups: di.resolve(Backups),
        restored: di.resolve(LAST_RESTORE).outcome,
        record,
        staging: di.resolve(RestoreStaging),
      }),
      systemRoutes({ system: di.resolve(SystemInfo) }),
      openApiRoutes({ routes: () => appRoutes(appOptions), version: VERSION }),
    ],
    rootRouters: [
      ...(config.prometheus.openScrape ? [] : [prometheus]),
      // The restore's body is a database file, not the JSON /api/v1's router reads.
      restoreRoutes({
        staging: di.resolve(RestoreStaging),
        limitBytes: (config.history.diskBudgetMb + 512) * 1024 * 1024,
        record,
      }),
    ],
    publicRouters: [
      ...(config.prometheus.openScrape ? [prometheus] : []),
      upgradeRequiredRoutes(),
      setupRoutes({ auth, setupCode, clock, realm: config.site.name, record }),
      staticRoutes({ dir: di.resolve(WEB_DIR) }),
    ],
  };
  return appOptions;
}

/** Listens, attaches the WebSocket stream and advertises the service (mDNS) when asked. */
async function serve(
  di: DependencyContainer,
  closers: Closers,
  appOptions: AppOptions,
  options: ServerOptions,
  pluginsLoaded: Promise<void>,
): Promise<{ url: string; port: number }> {
  const config = di.resolve(CONFIG);
  const registry = di.resolve(TopicRegistry);
  const auth = di.resolve(AuthService);
  const hosts = di.resolve(HostPolicy);
  const app = createApp(appOptions);
  const server = await listen(app, options.host, options.port, [
    snapshotLane({ registry, auth, hosts }),
    historyLane({ ...historyDeps(di), auth, hosts }),
    pluginsLoadedLane(pluginsLoaded),
  ]).catch((err: unknown) => {
    throw listenFailure(err, options.host, options.port);
  });
  closers.push(() => server.close());
  // Open sockets would hold server.close() up, so they are closed first (closers run in reverse).
  const websocket = attachWebsocket({
    app,
    server: server.server,
    registry,
    auth,
    realm: config.site.name,
    writes: di.resolve(WriteService),
    system: di.resolve(SystemInfo),
    clock: di.resolve(CLOCK),
    hosts,
    revocations: auth,
    upgrades: di.resolve(UpgradeRoutes),
  });
  closers.push(() => websocket.close());
  const mdns = options.mdns ?? { enabled: mdnsEnabled(config), interface: config.mdns.interface ?? undefined };
  if (mdns.enabled) {
    // Loaded only when advertising: bonjour-service and its DNS code are ~5 MB of a small device's memory.
    const { advertiseMdns } = await import('./system/mdns.js');
    const siteId = di.resolve(SITE_ID);
    const advertisement = advertiseMdns({
      port: server.port,
      siteId,
      name: `${config.site.name} ${siteId}`,
      interface: mdns.interface,
    });
    closers.push(() => advertisement.close());
  }
  return { url: server.url, port: server.port };
}
