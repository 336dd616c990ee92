/*
 * What the host knows of a plugin that runs in a worker, learnt without importing it into
 * the server's thread: its config schema, read by a short-lived worker as JSON Schema and
 * turned back into a zod schema here. That schema checks plugins.json and draws the settings
 * form; refinements it cannot carry are checked again by the plugin's own schema in its
 * worker before setup.
 */
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import type { PluginDefinition } from '@heliograph/plugins-sdk';
import type { DiscoveredPlugin } from '../discovery.js';
import { DEFAULT_WORKER_LIMITS, type WorkerLimits } from './limits.js';

const ENTRY = new URL('./describe-entry.js', import.meta.url);
/** Loading a plugin's module takes well under a second; past this it is stuck. */
const DESCRIBE_TIMEOUT_MS = 30_000;

const answerSchema = z.union([
  z.object({
    ok: z.literal(true),
    schema: z.record(z.string(), z.unknown()),
    deviceSchema: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);

/** A stand-in definition: the plugin's id and config schema; its setup runs only in a worker. */
export async function definitionFromWorker(
  plugin: DiscoveredPlugin,
  limits: WorkerLimits = DEFAULT_WORKER_LIMITS,
): Promise<PluginDefinition> {
  const { schema, deviceSchema } = await describeInWorker(plugin, limits);
  return {
    id: plugin.manifest.id,
    configSchema: z.fromJSONSchema(schema),
    deviceConfigSchema: deviceSchema && (z.fromJSONSchema(deviceSchema) as z.ZodType<Record<string, unknown>>),
    setup() {
      throw new Error(
        `plugin ${plugin.manifest.id} runs in a worker thread; its setup is not called in the server's thread`,
      );
    },
  };
}

type Described = { schema: Record<string, unknown>; deviceSchema?: Record<string, unknown> };

function describeInWorker(plugin: DiscoveredPlugin, limits: WorkerLimits): Promise<Described> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(ENTRY, {
      workerData: { entry: plugin.entry, id: plugin.manifest.id },
      name: `describe:${plugin.manifest.id}`,
      resourceLimits: { maxOldGenerationSizeMb: limits.maxMemoryMb },
    });
    const timer = setTimeout(
      () => done(new Error(`its module did not load within ${DESCRIBE_TIMEOUT_MS / 1000} s`)),
      DESCRIBE_TIMEOUT_MS,
    );
    let settled = false;
    const done = (error: Error | undefined, described?: Described) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if (error) reject(error);
      else resolve(described!);
    };
    worker.once('message', (raw: unknown) => {
      const answer = answerSchema.safeParse(raw);
      if (!answer.success) done(new Error('its describe worker answered something the host does not understand'));
      else if (answer.data.ok) done(undefined, answer.data);
      else done(new Error(answer.data.error));
    });
    worker.once('error', (err) => done(err));
    worker.once('exit', (code) => done(new Error(`its describe worker exited with code ${code}`)));
  });
}
