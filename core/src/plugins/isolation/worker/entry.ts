/*
 * The main module of a plugin's sandboxed process (sandbox.ts): imports the plugin, parses its config with
 * the plugin's own schema, runs its setup against a context that forwards every call to the
 * host over the IPC channel, then serves the host's calls (job runs, writes, pings) until it
 * is told to stop. An exception or rejection nobody handles is reported to the host as a
 * crash and ends this process only; so does anything native (an abort, a segfault).
 */
import { pathToFileURL } from 'node:url';
import type { Cleanup, PluginDefinition } from '@heliograph/plugins-sdk';
import { ConfigError, formatZodError } from '@heliograph/plugins-sdk';
import { errorToFields, type ToWorker } from './protocol.js';
import { parseConfig } from '../../instances/config-checks.js';
import { WorkerContext } from './worker-context.js';
import { processPort, whenStarted } from './process-port.js';
import { reportRefusals } from './refusals.js';

const port = processPort();
const start = await whenStarted();
const context = new WorkerContext(port, start);
// Before the plugin's module is imported: every refusal of the sandbox reaches the host.
reportRefusals((refusal) => context.port.postMessage({ type: 'denied', ...refusal }));
let cleanup: Cleanup | undefined;

process.on('message', (message: ToWorker) => {
  if (message.type === 'ping') return port.postMessage({ type: 'pong' });
  if (message.type === 'stop') return void stop();
  if (message.type === 'start') return;
  void context.receive(message);
});
// The host went away (it exited, or killed the channel): nobody is left to serve.
process.on('disconnect', () => process.exit(0));
const crash = (err: unknown) => {
  context.port.flush();
  port.exit({ type: 'crashed', ...errorToFields(err) }, 1);
};
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

/**
 * The plugin's cleanup first, awaited while its context still reaches the host (an async one
 * may write through `ctx.site`), then its jobs and handlers end with the process.
 */
async function stop(): Promise<void> {
  try {
    await cleanup?.();
  } catch (err) {
    context.port.flush();
    port.exit({ type: 'crashed', ...errorToFields(err) }, 1);
    return;
  }
  context.abort.abort();
  context.port.flush();
  port.exit(undefined, 0);
}

async function setup(): Promise<void> {
  const module = (await import(pathToFileURL(start.entry).href)) as { default?: PluginDefinition };
  const definition = module.default;
  if (!definition || typeof definition.setup !== 'function' || !definition.configSchema) {
    throw new Error(`${start.entry} has no default export made with definePlugin`);
  }
  const parsed = parseConfig(definition.configSchema, start.config);
  if (!parsed.success) throw new ConfigError(formatZodError(parsed.error, { source: 'config', input: start.config }));
  const schema = definition.deviceConfigSchema;
  start.devices = start.devices.map((device) => {
    const deviceParsed = schema && parseConfig(schema, device.config);
    if (deviceParsed && !deviceParsed.success)
      throw new ConfigError(
        formatZodError(deviceParsed.error, { source: `device ${device.id}`, input: device.config }),
      );
    if (!schema && Object.keys(device.config).length > 0)
      throw new ConfigError(`device ${device.id}: the plugin takes no per-device config; remove "config"`);
    return { ...device, config: deviceParsed?.data ?? {} };
  });
  const result = await definition.setup(context.build(), parsed.data);
  if (typeof result === 'function') cleanup = result;
}

setup().then(
  () => context.port.sendNow({ type: 'setup-done', ok: true }),
  (err: unknown) => context.port.sendNow({ type: 'setup-done', ok: false, ...errorToFields(err) }),
);
