import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SavePluginEntries } from '../../src/api/plugins/config.js';
import { ManualClock } from '../../src/clock.js';
import { CLOCK, SAVE_PLUGINS, startHeliograph, WEB_DIR } from '../../src/server.js';
import { pluginRoot } from '../helpers/plugins.js';
import { tempDir } from '../helpers/tmp.js';

export const PASSWORD = 'correct horse battery';

/**
 * The real composition (startHeliograph) on 127.0.0.1 with the echo fixture plugin driving
 * inverter_1 (instance "e"), a manual clock, and the test's own web folder and plugins.json
 * saver registered over the defaults.
 */
export async function startWebServer(options: {
  staticDir: string;
  save?: SavePluginEntries;
  password?: string | null;
}) {
  const dir = tempDir('heliograph-web-');
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  const pluginsFile = join(dir, 'plugins.json');
  writeFileSync(pluginsFile, JSON.stringify({ plugins: [{ id: 'e', plugin: 'echo', devices: ['inverter_1'] }] }));
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const password = options.password === undefined ? PASSWORD : options.password;
  const server = await startHeliograph({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    pluginsFile,
    rootDir: pluginRoot({ fixtures: ['echo'] }),
    password: password ?? undefined,
    mdns: { enabled: false },
    register: (di) => {
      di.register(CLOCK, { useValue: clock });
      di.register(WEB_DIR, { useValue: options.staticDir });
      if (options.save) di.register(SAVE_PLUGINS, { useValue: options.save });
    },
  });
  await server.pluginsStarted;
  const { registry, plugins: host, auth } = server;
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
    close: () => server.close(),
  };
}

export function basic(password: string): string {
  return `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;
}
