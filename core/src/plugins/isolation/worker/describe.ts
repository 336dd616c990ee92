/*
 * What the host knows of a plugin that runs in a process of its own, learnt without importing it
 * into the server's process: its config schema, read by a short-lived sandboxed process (with
 * nothing writable) as JSON Schema and
 * turned back into a zod schema here. That schema checks plugins.json and draws the settings
 * form; refinements it cannot carry are checked again by the plugin's own schema in its
 * worker before setup.
 */
import { statSync } from 'node:fs';
import { z } from 'zod';
import type { PluginDefinition } from '@heliograph/plugins-sdk';
import { ConfigError } from '../../../config/load.js';
import { idMismatch, type DiscoveredPlugin } from '../../discovery/discovery.js';
import type { WorkerLimits } from '../../instances/worker-limits.js';
import { describeExit, forkPluginProcess } from './child.js';
import type { Sandbox } from './sandbox.js';

const ENTRY = new URL('./describe-entry.js', import.meta.url);
/** Loading a plugin's module takes well under a second; past this it is stuck. */
const DESCRIBE_TIMEOUT_MS = 30_000;

const answerSchema = z.union([
  z.object({
    ok: z.literal(true),
    id: z.string(),
    schema: z.record(z.string(), z.unknown()),
    deviceSchema: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);

/** A stand-in definition: the plugin's id and config schema; its setup runs only in a worker. */
export async function definitionFromWorker(
  plugin: DiscoveredPlugin,
  limits: WorkerLimits,
  sandbox: Sandbox,
): Promise<PluginDefinition> {
  const { id, schema, deviceSchema } = await describedOnce(plugin, limits, sandbox);
  const mismatch = idMismatch(plugin, id);
  if (mismatch) throw new ConfigError(mismatch);
  return {
    id: plugin.manifest.id,
    configSchema: z.fromJSONSchema(schema),
    deviceConfigSchema: deviceSchema && (z.fromJSONSchema(deviceSchema) as z.ZodType<Record<string, unknown>>),
    setup() {
      throw new Error(
        `plugin ${plugin.manifest.id} runs in a process of its own; its setup is not called in the server's process`,
      );
    },
  };
}

type Described = { id: string; schema: Record<string, unknown>; deviceSchema?: Record<string, unknown> };

/**
 * What a module was described as, by its path and modification time: the start's check of
 * the plugins under development and the instances' loading fork one process, not one each.
 */
const described = new Map<string, Promise<Described>>();

function describedOnce(plugin: DiscoveredPlugin, limits: WorkerLimits, sandbox: Sandbox): Promise<Described> {
  let key = plugin.entry;
  try {
    key += `@${statSync(plugin.entry).mtimeMs}`;
  } catch {
    return describeInWorker(plugin, limits, sandbox); // its load says what is missing
  }
  let answer = described.get(key);
  if (!answer) {
    answer = describeInWorker(plugin, limits, sandbox);
    described.set(key, answer);
    answer.catch(() => described.delete(key));
  }
  return answer;
}

function describeInWorker(plugin: DiscoveredPlugin, limits: WorkerLimits, sandbox: Sandbox): Promise<Described> {
  return new Promise((resolve, reject) => {
    const { child, exit } = forkPluginProcess(ENTRY, {
      name: `describe:${plugin.manifest.id}`,
      maxMemoryMb: limits.maxMemoryMb,
      sandbox,
    });
    child.send({ entry: plugin.entry });
    const timer = setTimeout(
      () => done(new Error(`its module did not load within ${DESCRIBE_TIMEOUT_MS / 1000} s`)),
      DESCRIBE_TIMEOUT_MS,
    );
    let settled = false;
    const done = (error: Error | undefined, described?: Described) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      if (error) reject(error);
      else resolve(described!);
    };
    child.once('message', (raw: unknown) => {
      const answer = answerSchema.safeParse(raw);
      if (!answer.success) done(new Error('its describe process answered something the host does not understand'));
      else if (answer.data.ok) done(undefined, answer.data);
      else done(new Error(answer.data.error));
    });
    child.once('error', (err) => done(err));
    child.once('exit', (code, signal) =>
      done(new Error(describeExit(code, signal, exit, limits).replace('its worker process', 'its describe process'))),
    );
  });
}
