import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { EmulatorModule } from '@heliograph/plugins-sdk/emulator';
import { ConfigError } from '../config/load.js';
import { discoverPlugins } from '../plugins/discovery/discovery.js';
import { pluginDirsOf, withPluginDirs } from '../plugins/discovery/plugin-dirs.js';
import { ROOT_DIR } from '../server.js';

/** A whole-number flag within [min, max], or undefined when not given. */
function intFlag(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`--${name}: expected a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

/**
 * `heliograph emulate <driver> [--port N] [--host H] [--transport T] [--unit-id N] [--logger-serial N]
 * [--double-crc] [--model M] [--plugin-dir DIR]...`: finds the driver's package as the server finds plugins (installed
 * ones, and the folders under development of --plugin-dir or HELIOGRAPH_PLUGIN_DIR), starts the emulator its manifest
 * names (`heliograph.emulator`), prints `listening on HOST:PORT` and runs until SIGINT/SIGTERM.
 * Loopback only unless `--host` says otherwise.
 */
export async function runEmulateCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      transport: { type: 'string' },
      'unit-id': { type: 'string' },
      'logger-serial': { type: 'string' },
      'double-crc': { type: 'boolean' },
      model: { type: 'string' },
      'plugin-dir': { type: 'string', multiple: true },
    },
  });
  const [id] = positionals;
  if (!id || positionals.length > 1) throw new ConfigError('emulate: name one driver, e.g. `heliograph emulate deye`');
  const root = process.env.HELIOGRAPH_PLUGIN_ROOT ? resolve(process.env.HELIOGRAPH_PLUGIN_ROOT) : ROOT_DIR;
  // Found as `serve` finds plugins: installed ones, and the folders under development.
  const plugin = withPluginDirs(discoverPlugins(root), pluginDirsOf(values['plugin-dir'])).get(id);
  if (!plugin)
    throw new ConfigError(
      `emulate: no plugin "${id}" is installed or in a plugin folder (--plugin-dir, HELIOGRAPH_PLUGIN_DIR)`,
    );
  const entry = plugin.manifest.emulator;
  if (entry === undefined) throw new ConfigError(`emulate: the ${id} plugin ships no emulator`);
  const emulator = (await import(pathToFileURL(join(plugin.dir, entry)).href)) as EmulatorModule;
  if (values.transport !== undefined && !emulator.transports.includes(values.transport))
    throw new ConfigError(`--transport: the ${id} emulator speaks ${emulator.transports.join(', ')}`);

  const running = await emulator.startEmulator({
    host: values.host ?? '127.0.0.1',
    port: intFlag('port', values.port, 0, 65535) ?? 0,
    transport: values.transport,
    unitId: intFlag('unit-id', values['unit-id'], 1, 247),
    loggerSerial: intFlag('logger-serial', values['logger-serial'], 0, 0xffffffff),
    ...(values['double-crc'] ? { doubleCrc: true } : {}),
    ...(values.model === undefined ? {} : { model: values.model }),
  });
  process.stdout.write(`listening on ${running.host}:${running.port}\n`);
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await running.close();
  return 0;
}
