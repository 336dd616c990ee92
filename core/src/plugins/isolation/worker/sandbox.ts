/*
 * The sandbox of a plugin's process: Node's permission model (`--permission`, stable on Node
 * 22.13+ and 24) with only what the plugin needs allowed, and an environment without secrets.
 *
 * - read: the core's own code and the node_modules it resolves from (the SDK, zod, got), the
 *   plugin's package and the node_modules it resolves from, its own folder;
 * - write: its own folder, `<data dir>/plugins/<instance>/`, also its working directory.
 *   Nothing else of the data directory (the database, plugins.json, the lock) is readable:
 *   the data directory itself is never allowed, only that one sub-folder;
 * - no child processes, no worker threads, no inspector, no WASI, no `node:sqlite` (which
 *   Node lets open any file);
 * - native addons only for a plugin whose manifest says `"nativeAddons": true` (a serial
 *   driver), with the serial devices its instance's config names (`/dev/...`) readable and
 *   writable. An addon runs native code the permission model cannot see: such a plugin is
 *   trusted with the machine, which the manifest says out loud.
 *
 * The permission model of Node 22 and 24 does not cover the network (`--allow-net` is Node
 * 25's, and all or nothing): the hosts of the owner's grants are held by ctx.http
 * (context/bounded-got.ts); a plugin's own sockets are not. {@link SandboxGrants} is where
 * grants reach the process.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, join, relative, isAbsolute, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Environment variables a plugin's process keeps; everything else (HELIOGRAPH_PASSWORD...) is left out. */
const KEPT_ENV = /^(PATH|NODE_ENV|TZ|LANG|LANGUAGE|LC_[A-Z_]+)$/;

const NO_SQLITE = '--no-experimental-sqlite';
const ALLOW_NET = '--allow-net';

/** The core package (its dist and the node_modules around it), found from this module. */
const CORE_DIR = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../../..');

/** What a plugin is allowed beyond its code: kept apart so owner-approved grants can add to it. */
export interface SandboxGrants {
  /** Extra paths to read (a grant of the owner's, later). */
  read?: string[];
  /** Extra paths to read and write: the serial devices of the instance's config. */
  readWrite?: string[];
  /** The manifest declares native addons (`"nativeAddons": true`). */
  addons?: boolean;
  /**
   * The owner approved hosts (instances/grants.ts): the process may use the network. Only
   * where Node has `--allow-net` (25 and later; all or nothing, no per-host list); Node 22 and
   * 24 have no network permission at all, so there the network stays open whatever this says.
   */
  net?: boolean;
}

export interface SandboxOptions {
  /** The plugin's package folder. */
  pluginDir: string;
  /** The server's data directory: never readable as a whole. Absent in the plugin harness. */
  dataDir?: string;
  /** The instance's own folder, writable; none for the short-lived describe process. */
  ownDir?: string;
  grants?: SandboxGrants;
  /**
   * False for a bundled plugin run in a process of its own: code the project reviewed, kept
   * out of the server's process for its native modules' sake, gets the clean environment
   * and its folder but not the permission model (its drivers' addons and serial links).
   */
  confine?: boolean;
}

export interface Sandbox {
  execArgv: string[];
  env: Record<string, string>;
  /** The process's working directory: its own folder, else its package. */
  cwd: string;
}

/** A plugin's folder (or a path it would read) that would expose the data directory. */
export class SandboxError extends Error {
  override name = 'ConfigError';
}

