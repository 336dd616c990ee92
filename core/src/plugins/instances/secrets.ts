import { isSecretSchema } from '@heliograph/plugins-sdk';

/** Key paths of a plugin's secret config fields, e.g. `[["token"], ["account", "apiKey"]]`. */
export type SecretPaths = string[][];

/**
 * Finds the fields a plugin marked with the SDK's `secret()` in its config schema (as JSON
 * Schema): top-level fields and fields of nested objects. Secrets inside arrays are not
 * supported (a list entry has no stable identity to keep a hidden value by).
 */
export function secretPaths(schema: unknown, prefix: string[] = []): SecretPaths {
  const properties = (schema as { properties?: Record<string, unknown> } | null)?.properties;
  if (!properties || typeof properties !== 'object') return [];
  const out: SecretPaths = [];
  for (const [key, node] of Object.entries(properties)) {
    if (isSecretSchema(node)) out.push([...prefix, key]);
    else out.push(...secretPaths(node, [...prefix, key]));
  }
  return out;
}

function get(value: unknown, path: string[]): unknown {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== 'object' || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** A deep copy of `value` with `path` set to `replacement` (or removed when undefined). */
function withAt(value: unknown, path: string[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [key, ...rest] = path as [string, ...string[]];
  const object =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? { ...(value as Record<string, unknown>) }
      : {};
  const next = withAt(object[key], rest, replacement);
  if (next === undefined) delete object[key];
  else object[key] = next;
  return object;
}

/** The config as answers may show it: secrets left out, and which of them are set. */
export function hideSecrets(
  config: Record<string, unknown>,
  paths: SecretPaths,
): { config: Record<string, unknown>; secrets: Record<string, boolean> } {
  let shown: unknown = config;
  const secrets: Record<string, boolean> = {};
  for (const path of paths) {
    const value = get(config, path);
    secrets[path.join('.')] = value !== undefined && value !== null && value !== '';
    if (value !== undefined && get(shown, path.slice(0, -1)) !== undefined) shown = withAt(shown, path, undefined);
  }
  return { config: shown as Record<string, unknown>, secrets };
}

/** The config with every set secret replaced by "***", for the audit log. */
export function maskSecrets(config: Record<string, unknown>, paths: SecretPaths): Record<string, unknown> {
  let masked: unknown = config;
  for (const path of paths) {
    const value = get(config, path);
    if (value !== undefined && value !== null) masked = withAt(masked, path, '***');
  }
  return masked as Record<string, unknown>;
}

/**
 * A new config with every secret it leaves out taken from the stored one: forms never see
 * a secret's value, so saving one without touching the field must keep it.
 */
export function keepSecrets(
  next: Record<string, unknown>,
  stored: Record<string, unknown>,
  paths: SecretPaths,
): Record<string, unknown> {
  let merged: unknown = next;
  for (const path of paths) {
    const kept = get(stored, path);
    if (get(next, path) === undefined && kept !== undefined) merged = withAt(merged, path, kept);
  }
  return merged as Record<string, unknown>;
}
