/**
 * The data directory: the database, the site id, the user's config and plugin setup. It holds
 * the password hash, tokens and plugins' API keys, so it is readable by the service's user
 * only: the folder 0700, its files 0600 (the process's umask is 077 too, so SQLite's own
 * files start that way). Upgrading from a release that made them world-readable tightens them.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PLUGINS_FILE } from '../install-root.js';
import { createLogger } from '../log.js';

const log = createLogger('data');

/** The files of the data directory that a backup carries besides the database. */
export const DATA_FILES = ['site-id', 'config.json', 'plugins.json'] as const;
export const DATABASE_FILE = 'heliograph.db';

/** Creates the data directory (0700) and makes what it holds readable by its owner only. */
export function prepareDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  tighten(dataDir, 0o700);
  for (const name of [...DATA_FILES, DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]) {
    const file = join(dataDir, name);
    if (existsSync(file)) tighten(file, 0o600);
  }
}

function tighten(path: string, mode: number): void {
  const stat = statSync(path);
  // Only what this user owns can be changed; root running the command leaves others' files be.
  if ((stat.mode & 0o777) === mode || (process.getuid && stat.uid !== process.getuid())) return;
  chmodSync(path, mode);
}

/**
 * `<data>/plugins.json`, the plugin setup the API and the settings page change. On the first
 * start it is copied from the default (the checkout's tracked plugins.json), which is never
 * written afterwards: `git pull` or a new package never meets the user's setup.
 */
export function dataPluginsFile(dataDir: string, defaultFile: string = DEFAULT_PLUGINS_FILE): string {
  const file = join(dataDir, 'plugins.json');
  if (existsSync(file)) return file;
  if (existsSync(defaultFile)) {
    copyFileSync(defaultFile, file);
    chmodSync(file, 0o600);
    log.info(`first start: the plugin setup ${file} starts as a copy of ${defaultFile}`);
  } else {
    writeFileSync(file, '{ "plugins": [] }\n', { mode: 0o600 });
    log.info(`first start: ${file} starts with no plugins; add them in the settings page`);
  }
  return file;
}
