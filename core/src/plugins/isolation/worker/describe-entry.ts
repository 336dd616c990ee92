/*
 * A short-lived process that imports a third-party plugin only to describe it: its config
 * schema (and per-device config schema) as JSON Schema. The server's process never evaluates
 * the plugin's module, yet can check plugins.json and draw the settings form before the
 * plugin starts. It is told what to describe in its first IPC message.
 */
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { PluginDefinition } from '@heliograph/plugins-sdk';

const [{ entry }] = (await once(process, 'message')) as [{ entry: string }];

async function describe(): Promise<{ id: unknown; schema: unknown; deviceSchema: unknown }> {
  const module = (await import(pathToFileURL(entry).href)) as { default?: PluginDefinition };
  const definition = module.default;
  if (!definition || typeof definition.setup !== 'function' || !definition.configSchema) {
    throw new Error(`${entry} has no default export made with definePlugin`);
  }
  const toJson = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return {
    id: definition.id,
    schema: toJson(definition.configSchema),
    deviceSchema: definition.deviceConfigSchema ? toJson(definition.deviceConfigSchema) : undefined,
  };
}

/** Sends the answer, then leaves: the plugin's module may have left timers or sockets open. */
const answer = (message: Record<string, unknown>) => process.send!(message, undefined, {}, () => process.exit(0));
describe().then(
  (described) => answer({ ok: true, ...described }),
  (err: unknown) => answer({ ok: false, error: err instanceof Error ? err.message : String(err) }),
);
