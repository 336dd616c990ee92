import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemClock, type Clock } from './clock.js';
import { loadConfig } from './config/load.js';
import { siteTimeZone, type Config } from './config/schema.js';
import { migrate, openDatabase } from './db.js';
import { EnergyTotals, energyMigrations } from './energy/kwh-totals.js';
import { TopicRegistry } from './topics/registry.js';
import { TotalsDeriver } from './topics/power-totals.js';
import { AuditLog, auditMigrations } from './writes/audit.js';
import { WriteService } from './writes/service.js';
import { AuthService } from './auth/service.js';
import { pluginStoreMigrations } from './plugins/plugin-store.js';
import { discoverPlugins } from './plugins/discovery.js';
import { PluginHost } from './plugins/host.js';
import { loadPluginsFile, savePluginsFile } from './plugins/instances.js';
import { createApp, listen } from './api/app.js';
import { metricsRoutes } from './api/metrics.js';
import { pluginsRoutes } from './api/plugins.js';
import { auditRoutes } from './api/audit.js';
import { tokensRoutes } from './api/tokens.js';
import { ForecastStore } from './forecast/store.js';
import { PriceBook } from './grid/book.js';
import { forecastRoutes } from './api/forecast.js';
import { gridRoutes } from './api/grid.js';
import { pluginConfigRoutes } from './api/plugin-config.js';
import { staticRoutes } from './api/static.js';
import { historyRoutes } from './api/history.js';
import { HistoryStore } from './history/store.js';
import { Recorder } from './history/recorder.js';
import { attachWebsocket, upgradeRequiredRoutes } from './api/websocket/index.js';
import { createLogger } from './log.js';

const log = createLogger('server');

/** The repository root: plugins/ and node_modules/ are searched for plugins below it. */
export const ROOT_DIR = fileURLToPath(new URL('../../../', import.meta.url));

/** The software version, as `system/version` on the WebSocket shows it. */
export const VERSION: string = JSON.parse(readFileSync(join(ROOT_DIR, 'core', 'package.json'), 'utf8')).version;

export interface ServerOptions {
  host: string;
  port: number;
  dataDir: string;
  pluginsFile: string;
  /** User config file; default `<dataDir>/config.json` when it exists. */
  configFile?: string;
  /** Sets the device password at start (containers, tests). */
  password?: string;
  clock?: Clock;
  /** Where plugins are discovered; default the repository root. */
  rootDir?: string;
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
  /** Stops plugins, flushes everything to disk and closes the server. */
  close(): Promise<void>;
}

/**
 * The composition root: builds every service with exactly what it needs, in dependency
 * order, and undoes them in reverse on close. Plugins start after the server listens, so
 * the API answers at once while devices are still being contacted.
 */
export async function startHeliograph(options: ServerOptions): Promise<Heliograph> {
  const clock = options.clock ?? systemClock;
  const config = loadConfig(options.configFile ?? join(options.dataDir, 'config.json'));
  const timeZone = siteTimeZone(config);
  const instances = loadPluginsFile(options.pluginsFile);

  const db = await openDatabase(join(options.dataDir, 'heliograph.db'));
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
    await migrate(db, [...auditMigrations, ...energyMigrations, ...pluginStoreMigrations]);

    const registry = new TopicRegistry(clock);
    closers.push(new TotalsDeriver(registry).start());
    const energy = new EnergyTotals(registry, db, clock, config.energy.resetPeriod, timeZone);
    closers.push(await energy.start());
    const staleTimer = setInterval(() => registry.checkStale(), 5000);
    closers.push(() => clearInterval(staleTimer));

    // History writes its batches on a connection of its own: a transaction on a shared
    // connection would take in whatever else ran on it meanwhile.
    const historyDb = await openDatabase(join(options.dataDir, 'heliograph.db'));
    closers.push(() => historyDb.close());
    const history = await HistoryStore.open({ db: historyDb, clock, config: config.history });
    closers.push(() => history.close());
    const recorder = new Recorder({ registry, store: history, clock });
    recorder.start();
    closers.push(() => recorder.stop());

    const audit = new AuditLog(db);
    const writes = new WriteService(registry, audit, clock);
    const auth = await AuthService.create(db, clock, config.auth);
    if (options.password) await auth.ensurePassword(options.password);

    const forecast = new ForecastStore({ registry, clock, temperatureUnit: config.site.temperatureUnit });
    forecast.start();
    closers.push(() => forecast.stop());
    const prices = new PriceBook({ clock, timeZone, multiplier: config.prices.multiplier, offset: config.prices.offset });

    const plugins = new PluginHost(
      {
        clock,
        db,
        registry,
        writes,
        history,
        forecast,
        prices,
        site: { timeZone, latitude: config.site.latitude, longitude: config.site.longitude, temperatureUnit: config.site.temperatureUnit },
      },
      discoverPlugins(options.rootDir ?? ROOT_DIR),
      instances,
      options.pluginsFile,
    );
    await plugins.load();

    const app = createApp({
      auth,
      realm: config.site.name,
      routers: [
        metricsRoutes({ registry, writes }),
        historyRoutes({ registry, store: history, clock }),
        forecastRoutes({ store: forecast, clock, registry }),
        gridRoutes({ book: prices }),
        pluginsRoutes({ host: plugins }),
        pluginConfigRoutes({ host: plugins, save: (entries) => savePluginsFile(options.pluginsFile, entries) }),
        auditRoutes({ audit }),
        tokensRoutes({ auth }),
      ],
      publicRouters: [upgradeRequiredRoutes(), staticRoutes({ dir: join(ROOT_DIR, 'web', 'dist') })],
    });
    const server = await listen(app, options.host, options.port);
    closers.push(() => server.close());
    // Open sockets would hold server.close() up, so they are closed first (closers run in reverse).
    const websocket = attachWebsocket({ app, server: server.server, registry, auth, realm: config.site.name, writes, dataDir: options.dataDir, version: VERSION, clock });
    closers.push(() => websocket.close());

    closers.push(() => plugins.stopAll());
    const pluginsStarted = plugins.startAll();
    return { url: server.url, port: server.port, config, registry, plugins, pluginsStarted, auth, close };
  } catch (err) {
    await close();
    throw err;
  }
}

