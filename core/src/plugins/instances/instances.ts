/*
 * plugins/instances: what plugins.json says should run. This file reads and writes the
 * instance entries; config-checks.ts holds the checks the plugin's schemas cannot make,
 * secrets.ts the hiding of secret fields, http-limits.ts, worker-limits.ts and quotas.ts the
 * bounds an entry may set.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { deviceFromId, formatZodError } from '@heliograph/plugins-sdk';
import { ConfigError } from '../../config/load.js';
import { httpLimitsSchema } from './http-limits.js';
import { workerLimitsSchema } from './worker-limits.js';
import { quotasSchema } from './quotas.js';
import { grantsSchema } from './grants.js';
import { deviceEntryId } from './config-checks.js';

const deviceId = z.string().refine((id) => {
  try {
    deviceFromId(id);
    return true;
  } catch {
    return false;
  }
}, 'a device id such as "inverter_1", "battery_1" or a plugin\'s own kind\'s "planner_1"');

/** One entry of plugins.json: which plugin runs, under which id, driving which devices. */
export const instanceSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'lower-case letters, digits, "-" and "_"'),
    plugin: z.string().min(1),
    enabled: z.boolean().default(true),
    // A device id, or an object with the id and the device's own config (deviceConfigSchema).
    devices: z
      .array(
        z.union([deviceId, z.object({ id: deviceId, config: z.record(z.string(), z.unknown()).optional() }).strict()]),
      )
      .default([]),
    config: z.record(z.string(), z.unknown()).default({}),
    // Where the plugin's code runs: "process" (a sandboxed process of its own; "worker", its
    // old name, is still accepted) or "process-local" (the server's process, bundled plugins
    // only). Default "process" for third-party plugins, which always run sandboxed, and
    // "process-local" for bundled ones.
    isolation: z.enum(['process', 'worker', 'process-local']).optional(),
    http: httpLimitsSchema.optional(),
    worker: workerLimitsSchema.optional(),
    quotas: quotasSchema.optional(),
    // What the owner approved of the grants the plugin's manifest asks for (grants.ts).
    grants: grantsSchema.optional(),
  })
  .strict();

export const pluginsFileSchema = z
  .object({
    $schema: z.string().optional(),
    plugins: z.array(instanceSchema),
  })
  .strict()
  .superRefine((file, ctx) => {
    const ids = new Set<string>();
    const devices = new Map<string, string>();
    file.plugins.forEach((p, i) => {
      if (ids.has(p.id))
        ctx.addIssue({ code: 'custom', path: ['plugins', i, 'id'], message: `duplicate instance id "${p.id}"` });
      ids.add(p.id);
      p.devices.map(deviceEntryId).forEach((d, j) => {
        const owner = devices.get(d);
        if (owner)
          ctx.addIssue({
            code: 'custom',
            path: ['plugins', i, 'devices', j],
            message: `device "${d}" is already assigned to instance "${owner}"`,
          });
        devices.set(d, p.id);
      });
    });
  });

export type PluginInstanceConfig = z.infer<typeof instanceSchema>;

/** Reads and validates plugins.json; the error names the file and the exact bad key. */
export function loadPluginsFile(file: string): PluginInstanceConfig[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(
      `${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not valid JSON: ${(err as Error).message}`}`,
    );
  }
  const result = pluginsFileSchema.safeParse(raw);
  if (!result.success) throw new ConfigError(formatZodError(result.error, { source: file, input: raw }));
  return result.data.plugins;
}

/** Writes plugins.json atomically (a power cut leaves the old or the new file, never half). */
export function savePluginsFile(file: string, entries: PluginInstanceConfig[]): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, JSON.stringify({ plugins: entries }, null, 2) + '\n');
  renameSync(tmp, file);
}
