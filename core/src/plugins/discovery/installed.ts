import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { PluginDefinition } from '@heliograph/plugins-sdk';
import { errorMessage } from '../../log.js';
import { ConfigError } from '../../config/load.js';
import { idMismatch, type DiscoveredPlugin } from './discovery.js';
import { requestedGrants } from '../instances/grants.js';
import type { InstalledPlugin } from '../../contract/types.js';

export type { InstalledPlugin } from '../../contract/types.js';

/**
 * Every installed plugin with what the settings page needs to add an instance of it: its
 * name and description, its config schema as JSON Schema, the devices it may drive
 * (inverter and battery plugins default to one or more devices of their kind), and the
 * grants the owner is asked to approve.
 */
export async function listInstalled(
  discovered: Map<string, DiscoveredPlugin>,
  definitionOf: (plugin: DiscoveredPlugin) => Promise<PluginDefinition>,
): Promise<InstalledPlugin[]> {
  const out: InstalledPlugin[] = [];
  for (const plugin of [...discovered.values()].sort((a, b) => a.manifest.id.localeCompare(b.manifest.id))) {
    const { id, kind, name } = plugin.manifest;
    const entry: InstalledPlugin = {
      plugin: id,
      kind,
      name: name ?? id,
      description: plugin.description ?? '',
      schema: null,
      devices: deviceRule(plugin),
      grants: requestedGrants(plugin.manifest),
      bundled: plugin.bundled !== false,
    };
    try {
      entry.schema = z.toJSONSchema((await definitionOf(plugin)).configSchema, { io: 'input', unrepresentable: 'any' });
    } catch (err) {
      entry.error = `cannot load plugin ${plugin.packageName}: ${errorMessage(err)}`;
    }
    out.push(entry);
  }
  return out;
}

/**
 * Which devices an instance of the plugin may drive: the manifest's `devices`, else one or
 * more of the plugin's kind for inverter and battery plugins, none for the others.
 */
export function deviceRule(plugin: DiscoveredPlugin): InstalledPlugin['devices'] {
  const { kind, devices } = plugin.manifest;
  return devices ?? (kind === 'inverter' || kind === 'battery' ? { kinds: [kind], min: 1, max: null } : null);
}

/** Imports a plugin's module (unless handed over) and checks that its default export is its definition. */
export async function importDefinition(plugin: DiscoveredPlugin): Promise<PluginDefinition> {
  const definition =
    plugin.definition ?? ((await import(pathToFileURL(plugin.entry).href)) as { default?: PluginDefinition }).default;
  if (!definition || typeof definition.setup !== 'function' || !definition.configSchema) {
    throw new Error(`${plugin.entry} has no default export made with definePlugin`);
  }
  const mismatch = idMismatch(plugin, definition.id);
  if (mismatch) throw new ConfigError(mismatch);
  return definition;
}
