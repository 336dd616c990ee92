import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, listen } from '@heliograph/core/api/app';
import { auditRoutes } from '@heliograph/core/api/audit';
import { metricsRoutes } from '@heliograph/core/api/metrics';
import { pluginConfigRoutes } from '@heliograph/core/api/plugin-config';
import { pluginsRoutes } from '@heliograph/core/api/plugins';
import { staticRoutes } from '@heliograph/core/api/static';
import { tokensRoutes } from '@heliograph/core/api/tokens';
import { AuthService } from '@heliograph/core/auth/service';
import { ManualClock } from '@heliograph/core/clock';
import { migrate, openDatabase } from '@heliograph/core/db';
import { pluginStoreMigrations } from '@heliograph/core/plugins/context';
import { discoverPlugins } from '@heliograph/core/plugins/discovery';
import { PluginHost } from '@heliograph/core/plugins/host';
import { loadPluginsFile } from '@heliograph/core/plugins/instances';
import { TopicRegistry } from '@heliograph/core/topics/registry';
import { AuditLog, auditMigrations } from '@heliograph/core/writes/audit';
import { WriteService } from '@heliograph/core/writes/service';
import { REPO_ROOT, tempDir } from '../helpers/server.js';
import { WEB_DIST } from './browser.js';

export const PASSWORD = 'correct horse battery';

/**
 * The app the settings page talks to, on 127.0.0.1: the echo fixture plugin driving
 * inverter_1 (instance "e") through a real PluginHost, TopicRegistry, WriteService, audit
 * log and AuthService (password, tokens, throttle) in a temp SQLite file, the page served
 * from web/dist. Time stands still (a manual clock) unless the test moves it.
 */
export async function startPageServer(options: { password?: string | null } = {}) {
  const dir = tempDir('heliograph-page-');
  const root = join(dir, 'root');
  mkdirSync(join(root, 'plugins'), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'test', 'fixtures', 'plugins', 'echo'), join(root, 'plugins', 'echo'));
  const pluginsFile = join(dir, 'plugins.json');
  writeFileSync(pluginsFile, JSON.stringify({ plugins: [{ id: 'e', plugin: 'echo', devices: ['inverter_1'] }] }));

  const db = await openDatabase(join(dir, 'heliograph.db'));
  await migrate(db, [...auditMigrations, ...pluginStoreMigrations]);
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const registry = new TopicRegistry(clock);
  const audit = new AuditLog(db);
  const writes = new WriteService(registry, audit, clock, 2000);
  const auth = await AuthService.create(db, clock, { maxFailedLogins: 5, failedLoginWindowMs: 15 * 60_000 });
  const password = options.password === undefined ? PASSWORD : options.password;
  if (password !== null) await auth.setPassword(password);
  const host = new PluginHost(
    { clock, db, registry, writes, site: { timeZone: 'UTC', latitude: 0, longitude: 0, temperatureUnit: 'C' } },
    discoverPlugins(root),
    loadPluginsFile(pluginsFile),
    pluginsFile,
  );
  await host.load();
  await host.startAll();

  const app = createApp({
    auth,
    realm: 'Heliograph',
    routers: [
      metricsRoutes({ registry, writes }),
      pluginsRoutes({ host }),
      pluginConfigRoutes({
        host,
        save: (entries) => {
          writeFileSync(`${pluginsFile}.tmp`, JSON.stringify({ plugins: entries }, null, 2) + '\n');
          renameSync(`${pluginsFile}.tmp`, pluginsFile);
        },
      }),
      auditRoutes({ audit }),
      tokensRoutes({ auth }),
    ],
    publicRouters: [staticRoutes({ dir: WEB_DIST })],
  });
  const server = await listen(app, '127.0.0.1', 0);
  return {
    url: server.url,
    clock,
    registry,
    host,
    auth,
    pluginsFile,
    /** Sets a topic's value as the plugin publishing it would. */
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