/** The flags, environment and working directory of a sandboxed plugin process. */
export function sandboxFor(options: SandboxOptions): Sandbox {
  const read = new Set<string>();
  const add = (path: string) => {
    for (const p of withRealPath(path)) read.add(p);
  };
  add(join(CORE_DIR, 'dist'));
  add(join(CORE_DIR, 'package.json'));
  for (const modules of nodeModulesFrom(CORE_DIR)) addModules(modules, add);
  const dataDirs = options.dataDir ? withRealPath(resolve(options.dataDir)) : [];
  // Node resolves a linked package's imports from where it really is, so both places count.
  for (const dir of withRealPath(options.pluginDir)) {
    addExcept(dir, dataDirs, add);
    for (const modules of nodeModulesFrom(dir)) addModules(modules, add);
  }
  for (const path of options.grants?.read ?? []) add(path);
  const write = new Set<string>();
  if (options.ownDir) {
    mkdirSync(options.ownDir, { recursive: true });
    for (const p of withRealPath(options.ownDir)) write.add(p);
  }
  for (const path of options.grants?.readWrite ?? []) write.add(path);
  if (options.dataDir) checkDataDirHidden(options.dataDir, read);
  // Node 22 also checks read permission where Node 24 checks only write: a written path is read too.
  for (const path of write) read.add(path);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (KEPT_ENV.test(name) && value) env[name] = value;
  const cwd = options.ownDir ?? options.pluginDir;
  if (options.confine === false) return { execArgv: [], env, cwd };
  const execArgv = [
    '--permission',
    // node:sqlite opens any file whatever the permission model says (Node 22 and 24): it is
    // switched off, or the plugin could open the server's database by its path.
    ...(process.allowedNodeEnvironmentFlags.has(NO_SQLITE) ? [NO_SQLITE] : []),
    ...[...read].map((p) => `--allow-fs-read=${p}`),
    ...[...write].map((p) => `--allow-fs-write=${p}`),
    ...(options.grants?.addons ? ['--allow-addons'] : []),
    ...(options.grants?.net && process.allowedNodeEnvironmentFlags.has(ALLOW_NET) ? [ALLOW_NET] : []),
  ];
  return { execArgv, env, cwd };
}

/**
 * The serial devices an instance's config and device configs name: paths under `/dev/`, and
 * the `path` of a `{ "type": "serial" }` connection (a link to a device, say).
 */
export function serialDevicesOf(...configs: unknown[]): string[] {
  const found = new Set<string>();
  const walk = (value: unknown, depth: number) => {
    if (depth > 8) return;
    if (typeof value === 'string' && /^\/dev\/[\w./-]+$/.test(value) && !value.includes('..')) found.add(value);
    else if (Array.isArray(value)) for (const v of value) walk(v, depth + 1);
    else if (value && typeof value === 'object') {
      const { type, path } = value as { type?: unknown; path?: unknown };
      if (type === 'serial' && typeof path === 'string' && isAbsolute(path))
        for (const p of withRealPath(path)) found.add(p);
      for (const v of Object.values(value)) walk(v, depth + 1);
    }
  };
  for (const config of configs) walk(config, 0);
  return [...found];
}

/**
 * `dir`, or, when a data directory is inside it (`heliograph serve --plugin-dir .` in the
 * plugin's folder keeps `./data` there), each of its entries but the one that leads to the
 * data directory, and so on down to it: the permission model allows paths, it denies none.
 */
function addExcept(dir: string, dataDirs: readonly string[], add: (path: string) => void): void {
  if (!dataDirs.some((data) => inside(data, dir))) return add(dir);
  if (dataDirs.includes(dir)) return;
  for (const name of safeList(dir)) addExcept(join(dir, name), dataDirs, add);
}

/** `path` and, when it differs, where it really is (a workspace's symbolic link). */
function withRealPath(path: string): string[] {
  try {
    const real = realpathSync(path);
    return real === path ? [path] : [path, real];
  } catch {
    return [path];
  }
}

/** Every node_modules folder Node's resolution walks from `dir` up. */
function nodeModulesFrom(dir: string): string[] {
  const found: string[] = [];
  for (let at = resolve(dir); ; at = dirname(at)) {
    const modules = join(at, 'node_modules');
    if (!at.endsWith(`${sep}node_modules`) && existsSync(modules)) found.push(modules);
    if (dirname(at) === at) return found;
  }
}

/** A node_modules folder, and the real folders of the links in it (workspace packages). */
function addModules(modules: string, add: (path: string) => void): void {
  add(modules);
  const links = (dir: string, depth: number) => {
    for (const name of safeList(dir)) {
      const path = join(dir, name);
      if (depth === 0 && name.startsWith('@')) links(path, 1);
      else if (isLink(path)) add(path);
    }
  };
  links(modules, 0);
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Refuses a layout where an allowed path holds the data directory (a plugin folder that has
 * the data directory inside it): the database would be readable.
 */
function checkDataDirHidden(dataDir: string, read: Set<string>): void {
  const data = withRealPath(resolve(dataDir));
  for (const allowed of read) {
    for (const d of data) {
      if (inside(d, allowed)) {
        throw new SandboxError(
          `the plugin's sandbox would allow reading ${allowed}, which holds the data directory ${dataDir}: keep the data directory outside the plugin's folder and node_modules`,
        );
      }
    }
  }
}

/** Whether `path` is `parent` or inside it. */
function inside(path: string, parent: string): boolean {
  const rel = relative(parent, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
