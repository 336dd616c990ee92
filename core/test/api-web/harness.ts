import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, listen } from '../../src/api/app.js';
import { auditRoutes } from '../../src/api/audit.js';
import { metricsRoutes } from '../../src/api/metrics.js';
import { pluginConfigRoutes, type SavePluginEntries } from '../../src/api/plugin-config.js';
import { pluginsRoutes } from '../../src/api/plugins.js';
import { staticRoutes } from '../../src/api/static.js';
import type { Authenticator, AuthOutcome, Credentials } from '../../src/auth/types.js';
import { ManualClock } from '../../src/clock.js';
import { migrate, openDatabase } from '../../src/db.js';
import { pluginStoreMigrations } from '../../src/plugins/context.js';
import { discoverPlugins } from '../../src/plugins/discovery.js';
import { PluginHost } from '../../src/plugins/host.js';
import { loadPluginsFile } from '../../src/plugins/instances.js';
import { TopicRegistry } from '../../src/topics/registry.js';
import { AuditLog, auditMigrations } from '../../src/writes/audit.js';
import { WriteService } from '../../src/writes/service.js';
import { pluginRoot } from '../helpers/plugins.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * Accepts one device password (or none set: 403), as the real AuthService answers, minus
 * tokens and throttling, which these tests do not exercise.
 */
export class OnePasswordAuth implements Authenticator {
  /** While set, every request is throttled for this many seconds, as after failed logins. */
  throttledForS: number | undefined;

  constructor(public password: string | undefined) {}

  async authenticate(credentials: Credentials | undefined): Promise<AuthOutcome> {
    if (this.throttledForS !== undefined) {
      return { ok: false, status: 429, message: `too many failed logins from this address: try again in ${this.throttledForS} s`, retryAfterS: this.throttledForS };
    }
    if (this.password === undefined) return { ok: false, status: 403, message: 'no password is set yet: set one with `heliograph password set`' };
    if (!credentials) return { ok: false, status: 401, message: 'credentials required' };
    if (credentials.kind === 'password' && credentials.secret === this.password) return { ok: true, who: 'admin' };
    return { ok: false, status: 401, message: 'wrong user name or password (the user name is "admin")' };
  }
}

export const PASSWORD = 'correct horse battery';

/** Writes plugins.json as the composition root does: a temp file renamed over the old one. */
export function savePluginsFile(file: string): SavePluginEntries {
  return (entries) => {
    writeFileSync(`${file}.tmp`, JSON.stringify({ plugins: entries }, null, 2) + '\n');
    renameSync(`${file}.tmp`, file);
  };
}

/**
 * A real app on 127.0.0.1: the echo fixture plugin driving inverter_1 (instance "e") through
 * a real PluginHost, TopicRegistry, WriteService and audit log in a temp SQLite file, with
 * the settings page's routes mounted as the composition root mounts them.
 */
export async function startWebServer(options: { staticDir: string; save?: SavePluginEntries }) {
  const dir = tempDir('heliograph-web-');
  const pluginsFile = join(dir, 'plugins.json');
  writeFileSync(pluginsFile, JSON.stringify({ plugins: [{ id: 'e', plugin: 'echo', devices: ['inverter_1'] }] }));
  const db = await openDatabase(join(dir, 'heliograph.db'));
  await migrate(db, [...auditMigrations, ...pluginStoreMigrations]);
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const registry = new TopicRegistry(clock);
  const audit = new AuditLog(db);
  const writes = new WriteService(registry, audit, clock, 2000);
  const host = new PluginHost(
    { clock, db, registry, writes, site: { timeZone: 'UTC', latitude: 0, longitude: 0, temperatureUnit: 'C' } },
    discoverPlugins(pluginRoot({ fixtures: ['echo'] })),
    loadPluginsFile(pluginsFile),
    pluginsFile,
  );
  await host.load();
  await host.startAll();
  const auth = new OnePasswordAuth(PASSWORD);
  const app = createApp({
    auth,
    realm: 'Heliograph',
    routers: [
      metricsRoutes({ registry, writes }),
      pluginsRoutes({ host }),
      pluginConfigRoutes({ host, save: options.save ?? savePluginsFile(pluginsFile) }),
      auditRoutes({ audit }),
    ],
    publicRouters: [staticRoutes({ dir: options.staticDir })],
  });
  const server = await listen(app, '127.0.0.1', 0);
  return {
    url: server.url,
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
