/*
 * Checks of an instance's plugins.json entry that the plugin's own schemas cannot make:
 * unknown config keys (a zod object drops them silently), per-device config, and which
 * devices the manifest lets an instance drive. Each failure is a configuration error: the
 * instance fails once with a message that says what to change.
 */
import { z } from 'zod';
import {
  deviceFromId,
  formatZodError,
  formatZodPath,
  type Device,
  type PluginDefinition,
} from '@heliograph/plugins-sdk';

/** A device of a plugins.json entry: `"inverter_1"` or `{ "id": "inverter_1", "config": {...} }`. */
export type DeviceEntry = string | { id: string; config?: Record<string, unknown> };

export function deviceEntryId(entry: DeviceEntry): string {
  return typeof entry === 'string' ? entry : entry.id;
}

/** Whether an error is a configuration mistake (by name: it may come from a worker or another SDK copy). */
export function isConfigError(err: unknown): boolean {
  return (err as { name?: unknown } | null)?.name === 'ConfigError';
}

type Params = Parameters<z.ZodType['safeParse']>[1];

/**
 * `schema.safeParse(input)`, refusing keys an object schema does not know (at any depth)
 * rather than dropping them: a misspelt key must not silently fall back to a default.
 */
export function parseConfig<S extends z.ZodType>(
  schema: S,
  input: unknown,
  params?: Params,
): z.ZodSafeParseResult<z.output<S>> {
  const parsed = schema.safeParse(input, params);
  if (!parsed.success) return parsed;
  const issues: z.core.$ZodIssue[] = [];
  collectUnknownKeys(schema, input, [], issues);
  return issues.length === 0
    ? parsed
    : ({ success: false, error: new z.ZodError(issues) } as z.ZodSafeParseResult<z.output<S>>);
}

function collectUnknownKeys(schema: z.ZodType, input: unknown, path: PropertyKey[], issues: z.core.$ZodIssue[]): void {
  const def = schema._zod.def as unknown as {
    type: string;
    innerType?: z.ZodType;
    shape?: Record<string, z.ZodType>;
    catchall?: z.ZodType;
    options?: z.ZodType[];
  };
  if (def.innerType) return collectUnknownKeys(def.innerType, input, path, issues);
  if (def.type === 'union' && def.options) {
    // The first option that accepts the input is the one it was read as.
    const match = def.options.find((o) => o.safeParse(input).success);
    if (match) collectUnknownKeys(match, input, path, issues);
    return;
  }
  if (def.type !== 'object' || !def.shape || input === null || typeof input !== 'object' || Array.isArray(input))
    return;
  const unknown = Object.keys(input).filter((k) => !(k in def.shape!));
  // A catchall (passthrough or strict) is the schema's own choice about extra keys.
  if (unknown.length > 0 && !def.catchall)
    issues.push({
      code: 'unrecognized_keys',
      keys: unknown,
      path,
      message: `unknown key${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => `"${k}"`).join(', ')}: known keys are ${
        Object.keys(def.shape)
          .map((k) => `"${k}"`)
          .join(', ') || 'none'
      }`,
      input,
    } as z.core.$ZodIssue);
  for (const [key, child] of Object.entries(def.shape)) {
    const value = (input as Record<string, unknown>)[key];
    if (value !== undefined) collectUnknownKeys(child, value, [...path, key], issues);
  }
}

/** The manifest's rule for an instance's devices; null when it drives none. */
export interface DeviceRule {
  kinds: string[];
  min: number;
  max: number | null;
}

/**
 * Problems of an entry's device list against the plugin's rule, each with the index of the
 * device it concerns (undefined for the list as a whole).
 */
export function deviceRuleProblems(
  devices: readonly DeviceEntry[],
  rule: DeviceRule | null,
  pluginName: string,
): Array<{ index?: number; message: string }> {
  if (!rule) return devices.length > 0 ? [{ message: `must be empty: ${pluginName} drives no devices` }] : [];
  const problems: Array<{ index?: number; message: string }> = [];
  if (devices.length < rule.min)
    problems.push({
      message: `must list at least ${rule.min} device${rule.min === 1 ? '' : 's'} for ${pluginName} to drive`,
    });
  if (rule.max !== null && devices.length > rule.max)
    problems.push({
      message: `must list at most ${rule.max} device${rule.max === 1 ? '' : 's'}: ${pluginName} drives no more`,
    });
  devices.forEach((entry, index) => {
    const kind = deviceFromId(deviceEntryId(entry)).kind;
    if (!rule.kinds.includes(kind))
      problems.push({
        index,
        message: `must be ${rule.kinds.map((k) => `a${/^[aeiou]/.test(k) ? 'n' : ''} ${k}`).join(' or ')}: ${pluginName} drives no ${kind}`,
      });
  });
  return problems;
}

/**
 * The instance's devices with their config parsed by the plugin's `deviceConfigSchema`;
 * problems are formatted with the plugins.json key of the bad device (`pathPrefix`).
 */
export function parseDevices(
  devices: readonly DeviceEntry[],
  definition: Pick<PluginDefinition, 'deviceConfigSchema'>,
  format: { source: string; pathPrefix: PropertyKey[] },
): { ok: true; devices: Device[] } | { ok: false; problems: string[] } {
  const out: Device[] = [];
  const problems: string[] = [];
  devices.forEach((entry, index) => {
    const device = deviceFromId(deviceEntryId(entry));
    const raw = typeof entry === 'string' ? undefined : entry.config;
    const schema = definition.deviceConfigSchema;
    if (!schema) {
      if (raw !== undefined && Object.keys(raw).length > 0)
        problems.push(
          `${format.source}: ${formatZodPath([...format.pathPrefix, index, 'config'])}: the plugin takes no per-device config; remove it`,
        );
      out.push(device);
      return;
    }
    const parsed = parseConfig(schema, raw ?? {});
    if (!parsed.success)
      problems.push(
        formatZodError(parsed.error, {
          source: format.source,
          input: raw ?? {},
          pathPrefix: [...format.pathPrefix, index, 'config'],
        }),
      );
    else out.push({ ...device, config: parsed.data });
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, devices: out };
}
