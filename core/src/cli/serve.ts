/** `heliograph serve`: runs the service until SIGINT or SIGTERM. */
import { delimiter, resolve } from 'node:path';
import { passwordProblem } from '../auth/rules.js';
import { ConfigError } from '../config/load.js';
import { createLogger } from '../log.js';
import { installProcessHandlers } from '../plugins/isolation/containment.js';
import { startHeliograph } from '../server.js';
import { dataPluginsFile, prepareDataDir } from '../system/data-dir.js';
import { DATA_HELP, locations, parseFlags } from './command.js';

/** The longest a stop may take before the process exits anyway (the unit allows 30 s). */
const SHUTDOWN_LIMIT_MS = 20_000;

const log = createLogger('main');

export const SERVE_HELP = `Usage: heliograph serve [--host H] [--port N] [--data DIR] [--plugins FILE] [--config FILE] [--plugin-dir DIR]...

Runs the service: reads the devices, records history, serves the API and the settings page.
Prints "listening on http://HOST:PORT" once it answers; SIGINT or SIGTERM stops it (exit 0).

  --host H         address to listen on (HELIOGRAPH_HOST; default 0.0.0.0)
  --port N         port, 0 picks a free one (HELIOGRAPH_PORT; default 8080)
${DATA_HELP}
  --plugins FILE   the plugin setup (HELIOGRAPH_PLUGINS; default <data>/plugins.json, copied
                   from the installation's default at the first start)
  --plugin-dir DIR also loads the plugin(s) in DIR, repeatable (HELIOGRAPH_PLUGIN_DIR, colon separated)

Environment:
  HELIOGRAPH_PASSWORD     sets the device password at start
  HELIOGRAPH_LOG_LEVEL    debug, info (default), warn, error or silent; debug logs every request
  HELIOGRAPH_MDNS         0 or 1: the mDNS advertisement off or on (config mdns.enabled)
  HELIOGRAPH_PLUGIN_ROOT  another installation folder whose plugins/ and node_modules/ hold the plugins`;

/**
 * The plugin folders under development: every --plugin-dir, else HELIOGRAPH_PLUGIN_DIR's
 * list (separated as PATH is), each resolved against the working directory.
 */
function pluginDirs(flags: string[] | undefined): string[] {
  const dirs = flags ?? (process.env.HELIOGRAPH_PLUGIN_DIR ?? '').split(delimiter).filter((dir) => dir !== '');
  return dirs.map((dir) => resolve(dir));
}

export async function runServeCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags({
    args: argv,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      data: { type: 'string' },
      plugins: { type: 'string' },
      config: { type: 'string' },
      'plugin-dir': { type: 'string', multiple: true },
    },
  });
  const { 'plugin-dir': pluginDirFlags, ...single } = values;
  const where = locations(single);
  const port = Number(where.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`port: expected a whole number from 0 to 65535, got "${where.port}"`);
  const password = process.env.HELIOGRAPH_PASSWORD || undefined;
  const problem = password === undefined ? undefined : passwordProblem(password);
  if (problem) throw new ConfigError(`HELIOGRAPH_PASSWORD: ${problem}`);
  // The data directory holds the password hash, tokens and API keys: whatever the service
  // creates (SQLite's files included) is readable by its user only.
  process.umask(0o077);
  prepareDataDir(where.dataDir);
  const pluginsFile = where.pluginsFile ?? dataPluginsFile(where.dataDir);
  // Until the server has started there is nothing to close.
  let closeServer = (): Promise<void> => Promise.resolve();
  // A plugin's stray exception or rejection fails that plugin alone (see plugins/isolation/containment.ts);
  // one of the core's own still ends the process, but only after history is written.
  installProcessHandlers({
    fatal(error, origin) {
      log.error(
        `${origin} outside any plugin: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}; writing history and exiting`,
      );
      setTimeout(() => process.exit(1), 5000).unref();
      void closeServer().finally(() => process.exit(1));
    },
  });
  const pluginRoot = process.env.HELIOGRAPH_PLUGIN_ROOT ? resolve(process.env.HELIOGRAPH_PLUGIN_ROOT) : undefined;
  // The signals are handled before "listening on" is printed: a supervisor that stops the
  // service as soon as it answers still gets history written.
  let stopping = false;
  const stopped = new Promise<void>((done) => {
    const stop = (signal: string) => {
      log.info(`${signal}: stopping`);
      stopping = true;
      // A stuck plugin or disk must not keep the process alive for long: the controllers' and
      // then the drivers' cleanups (a battery put back to Normal) get up to 8 s each.
      setTimeout(() => {
        log.error(`shutdown took longer than ${SHUTDOWN_LIMIT_MS / 1000} s; exiting anyway`);
        process.exit(1);
      }, SHUTDOWN_LIMIT_MS).unref();
      closeServer().then(done, done);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  // A restart asked for by the service itself (a restore staged from the page) closes the
  // composition and opens a new one in this process, on the port it had: the same under
  // systemd, `npm start` or a container, and no supervisor has to bring it back.
  let listenPort = port;
  for (;;) {
    const server = await startHeliograph({
      ...where,
      pluginsFile,
      port: listenPort,
      password,
      rootDir: pluginRoot,
      pluginDirs: pluginDirs(pluginDirFlags),
      // Printed once the server answers, while the plugins are still being discovered and loaded.
      onListening: (url) => process.stdout.write(`listening on ${url}\n`),
    });
    listenPort = server.port;
    closeServer = () => server.close();
    if (stopping) {
      await server.close();
      return 0;
    }
    if (!(await server.auth.hasPassword()))
      log.warn(
        'no password is set: the API answers 403 until one is (set it in the settings page with the setup code above, or run `heliograph password set`)',
      );
    const next = await Promise.race([stopped.then(() => undefined), server.restartRequested]);
    if (next === undefined) return 0;
    log.info(`restarting: ${next}`);
    // Until the next start there is nothing to close (a signal meanwhile stops after it).
    closeServer = () => Promise.resolve();
    await server.close();
  }
}
