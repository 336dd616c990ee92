/*
 * Plugins under development (`heliograph serve --plugin-dir DIR`, HELIOGRAPH_PLUGIN_DIR):
 * loaded from a folder of the author's, without installing them into the project. Such a
 * plugin runs as an installed third-party one does (in a worker process by default). Unlike
 * the quiet skipping of broken packages in node_modules, every problem here stops the start
 * with a message that says what to fix: the author named this folder on purpose.
 */
import { existsSync, statSync } from 'node:fs';
import { delimiter, join, relative, resolve } from 'node:path';
import { ConfigError } from '../../config/load.js';
import { listDirs, readPluginPackage, type DiscoveredPlugin } from './discovery.js';

/**
 * The plugin folders under development: every --plugin-dir, else HELIOGRAPH_PLUGIN_DIR's
 * list (separated as PATH is), each resolved against the working directory. `serve` and
 * `emulate` read them alike.
 */
export function pluginDirsOf(flags: string[] | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs = flags ?? (env.HELIOGRAPH_PLUGIN_DIR ?? '').split(delimiter).filter((dir) => dir !== '');
  return dirs.map((dir) => resolve(dir));
}

/**
 * The installed plugins plus the plugin packages of each folder: the folder itself when its
 * package.json has a `heliograph` field, else every sub-folder whose package.json has one.
 * Throws a ConfigError for a missing folder, a folder without any plugin, a bad or
 * incompatible manifest, a plugin that is not built yet, and an id found twice (among the
 * folders, or in a folder and among the installed plugins).
 */
export function withPluginDirs(
  installed: ReadonlyMap<string, DiscoveredPlugin>,
  dirs: readonly string[],
): Map<string, DiscoveredPlugin> {
  const found = new Map(installed);
  for (const dir of dirs) {
    for (const plugin of pluginsIn(dir)) {
      const { id } = plugin.manifest;
      const other = found.get(id);
      if (other) {
        throw new ConfigError(
          `plugin folders: two plugins have the id "${id}": ${plugin.dir} and ${other.dir}; give one another heliograph.id, or leave one folder out`,
        );
      }
      found.set(id, plugin);
    }
  }
  return found;
}

function pluginsIn(dir: string): DiscoveredPlugin[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new ConfigError(`plugin folder ${dir} (--plugin-dir): no such folder`);
  const own = readPluginPackage(dir, { requireKeyword: false, bundled: false });
  if ('plugin' in own) return [built(own.plugin)];
  if ('problem' in own && !own.noManifest) throw new ConfigError(`plugin folder ${dir}: ${own.problem}`);
  const plugins: DiscoveredPlugin[] = [];
  for (const name of listDirs(dir)) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const read = readPluginPackage(join(dir, name), { requireKeyword: false, bundled: false });
    if ('plugin' in read) plugins.push(built(read.plugin));
    else if ('problem' in read && !read.noManifest) throw new ConfigError(`plugin folder ${dir}: ${read.problem}`);
  }
  if (plugins.length === 0) {
    throw new ConfigError(
      `plugin folder ${dir}: no plugin here: neither ${join(dir, 'package.json')} nor the package.json of a sub-folder has a "heliograph" field (the plugin's id, kind and sdk range; see docs/plugins.md)`,
    );
  }
  return plugins;
}

/**
 * Loads the definition of every plugin under development (in a short-lived process for one
 * that runs isolated), so a mistake in its code's manifest (definePlugin's id not the
 * manifest's) stops the start even before an instance uses it. `load` throws a ConfigError
 * for such a mistake; any other failure to load is left for the instance's status.
 */
export async function checkPluginDirs(
  found: ReadonlyMap<string, DiscoveredPlugin>,
  load: (plugin: DiscoveredPlugin) => Promise<unknown>,
): Promise<void> {
  const problems: string[] = [];
  await Promise.all(
    [...found.values()]
      .filter((plugin) => plugin.underDevelopment)
      .map((plugin) =>
        load(plugin).catch((err: unknown) => {
          if (err instanceof Error && err.name === 'ConfigError') problems.push(`plugin folder: ${err.message}`);
        }),
      ),
  );
  if (problems.length > 0) throw new ConfigError(problems.sort().join('\n'));
}

/** The plugin, once its entry module exists: a plugin under development may not be built yet. */
function built(plugin: DiscoveredPlugin): DiscoveredPlugin {
  if (!existsSync(plugin.entry)) {
    throw new ConfigError(
      `plugin folder ${plugin.dir}: plugin ${plugin.manifest.id} has no ${relative(plugin.dir, plugin.entry)} (its package.json "main"): build it first (npx tsc)`,
    );
  }
  return { ...plugin, underDevelopment: true };
}
