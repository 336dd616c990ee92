/*
 * One plugin instance as the host holds it, and what GET /api/v1/plugins shows of it.
 */
import { z } from 'zod';
import type { Device, DeviceIdentity, PluginDefinition } from '@heliograph/plugins-sdk';
import { formatUtc } from '../../rfc3339.js';
import type { ContextBuilder } from '../context/context.js';
import type { DiscoveredPlugin } from '../discovery/discovery.js';
import { deviceEntryId } from '../instances/config-checks.js';
import type { PluginInstanceConfig } from '../instances/instances.js';
import { approvedGrants, requestedGrants, type PluginGrants } from '../instances/grants.js';
import { secretPaths, type SecretPaths } from '../instances/secrets.js';
import { isolationOf, type Isolation } from '../isolation/isolation.js';

export type InstanceState = 'starting' | 'running' | 'failed' | 'stopped';

/** An instance as GET /api/v1/plugins shows it. */
export interface InstanceStatus {
  id: string;
  plugin: string;
  kind: string;
  /** False for an instance kept in plugins.json but switched off; its state is "stopped". */
  enabled: boolean;
  /** The ids of the devices the instance drives, as in plugins.json (`inverter_1`). */
  devices: string[];
  /** Each device: whether it answers (and why not), and what it says it is. */
  device_status: DeviceStatus[];
  state: InstanceState;
  last_error: string | null;
  last_poll: string | null;
  /** Where the plugin's code runs: `worker` (a process of its own) or `process-local`. */
  isolation: Isolation;
  /** What the plugin's manifest asks beyond its own devices, and what of it the owner approved (instances/grants.ts). */
  grants?: { requested: PluginGrants; approved: PluginGrants };
}

/** A device of an instance as GET /api/v1/plugins shows it. */
export interface DeviceStatus {
  id: string;
  available: boolean;
  reason: string | null;
  identity: DeviceIdentity;
}

export interface Instance {
  config: PluginInstanceConfig;
  /** Undefined for a disabled instance of a plugin that is not installed (any more). */
  plugin?: DiscoveredPlugin;
  definition?: PluginDefinition;
  /** The config schema as JSON Schema and its secret fields, worked out once per definition. */
  form?: { schema: unknown; secrets: SecretPaths };
  parsedConfig?: unknown;
  /** The devices with their config parsed by the plugin's deviceConfigSchema. */
  devices?: Device[];
  state: InstanceState;
  lastError: string | null;
  lastPoll: number | null;
  failures: number;
  /** Crashes (escaped exceptions) since the last good job run; they lengthen the back-off. */
  crashes: number;
  builder?: ContextBuilder;
  abort?: AbortController;
  /** A failed run being undone (its cleanup, then its registrations); a new start waits for it. */
  undoing?: Promise<void>;
  retryTimer?: NodeJS.Timeout;
}

/** A stopped instance that has never run, with what is known of it so far. */
export function newInstance(
  fields: Pick<Instance, 'config' | 'plugin'> & Partial<Pick<Instance, 'definition' | 'parsedConfig' | 'devices'>>,
): Instance {
  return { ...fields, state: 'stopped', lastError: null, lastPoll: null, failures: 0, crashes: 0 };
}

/** The instance's config schema as JSON Schema and its secret fields (undefined before its plugin loaded). */
export function formOf(instance: Instance): { schema: unknown; secrets: SecretPaths } | undefined {
  if (!instance.definition) return undefined;
  if (!instance.form) {
    const schema = z.toJSONSchema(instance.definition.configSchema, { io: 'input', unrepresentable: 'any' });
    instance.form = { schema, secrets: secretPaths(schema) };
  }
  return instance.form;
}

export function statusOf(i: Instance): InstanceStatus {
  return {
    id: i.config.id,
    plugin: i.config.plugin,
    kind: i.plugin?.manifest.kind ?? 'integration',
    enabled: i.config.enabled,
    devices: i.config.devices.map(deviceEntryId),
    device_status: i.config.devices.map((entry) => deviceStatus(i, deviceEntryId(entry))),
    state: i.state,
    last_error: i.lastError,
    last_poll: i.lastPoll === null ? null : formatUtc(i.lastPoll),
    isolation: i.plugin
      ? isolationOf(i.config, i.plugin)
      : i.config.isolation === 'process'
        ? 'worker'
        : (i.config.isolation ?? 'process-local'),
    grants: i.plugin
      ? { requested: requestedGrants(i.plugin.manifest), approved: approvedGrants(i.plugin, i.config) }
      : { requested: {}, approved: i.config.grants ?? {} },
  };
}

function deviceStatus(instance: Instance, id: string): DeviceStatus {
  const running = instance.builder?.deviceStatus(id);
  const reason = !instance.config.enabled
    ? 'the instance is switched off'
    : instance.state === 'running'
      ? 'the plugin has not declared it'
      : `the instance is ${instance.state}`;
  return { id, ...(running ?? { available: false, reason, identity: {} }) };
}
