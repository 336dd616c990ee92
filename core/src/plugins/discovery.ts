import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { manifestSchema, type PluginManifest, formatZodError } from '@heliograph/plugins-sdk';
import { createLogger } from '../log.js';

const log = createLogger('plugins');

/** A plugin package found on disk, its manifest checked but its code not yet loaded. */
export interface DiscoveredPlugin {
  manifest: PluginManifest;
  packageName: string;
  dir: string;
  /** Absolute path of the module to import. */
  entry: string;
  /** The package.json `description`, shown in the settings page's list of installed plugins. */
  description?: string;
  /** Found under the project's plugins/ folder (not node_modules): trusted to run in-process. */
  bundled?: boolean;
}

/**
 * Finds plugin packages: every package under `<root>/plugins/`, and every package in
 * `<root>/node_modules` (scoped ones included) with the keyword `heliograph-plugin`. The
 * manifest is checked before anything is imported, so a broken or foreign package never
 * runs code; such packages are logged and skipped. The first package found for an id wins.
 */
export function discoverPlugins(root: string): Map<string, DiscoveredPlugin> {
  const found = new Map<string, DiscoveredPlugin>();
  const consider = (dir: string, requireKeyword: boolean) => {
    const pkgFile = join(dir, 'package.json');
    if (!existsSync(pkgFile)) return;
    let pkg: { name?: string; main?: string; description?: unknown; keywords?: unknown; heliograph?: unknown };
    try {
      pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as typeof pkg;
    } catch (err) {
      log.warn(`skipping ${pkgFile}: not valid JSON`, { err });
      return;
    }
    const isPlugin = Array.isArray(pkg.keywords) && pkg.keywords.includes('heliograph-plugin');
    if (requireKeyword && !isPlugin) return;
    const parsed = manifestSchema.safeParse(pkg.heliograph);
    if (!parsed.success) {
      log.warn(
        `skipping plugin package ${pkg.name ?? dir}: ${formatZodError(parsed.error, { source: 'package.json heliograph', input: pkg.heliograph })}`,
      );
      return;
    }
    if (found.has(parsed.data.id)) return;
    found.set(parsed.data.id, {
      manifest: parsed.data,
      packageName: pkg.name ?? parsed.data.id,
      dir,
      entry: join(dir, pkg.main ?? 'index.js'),
      description: typeof pkg.description === 'string' ? pkg.description : undefined,
      bundled: !requireKeyword,
    });
  };

  const pluginsDir = join(root, 'plugins');
  for (const name of listDirs(pluginsDir)) consider(join(pluginsDir, name), false);
  const modules = join(root, 'node_modules');
  for (const name of listDirs(modules)) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) for (const sub of listDirs(join(modules, name))) consider(join(modules, name, sub), true);
    else consider(join(modules, name), true);
  }
  return found;
}

function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() || d.isSymbolicLink())
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}
