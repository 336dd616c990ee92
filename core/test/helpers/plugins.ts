import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './tmp.js';

/** The repository root, from core/dist/test/helpers. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const FIXTURE_PLUGINS = join(REPO_ROOT, 'test', 'fixtures', 'plugins');

/**
 * A discovery root whose plugins/ holds links to the named fixture plugins and bundled
 * plugins (`plugins/simulator`), so a test controls exactly which plugins exist.
 */
export function pluginRoot(entries: { fixtures?: string[]; bundled?: string[] }): string {
  const root = tempDir('heliograph-plugins-');
  mkdirSync(join(root, 'plugins'));
  for (const name of entries.fixtures ?? []) symlinkSync(join(FIXTURE_PLUGINS, name), join(root, 'plugins', name));
  for (const name of entries.bundled ?? []) symlinkSync(join(REPO_ROOT, 'plugins', name), join(root, 'plugins', name));
  return root;
}
