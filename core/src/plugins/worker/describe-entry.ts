/*
 * A short-lived worker that imports a third-party plugin only to describe it: its config
 * schema as JSON Schema. The server's thread never evaluates the plugin's module, yet can
 * check plugins.json and draw the settings form before the plugin starts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { PluginDefinition } from '@heliograph/plugins-sdk';

const { entry, id } = workerData as { entry: string; id: string };

async function describe(): Promise<unknown> {
  const module = (await import(pathToFileURL(entry).href)) as { default?: PluginDefinition };
  const definition = module.default;
  if (!definition || typeof definition.setup !== 'function' || !definition.configSchema) {
    throw new Error(`${entry} has no default export made with definePlugin`);
  }
  if (definition.id !== id)
    throw new Error(`the plugin calls itself "${definition.id}" but its package.json says "${id}"`);
  return z.toJSONSchema(definition.configSchema, { io: 'input', unrepresentable: 'any' });
}

describe().then(
  (schema) => parentPort!.postMessage({ ok: true, schema }),
  (err: unknown) => parentPort!.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) }),
);
