/**
 * Where the installation is. In a checkout the core package is `<root>/core`; installed from
 * its tarball it is `<root>/node_modules/@heliograph/core`. Either way plugins are found under
 * `<root>/plugins` and `<root>/node_modules`, and the settings page under `<root>/web/dist` or
 * `<root>/node_modules/@heliograph/web/dist`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The core package's folder (the one holding its package.json). */
export const CORE_DIR = fileURLToPath(new URL('../../', import.meta.url));

function installRoot(coreDir: string): string {
  const parts = coreDir.split(sep);
  const at = parts.lastIndexOf('node_modules');
  return at > 0 ? parts.slice(0, at).join(sep) + sep : join(coreDir, '..') + sep;
}

/** The installation root: plugins/ and node_modules/ are searched for plugins below it. */
export const ROOT_DIR = installRoot(CORE_DIR);

/** The built settings page. */
export const WEB_DIST =
  [join(ROOT_DIR, 'web', 'dist'), join(ROOT_DIR, 'node_modules', '@heliograph', 'web', 'dist')].find((dir) =>
    existsSync(dir),
  ) ?? join(ROOT_DIR, 'web', 'dist');

/** The plugin setup a new data directory starts with: the checkout's plugins.json, when there is one. */
export const DEFAULT_PLUGINS_FILE = join(ROOT_DIR, 'plugins.json');

/** The software version, as `system/software_version` and `heliograph --version` show it. */
export const VERSION: string = (JSON.parse(readFileSync(join(CORE_DIR, 'package.json'), 'utf8')) as { version: string })
  .version;
