import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, listen } from '../../src/api/app.js';
import { auditRoutes } from '../../src/api/audit/route.js';
import { metricsRoutes } from '../../src/api/metrics/route.js';
import { pluginConfigRoutes, type SavePluginEntries } from '../../src/api/plugins/config.js';
import { pluginsRoutes } from '../../src/api/plugins/list.js';
import { staticRoutes } from '../../src/api/static.js';
import { AuthService } from '../../src/auth/service.js';
import { ManualClock } from '../../src/clock.js';
import { DbWriter } from '../../src/db-writer.js';
import { migrate, openDatabase } from '../../src/db.js';
import { pluginStoreMigrations } from '../../src/plugins/plugin-store.js';
import { discoverPlugins } from '../../src/plugins/discovery.js';
import { PluginHost } from '../../src/plugins/host.js';
import { loadPluginsFile, savePluginsFile } from '../../src/plugins/instances.js';
import { tokensRoutes } from '../../src/api/tokens/route.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import { AuditLog, auditMigrations } from '../../src/writes/audit.js';
import { WriteService } from '../../src/writes/service.js';
import { pluginRoot } from '../helpers/plugins.js';
import { tempDir } from '../helpers/tmp.js';

export const PASSWORD = 'correct horse battery';

/**
 * A real app on 127.0.0.1: the echo fixture plugin driving inverter_1 (instance "e") through
 * a real PluginHost, TopicRegistry, WriteService, audit log and AuthService in a temp
 * SQLite file, with the settings page's routes mounted as the composition root mounts them.
 */
export async function startWebServer(options: {
  staticDir: string;
  save?: SavePluginEntries;
  password?: string | null;
}) {
  const dir = tempDir('heliograph-web-');
  const pluginsFile = join(dir, 'plugins.json');
  writeFileSync(pluginsFile, JSON.stringify({ plugins: [{ id: 'e', plugin: 'echo', devices: ['inverter_1'] }] }));
  const db = await openDatabase(join(dir, 'heliograph.db'));
  await migrate(db, [...auditMigrations, ...pluginStoreMigrations]);
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const registry = new TopicRegistry(clock);
  const audit = new AuditLog(db, clock, new DbWriter());
  const writes = new WriteService(registry, audit, clock, 2000);
  const host = new PluginHost(
    { clock, db, registry, writes, site: { timeZone: 'UTC', latitude: 0, longitude: 0, temperatureUnit: 'C' } },
    discoverPlugins(pluginRoot({ fixtures: ['echo'] })),
    loadPluginsFile(pluginsFile),
    pluginsFile,
  );
  await host.load();
  await host.startAll();
  const auth = await AuthService.create(db, clock, { maxFailedLogins: 5, failedLoginWindowMs: 15 * 60_000 });
  const password = options.password === undefined ? PASSWORD : options.password;
  if (password !== null) await auth.setPassword(password);
  const app = createApp({
    auth,
    realm: 'Heliograph',
    routers: [
      metricsRoutes({ registry, writes }),
      pluginsRoutes({ host }),
      pluginConfigRoutes({ host, save: options.save ?? ((entries) => savePluginsFile(pluginsFile, entries)) }),
      auditRoutes({ audit }),
      tokensRoutes({ auth }),
    ],
    publicRouters: [staticRoutes({ dir: options.staticDir })],
  });
  const server = await listen(app, '127.0.0.1', 0);
  return {
    url: server.url,
    clock,
    registry,
    host,
    auth,
    pluginsFile,
    /** Sets a topic's value as a plugin publishing it would. */
    publish(topic: string, value: number | string | null) {
      const state = registry.get(topic);
      if (!state) throw new Error(`no topic ${topic}`);
      registry.publish(state, value);
      registry.flush();
    },
    async close() {
      await server.close();
      await host.stopAll();
      await db.close();
    },
  };
}

export function basic(password: string): string {
  return `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;
}
