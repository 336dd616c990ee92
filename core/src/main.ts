#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, loadConfig } from './config/load.js';
import { startHeliograph } from './server.js';
import { createLogger, errorMessage } from './log.js';
import { installProcessHandlers } from './plugins/containment.js';
import { pluginDirsOf } from './plugins/plugin-dirs.js';

const log = createLogger('main');

const USAGE = `Usage:
  heliograph serve [--host H] [--port N] [--data DIR] [--plugins FILE] [--config FILE]
                   [--plugin-dir DIR]...                  also loads the plugin(s) in DIR
  heliograph password set [--data DIR] [--config FILE]   reads the new password from stdin
  heliograph history export --topic T [--from T] [--to T] [--group-by 1h] [--agg mean] > file.csv
  heliograph history import FILE.csv [--topic T]
  heliograph history check                          lists damaged history (exit 1 if any)
  heliograph history repair                         sets damage aside; server stopped
  heliograph emulate deye|sunspec|voltronic|pylontech [--port N] [--host H] [--transport tcp|rtu-over-tcp|solarman]
                     [--unit-id N] [--logger-serial N]     a device emulator on TCP (loopback unless --host)
                     [--plugin-dir DIR]...                  also finds the driver in DIR, as serve does
  heliograph plugin new <id> --kind driver|prices|forecast|integration [--dir DIR]
                                                    writes a new plugin package that passes its own test
  (history commands also take --data DIR and --config FILE)

Settings may also come from HELIOGRAPH_HOST, HELIOGRAPH_PORT, HELIOGRAPH_DATA,
HELIOGRAPH_PLUGINS, HELIOGRAPH_CONFIG; HELIOGRAPH_PASSWORD sets the password at start;
HELIOGRAPH_MDNS=0 or 1 turns the mDNS advertisement off or on (config mdns.enabled).
HELIOGRAPH_PLUGIN_ROOT names another folder whose plugins/ and node_modules/ hold the plugins.
HELIOGRAPH_PLUGIN_DIR lists plugin folders under development (colon separated), as --plugin-dir.
Defaults: host 0.0.0.0, port 8080, data ./data, plugins ./plugins.json.`;

/** Where things live: flags first, then the environment, then the defaults. */
function locations(values: Record<string, string | boolean | undefined>) {
  const env = process.env;
  const str = (flag: string, envName: string, fallback: string) => String(values[flag] ?? env[envName] ?? fallback);
  const dataDir = resolve(str('data', 'HELIOGRAPH_DATA', 'data'));
  const configFile = values.config ?? env.HELIOGRAPH_CONFIG;
  // A file named on purpose must exist; only the default <data>/config.json is optional.
  if (configFile && !existsSync(resolve(String(configFile)))) {
    throw new ConfigError(
      `${resolve(String(configFile))}: no such config file (given by ${values.config ? '--config' : 'HELIOGRAPH_CONFIG'})`,
    );
  }
  return {
    host: str('host', 'HELIOGRAPH_HOST', '0.0.0.0'),
    port: str('port', 'HELIOGRAPH_PORT', '8080'),
    dataDir,
    pluginsFile: resolve(str('plugins', 'HELIOGRAPH_PLUGINS', join(process.cwd(), 'plugins.json'))),
    configFile: configFile ? resolve(String(configFile)) : join(dataDir, 'config.json'),
  };
}

/** A flag's value from a non-strict parse, where a flag given without a value reads `true`. */
function stringFlag(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

async function serve(argv: string[]): Promise<number> {
  const { values } = parseArgs({
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
  // Until the server has started there is nothing to close.
  let closeServer = (): Promise<void> => Promise.resolve();
  // A plugin's stray exception or rejection fails that plugin alone (see plugins/containment.ts);
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
  const server = await startHeliograph({
    ...where,
    port,
    password: process.env.HELIOGRAPH_PASSWORD || undefined,
    rootDir: pluginRoot,
    pluginDirs: pluginDirsOf(pluginDirFlags),
  });
  closeServer = () => server.close();
  process.stdout.write(`listening on ${server.url}\n`);
  if (!(await server.auth.hasPassword()))
    log.warn(
      'no password is set: the API answers 403 until one is (set it in the settings page with the setup code above, or run `heliograph password set`)',
    );

  await new Promise<void>((done) => {
    const stop = (signal: string) => {
      log.info(`${signal}: stopping`);
      // A stuck plugin or disk must not keep the process alive past 5 s.
      setTimeout(() => {
        log.error('shutdown took longer than 5 s; exiting anyway');
        process.exit(1);
      }, 5000).unref();
      server.close().then(done, done);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
    case undefined:
      return serve(rest);
    case 'password': {
      const { values } = parseArgs({
        args: rest.slice(1),
        options: { data: { type: 'string' }, config: { type: 'string' } },
      });
      if (rest[0] !== 'set') break;
      const where = locations(values);
      const { runPasswordCommand } = await import('./cli/password.js');
      return runPasswordCommand({ dataDir: where.dataDir, config: loadConfig(where.configFile) });
    }
    case 'history': {
      const { runHistoryCommand } = await import('./cli/history.js');
      // Only where the data lives is read here; the subcommand checks its own flags strictly.
      const { values } = parseArgs({
        args: rest,
        strict: false,
        allowPositionals: true,
        options: { data: { type: 'string' }, config: { type: 'string' } },
      });
      const where = locations({ data: stringFlag(values.data), config: stringFlag(values.config) });
      return runHistoryCommand(rest, { dataDir: where.dataDir, config: loadConfig(where.configFile) });
    }
    case 'emulate':
      return (await import('./cli/emulate.js')).runEmulateCommand(rest);
    case 'plugin':
      return (await import('./cli/plugin-new.js')).runPluginCommand(rest);
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(USAGE + '\n');
      return 0;
  }
  process.stderr.write(`unknown command: ${argv.join(' ')}\n\n${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof ConfigError) process.stderr.write(`heliograph: cannot start:\n${err.message}\n`);
    else process.stderr.write(`heliograph: ${errorMessage(err)}\n`);
    process.exit(1);
  },
);
