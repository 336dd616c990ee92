/**
 * The plugins' discovery and load, which the composition root (server.ts) runs once the server
 * answers: their code is about a third of the start's CPU, and nothing a first answer needs.
 * Between the steps, each a burst of file reads, zod and module loading on the one thread,
 * the requests that came in meanwhile are answered.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ROOT_DIR } from '../install-root.js';
import { discoverPlugins } from '../plugins/discovery/discovery.js';
import { importDefinition } from '../plugins/discovery/installed.js';
import { checkPluginDirs, withPluginDirs } from '../plugins/discovery/plugin-dirs.js';
import { PluginHost } from '../plugins/host/host.js';
import { loadDefinition } from '../plugins/isolation/isolation.js';
import type { DependencyContainer } from './di.js';
import { DISCOVERED_PLUGINS } from './service-tokens.js';

/** Where plugins come from (ServerOptions' fields of the same names). */
export interface PluginSources {
  dataDir: string;
  /** Where plugins are discovered; default the installation root. */
  rootDir?: string;
  /** Plugin folders under development (`--plugin-dir`). */
  pluginDirs?: string[];
}

/**
 * Discovers the installed plugins and those in the --plugin-dir folders (a mistake in one
 * stops the start) into DISCOVERED_PLUGINS, the map the PluginHost holds.
 */
export async function discoverAll(di: DependencyContainer, sources: PluginSources): Promise<void> {
  const discovered = withPluginDirs(await discoverPlugins(sources.rootDir ?? ROOT_DIR), sources.pluginDirs ?? []);
  await nextTurn();
  await checkPluginDirs(discovered, (plugin) =>
    loadDefinition({}, plugin, () => importDefinition(plugin), sources.dataDir),
  );
  const known = di.resolve(DISCOVERED_PLUGINS);
  for (const [id, plugin] of discovered) known.set(id, plugin);
}

/**
 * Discovers the plugins, unless `discovered` says that was done already, and loads
 * plugins.json's instances (a bad key stops the start).
 */
export async function loadPlugins(di: DependencyContainer, sources: PluginSources, discovered: boolean): Promise<void> {
  if (!discovered) await discoverAll(di, sources);
  await nextTurn();
  await di.resolve(PluginHost).load();
}
