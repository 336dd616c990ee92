import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURE_PLUGINS, REPO_ROOT } from './paths.js';
import { tempDir } from './tmp.js';

export { FIXTURE_PLUGINS, REPO_ROOT } from './paths.js';

/** Which plugins a discovery root holds: fixtures and bundled ones in plugins/, `external` fixtures in node_modules/. */
export interface PluginLinks {
  /** test/fixtures/plugins/<name>, linked into plugins/ (found as bundled). */
  fixtures?: string[];
  /** plugins/<name> of this repository, linked into plugins/. */
  bundled?: string[];
  /** test/fixtures/plugins/<name>, linked into node_modules/ (found as third-party packages). */
  external?: string[];
}

/**
 * Links the named plugins into the discovery root `root` (created as needed); a link already
 * there is kept, so a restart on the same root links nothing twice.
 */
export function linkPlugins(root: string, entries: PluginLinks): void {
  mkdirSync(join(root, 'plugins'), { recursive: true });
  if (entries.external?.length) mkdirSync(join(root, 'node_modules'), { recursive: true });
  const link = (source: string, target: string) => {
    if (!existsSync(target)) symlinkSync(source, target);
  };
  for (const name of entries.fixtures ?? []) link(join(FIXTURE_PLUGINS, name), join(root, 'plugins', name));
  for (const name of entries.bundled ?? []) link(join(REPO_ROOT, 'plugins', name), join(root, 'plugins', name));
  for (const name of entries.external ?? []) link(join(FIXTURE_PLUGINS, name), join(root, 'node_modules', name));
}

/**
 * A discovery root whose plugins/ holds links to the named fixture plugins and bundled
 * plugins (`plugins/simulator`), so a test controls exactly which plugins exist.
 */
export function pluginRoot(entries: PluginLinks): string {
  const root = tempDir('heliograph-plugins-');
  linkPlugins(root, entries);
  return root;
}
