import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';

/**
 * Whether the unit advertises itself over mDNS: `HELIOGRAPH_MDNS` (`0`/`1`, also
 * `false`/`true`, `off`/`on`) overrides the config key `mdns.enabled`, so tests and CI turn
 * it off without a config file. Any other value stops the start with what to write.
 */
export function mdnsEnabled(config: Config, env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env.HELIOGRAPH_MDNS;
  if (raw === undefined || raw === '') return config.mdns.enabled;
  const value = raw.trim().toLowerCase();
  if (['1', 'true', 'on', 'yes'].includes(value)) return true;
  if (['0', 'false', 'off', 'no'].includes(value)) return false;
  throw new ConfigError(`HELIOGRAPH_MDNS must be 0 (mDNS advertisement off) or 1 (on), got ${JSON.stringify(raw)}`);
}
