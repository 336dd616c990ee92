import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { startHeliograph, type Heliograph, type ServerOptions } from '@heliograph/core';
import { CLOCK, type InstanceStatus } from '@heliograph/core/testing';
import type { Clock } from '@heliograph/core/clock';
import { checked, registerServer, routesCheck } from '@heliograph/core/test/helpers/openapi-check';
import { basicAuth } from '@heliograph/core/test/helpers/basic-auth';
import { FIXTURE_PLUGINS } from '@heliograph/core/test/helpers/paths';
import { linkPlugins } from '@heliograph/core/test/helpers/plugins';
import { tempDir } from '@heliograph/core/test/helpers/tmp';

// One definition of each across the packages' tests (core/test/helpers), re-exported for test/.
export { basicAuth } from '@heliograph/core/test/helpers/basic-auth';
export { MAIN, REPO_ROOT } from '@heliograph/core/test/helpers/paths';
export { tempDir } from '@heliograph/core/test/helpers/tmp';

export const PASSWORD = 'correct horse battery';

/**
 * The simulator with an inverter, a battery and its demo prices and forecast: a site where
 * every route has something to answer (the response-schema check and the fuzz campaign).
 */
export const DEMO_SITE_PLUGIN = {
  id: 'sim',
  plugin: 'simulator',
  devices: ['inverter_1', 'battery_1'],
  config: { demoForecast: true, demoPrices: true },
};

export interface TestServer extends Heliograph {
  dataDir: string;
  /**
   * fetch against the server with the admin password unless other headers are given. The
   * answer is checked against the server's OpenAPI document (@heliograph/core/test/openapi-check):
   * its `json()`/`text()` throw on a mismatch.
   */
  api(path: string, init?: RequestInit & { auth?: string | null }): Promise<Response>;
}

/**
 * Starts the whole service in-process on 127.0.0.1:0 with a temp data dir, the given
 * plugins.json entries, and a discovery root holding exactly the named bundled plugins and
 * test fixtures.
 */
export async function startTestServer(options: {
  plugins: unknown[];
  bundled?: string[];
  fixtures?: string[];
  /** Fixtures linked into the root's node_modules/: found as third-party packages. */
  external?: string[];
  /** Fixtures loaded as plugins under development (`--plugin-dir`). */
  pluginDirs?: string[];
  password?: string | null;
  config?: Record<string, unknown>;
  clock?: Clock;
  mdns?: ServerOptions['mdns'];
  /** Reuse the data directory of an earlier server (a restart); default a fresh one. */
  dataDir?: string;
  /** Puts files into the data dir before the start (a damaged database, say). */
  prepare?: (dataDir: string) => void | Promise<void>;
}): Promise<TestServer> {
  const dir = tempDir();
  const root = join(dir, 'root');
  linkPlugins(root, options);
  const dataDir = options.dataDir ?? join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  if (options.config) writeFileSync(join(dataDir, 'config.json'), JSON.stringify(options.config));
  await options.prepare?.(dataDir);
  const pluginsFile = join(dir, 'plugins.json');
  writeFileSync(pluginsFile, JSON.stringify({ plugins: options.plugins }));
  const password = options.password === undefined ? PASSWORD : options.password;
  const server = await startHeliograph({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    pluginsFile,
    rootDir: root,
    pluginDirs: options.pluginDirs?.map((name) => join(FIXTURE_PLUGINS, name)),
    password: password ?? undefined,
    // Only the mDNS test advertises (bound to loopback); the rest must not touch the network.
    mdns: options.mdns ?? { enabled: false },
    // A manual clock replaces the registration, not an argument threaded through the core.
    register: (container) => {
      if (options.clock) container.register(CLOCK, { useValue: options.clock });
    },
  });
  after(() => server.close());
  await server.pluginsStarted;
  const basic = basicAuth(String(password));
  // The document the server serves, built by the same function from the same routes (the
  // served one needs a password, which a server in first-run setup does not have yet).
  const check = registerServer(server.url, () => routesCheck(server.routes));
  return {
    ...server,
    dataDir,
    api(path, init = {}) {
      const headers = new Headers(init.headers);
      const auth = init.auth === undefined ? basic : init.auth;
      if (auth !== null && !headers.has('authorization')) headers.set('authorization', auth);
      const asked = { method: init.method ?? 'GET', url: server.url + path };
      return fetch(asked.url, { ...init, headers }).then((res) => checked(check(), asked, res));
    },
  };
}

/** POST a JSON body. */
export function jsonBody(body: unknown): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

/**
 * Resolves with the instance's status once `predicate` holds for it (at once if it already
 * does). Rejects after `timeoutMs` (default 20 s) naming the instance, what was awaited
 * (`what`, else the predicate's source) and the last status seen, so a regression fails
 * with a reason instead of at the runner's timeout.
 */
export function statusWhen(
  s: TestServer,
  id: string,
  predicate: (status: InstanceStatus) => boolean,
  options: { what?: string; timeoutMs?: number } = {},
): Promise<InstanceStatus> {
  const { what = predicate.toString(), timeoutMs = 20_000 } = options;
  return new Promise((resolve, reject) => {
    const finish = () => {
      s.plugins.off('status', check);
      clearTimeout(timer);
    };
    const check = () => {
      const status = s.plugins.status().find((p) => p.id === id);
      if (status && predicate(status)) {
        finish();
        resolve(status);
      }
    };
    const timer = setTimeout(() => {
      finish();
      const last = s.plugins.status().find((p) => p.id === id);
      reject(
        new Error(
          `plugin instance "${id}" did not reach ${what} within ${timeoutMs / 1000} s; last status: ${last ? JSON.stringify(last) : 'no such instance'}`,
        ),
      );
    }, timeoutMs);
    s.plugins.on('status', check);
    check();
  });
}
