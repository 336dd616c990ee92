import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { ConnectingEmulatorModule, EmulatorModule } from '@heliograph/plugins-sdk/emulator';
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
  const [name, ...flags] = argv;
  if (name !== undefined && !name.startsWith('-')) {
    const connecting = await connectingEmulator(name, flags);
    if (connecting) return runUntilSignal(connecting);
  }
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
  const plugin = await findEmulated(id, values['plugin-dir']);
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

/** The plugin whose emulator `name` is: its id, or the manifest's `emulatorName`. */
async function findEmulated(name: string, pluginDirs: string[] | undefined) {
  const root = process.env.HELIOGRAPH_PLUGIN_ROOT ? resolve(process.env.HELIOGRAPH_PLUGIN_ROOT) : ROOT_DIR;
  // Found as `serve` finds plugins: installed ones, and the folders under development.
  const plugins = withPluginDirs(await discoverPlugins(root), pluginDirsOf(pluginDirs));
  return plugins.get(name) ?? [...plugins.values()].find((p) => p.manifest.emulatorName === name);
}

/**
 * An emulator that connects out (`runEmulator`, an EV charger dialling its central system)
 * takes the flags after its name itself; `--plugin-dir DIR` among them finds it. Undefined
 * for every other emulator, which the common flags start.
 */
async function connectingEmulator(
  name: string,
  flags: string[],
): Promise<{ describe: string; close(): Promise<void> } | undefined> {
  const dirs: string[] = [];
  const own: string[] = [];
  for (let i = 0; i < flags.length; i++) {
    if (flags[i] === '--plugin-dir' && flags[i + 1] !== undefined) dirs.push(flags[++i]!);
    else own.push(flags[i]!);
  }
  const plugin = await findEmulated(name, dirs.length > 0 ? dirs : undefined);
  if (!plugin?.manifest.emulator) return undefined;
  const mod = (await import(pathToFileURL(join(plugin.dir, plugin.manifest.emulator)).href)) as
    EmulatorModule | ConnectingEmulatorModule;
  return 'runEmulator' in mod ? mod.runEmulator(own) : undefined;
}

async function runUntilSignal(running: { describe: string; close(): Promise<void> }): Promise<number> {
  process.stdout.write(`${running.describe}\n`);
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await running.close();
  return 0;
}
