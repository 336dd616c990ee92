import { after } from 'node:test';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { pollUntil } from '../helpers/deadline.js';
import { basicAuth } from '../helpers/server.js';

export const PASSWORD = 'correct horse battery';

/** The simulated site the page is tried on: two inverters and a battery, two days backfilled. */
export const SIMULATOR = {
  id: 'sim',
  plugin: 'simulator',
  devices: ['inverter_1', 'inverter_2', 'battery_1'],
  config: { backfill_days: 2, pollIntervalMs: 1000 },
};

export type Site = Pick<ChildServer, 'url' | 'port' | 'dataDir' | 'pluginsFile' | 'stop' | 'restart'> & {
  /** Everything the service wrote to stdout and stderr so far. */
  log(): string;
  /** Resolves with the first match of `pattern` in the service's output, now or later. */
  waitForLog(pattern: RegExp, from?: number): Promise<RegExpMatchArray>;
};

/**
 * The real service as users run it (`heliograph serve`, the checkout's plugins) in a child
 * process on 127.0.0.1 with a temp data directory, so a test can stop it, start it again on
 * the same port, and read its log (the setup code is printed there).
 */
export async function startSite(
  options: { password?: string | null; plugins?: unknown[]; config?: Record<string, unknown> } = {},
): Promise<Site> {
  const server = await startChildServer({
    plugins: options.plugins ?? [SIMULATOR],
    config: options.config,
    checkoutPlugins: true,
    password: options.password === undefined ? PASSWORD : options.password,
    env: { HELIOGRAPH_LOG_LEVEL: 'info', HELIOGRAPH_MDNS: '0' },
  });
  after(() => server.stop());
  return {
    url: server.url,
    get port() {
      return server.port;
    },
    dataDir: server.dataDir,
    pluginsFile: server.pluginsFile,
    log: server.output,
    waitForLog: (pattern, from) => server.waitFor(pattern, `the line ${pattern} in the log`, from),
    stop: server.stop,
    restart: server.restart,
  };
}

/** `Basic` credentials for fetch calls of the test itself. */
export function basic(password = PASSWORD): string {
  return basicAuth(password);
}

/**
 * Until `done` holds for the plugin instances `GET /api/v1/plugins` lists: the service answers
 * before its plugins (each in its own process) have started, and their topics and routes
 * exist only once they have.
 */
export async function pluginsWhen(
  site: Pick<Site, 'url'>,
  done: (list: Array<{ id: string; state: string }>) => boolean,
  what: string,
): Promise<void> {
  await pollUntil(async () => {
    const answer = await fetch(`${site.url}/api/v1/plugins`, { headers: { authorization: basic() } });
    const list = (await answer.json()) as Array<{ id: string; state: string }>;
    return { done: done(list), seen: list.map((p) => `${p.id}: ${p.state}`) };
  }, what);
}
