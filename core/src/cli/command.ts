/**
 * What every subcommand shares: its entry in the command table, `--help`, parse errors in
 * words, and where the data lives (flags first, then the environment, then the defaults).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from '../config/load.js';

/** One subcommand: `synopsis` goes in the overall usage, `help` answers `--help`. */
export interface Command {
  name: string;
  synopsis: string;
  help: string;
  /** Loaded only when the command runs, so `serve` does not carry the others. */
  load(): Promise<(argv: string[]) => Promise<number>>;
}

/** A mistake in how a command was called: printed with the command's help, exit code 2. */
export class UsageError extends Error {}

/** True when `--help` or `-h` comes before any `--`. */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

/** node's parseArgs, its errors rewritten in words (`unknown option --foo`) as UsageError. */
export function parseFlags<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    throw usageErrorFrom(err) ?? err;
  }
}

/** A parseArgs error as a UsageError in words, or undefined for any other error. */
export function usageErrorFrom(err: unknown): UsageError | undefined {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) return undefined;
  const message = (err as Error).message;
  const quoted = /'([^']+)'/.exec(message)?.[1] ?? '';
  const option = quoted.split(' ')[0];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new UsageError(`unknown option ${option}`);
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return new UsageError(`unexpected argument "${quoted}"`);
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return /argument missing/.test(message)
      ? new UsageError(`${option} needs a value`)
      : new UsageError(`${option} takes no value`);
  }
  return new UsageError(message);
}

export interface Locations {
  host: string;
  port: string;
  dataDir: string;
  /** The plugins file given by --plugins or HELIOGRAPH_PLUGINS, or undefined for `<data>/plugins.json`. */
  pluginsFile: string | undefined;
  configFile: string;
}

/**
 * A command on one file and the data directory (`backup FILE`, `restore FILE`): the file as
 * named and where the data lives (--data, --config, --plugins). `missing` is the usage error
 * for anything but one file.
 */
export function fileAndLocations(argv: string[], missing: string): { file: string; where: Locations } {
  const { values, positionals } = parseFlags({
    args: argv,
    allowPositionals: true,
    options: { data: { type: 'string' }, config: { type: 'string' }, plugins: { type: 'string' } },
  });
  if (positionals.length !== 1) throw new UsageError(missing);
  return { file: positionals[0]!, where: locations(values) };
}

/** Where things live: flags first, then the environment, then the defaults. */
export function locations(values: Record<string, string | boolean | undefined>): Locations {
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
  const plugins = values.plugins ?? env.HELIOGRAPH_PLUGINS;
  return {
    host: str('host', 'HELIOGRAPH_HOST', '0.0.0.0'),
    port: str('port', 'HELIOGRAPH_PORT', '8080'),
    dataDir,
    pluginsFile: plugins ? resolve(String(plugins)) : undefined,
    configFile: configFile ? resolve(String(configFile)) : join(dataDir, 'config.json'),
  };
}

/** A flag's value from a non-strict parse, where a flag given without a value reads `true`. */
export function stringFlag(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The help text of the settings every command that reads the data directory shares. */
export const DATA_HELP = `  --data DIR       the data directory (HELIOGRAPH_DATA; default ./data)
  --config FILE    the config file (HELIOGRAPH_CONFIG; default <data>/config.json)`;
