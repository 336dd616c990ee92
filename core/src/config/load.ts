import { formatZodError } from '@heliograph/plugins-sdk';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configSchema, type Config } from './schema.js';

/** Thrown for a config file the service cannot start with; the message names the bad key. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * The defaults: the checkout's config/default.json, or in a package installed from its tarball
 * the copy `npm pack` puts in dist/config (core's prepack script).
 */
export const DEFAULT_CONFIG_FILE =
  [
    fileURLToPath(new URL('../../../../config/default.json', import.meta.url)),
    fileURLToPath(new URL('../../config/default.json', import.meta.url)),
  ].find((file) => existsSync(file)) ?? fileURLToPath(new URL('../../../../config/default.json', import.meta.url));

/**
 * Loads config/default.json, overlays the user file when there is one, and validates the
 * result. A user file may hold any subset of the keys.
 */
export function loadConfig(userFile?: string): Config {
  const defaults = readJson(DEFAULT_CONFIG_FILE);
  let merged = defaults;
  if (userFile && existsSync(userFile)) merged = deepMerge(defaults, readJson(userFile));
  delete merged.$schema;
  const result = configSchema.safeParse(merged);
  if (!result.success)
    throw new ConfigError(formatZodError(result.error, { source: userFile ?? DEFAULT_CONFIG_FILE, input: merged }));
  return result.data;
}

function readJson(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${file}: cannot read: ${(err as Error).message}`);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('expected a JSON object');
    return value as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError(`${file}: not valid JSON: ${(err as Error).message}`);
  }
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prev = out[key];
    out[key] = isPlainObject(prev) && isPlainObject(value) ? deepMerge(prev, value) : value;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
