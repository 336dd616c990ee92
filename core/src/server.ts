import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemClock } from './clock.js';
import { loadConfig } from './config/load.js';
import type { Config } from './config/schema.js';
import { migrate, openDatabase } from './db.js';
import { container, type DependencyContainer } from './container/di.js';
import { registerCoreServices } from './container/core-services.js';
import { CLOCK, CONFIG, CONTEXT_SERVICES, DB, HISTORY, PLUGIN_CONTEXTS } from './container/tokens.js';
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

/** The tokens a caller of startHeliograph may register over (ServerOptions.register). */
export { CLOCK, HTTP_CLIENT } from './container/tokens.js';

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
  /**
   * Overrides registrations before anything is built: tests register a fake HTTP client
   * (HTTP_CLIENT) or any service of their own instead of threading arguments through.
   */
  register?: (container: DependencyContainer) => void;
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
 * The composition root. A container of this server's own (a child of tsyringe's global one,
 * so two servers in one process share nothing) knows how every service is made
 * (container/core-services.ts); what opens asynchronously is opened here first and
 * registered as a value. Services are resolved in dependency order and undone in reverse
 * on close; a failed start undoes what was built. Plugins start after the server listens,
 * so the API answers at once while devices are still being contacted.
 */
export async function startHeliograph(options: ServerOptions): Promise<Heliograph> {
  const config = loadConfig(options.configFile ?? join(options.dataDir, 'config.json'));
  const instances = loadPluginsFile(options.pluginsFile);
  const di = container.createChildContainer();
  di.register(CONFIG, { useValue: config });
  di.register(CLOCK, { useValue: systemClock });
  registerCoreServices(di);
  options.register?.(di);
  const clock = di.resolve(CLOCK);

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
    di.register(DB, { useValue: db });

    const registry = di.resolve(TopicRegistry);
    closers.push(di.resolve(TotalsDeriver).start());
    closers.push(await di.resolve(EnergyTotals).start());
    const staleTimer = setInterval(() => registry.checkStale(), 5000);
    closers.push(() => clearInterval(staleTimer));

    // History writes its batches on a connection of its own: a transaction on a shared
    // connection would take in whatever else ran on it meanwhile.
    const historyDb = await openDatabase(join(options.dataDir, 'heliograph.db'));
    closers.push(() => historyDb.close());
    const history = await HistoryStore.open({ db: historyDb, clock, config: config.history });
    closers.push(() => history.close());
    di.register(HISTORY, { useValue: history });
    const recorder = di.resolve(Recorder);
    recorder.start();
    closers.push(() => recorder.stop());

    const audit = di.resolve(AuditLog);
    const writes = di.resolve(WriteService);
    const auth = await AuthService.create(db, clock, config.auth);
    if (options.password) await auth.ensurePassword(options.password);

    const forecast = di.resolve(ForecastStore);
    forecast.start();
    closers.push(() => forecast.stop());
    const prices = di.resolve(PriceBook);

    const plugins = new PluginHost(di.resolve(CONTEXT_SERVICES), discoverPlugins(options.rootDir ?? ROOT_DIR), instances, options.pluginsFile, di.resolve(PLUGIN_CONTEXTS));
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
