/*
 * A short-lived worker that imports a third-party plugin only to describe it: its config
 * schema (and per-device config schema) as JSON Schema. The server's thread never evaluates the plugin's module, yet can
 * check plugins.json and draw the settings form before the plugin starts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { PluginDefinition } from '@heliograph/plugins-sdk';

const { entry, id } = workerData as { entry: string; id: string };

async function describe(): Promise<{ schema: unknown; deviceSchema: unknown }> {
  const module = (await import(pathToFileURL(entry).href)) as { default?: PluginDefinition };
  const definition = module.default;
  if (!definition || typeof definition.setup !== 'function' || !definition.configSchema) {
    throw new Error(`${entry} has no default export made with definePlugin`);
  }
  if (definition.id !== id)
    throw new Error(`the plugin calls itself "${definition.id}" but its package.json says "${id}"`);
  const toJson = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return {
    schema: toJson(definition.configSchema),
    deviceSchema: definition.deviceConfigSchema ? toJson(definition.deviceConfigSchema) : undefined,
  };
}

describe().then(
  (described) => parentPort!.postMessage({ ok: true, ...described }),
  (err: unknown) => parentPort!.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) }),
);
