/*
 * plugins/discovery: which plugins exist. This file finds the bundled and installed packages
 * and reads their manifests; plugin-dirs.ts adds the folders of `--plugin-dir`, installed.ts
 * lists what the settings page can add.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
// Only the function used: the whole package is ~50 modules loaded at every start.
import satisfies from 'semver/functions/satisfies.js';
import { manifestSchema, type PluginDefinition, type PluginManifest, formatZodError } from '@heliograph/plugins-sdk';
import { createLogger, errorMessage } from '../../log.js';

const log = createLogger('plugins');

/** The version of the SDK this server was built with; a plugin's `heliograph.sdk` range must match it. */
export const SDK_VERSION = (
  createRequire(import.meta.url)('@heliograph/plugins-sdk/package.json') as { version: string }
).version;

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
  /** The definition itself, when it is handed over rather than imported (the plugin harness). */
  definition?: PluginDefinition;
  /** Found in a folder given with --plugin-dir / HELIOGRAPH_PLUGIN_DIR. */
  underDevelopment?: boolean;
}

/**
 * The fix when the id the plugin's code gives `definePlugin` is not its manifest's id (which
 * plugins.json and the API use), else undefined.
 */
export function idMismatch(plugin: DiscoveredPlugin, definedId: string): string | undefined {
  const { id } = plugin.manifest;
  if (definedId === id) return undefined;
  return `plugin ${plugin.packageName} (${plugin.dir}): its package.json says "heliograph": { "id": "${id}" } but its code says definePlugin({ id: "${definedId}" }): make the two the same (plugins.json names a plugin by the manifest's id)`;
}

/**
 * What reading one folder's package.json found: a plugin, or why it is none (`noManifest`:
 * the package has no `heliograph` field at all, so it may not be meant as one).
 */
export type PackageRead =
  { plugin: DiscoveredPlugin } | { problem: string; noManifest?: boolean } | { notPlugin: true };

/**
 * The package.json fields discovery reads besides the manifest. `main` must stay inside the
 * package: a plugin's code is what its own folder holds.
 */
const packageSchema = z.looseObject({
  name: z.string().min(1, 'expected the package name').optional(),
  main: z
    .string()
    .min(1, 'expected the path of the built entry module, e.g. "dist/src/index.js"')
    .refine((main) => !isAbsolute(main) && !normalize(main).split(sep).includes('..'), {
      message: 'must be a path inside the package, e.g. "dist/src/index.js"',
    })
    .optional(),
  description: z.string().optional(),
  keywords: z.array(z.string()).optional(),
});

/**
 * Reads `<dir>/package.json` as a plugin package. The manifest (the `heliograph` field) and
 * its `sdk` range are checked before anything is imported, so a broken or foreign package
 * never runs code.
 */
export function readPluginPackage(dir: string, options: { requireKeyword: boolean; bundled: boolean }): PackageRead {
  const pkgFile = join(dir, 'package.json');
  if (!existsSync(pkgFile)) return { notPlugin: true };
  let json: unknown;
  try {
    const text = readFileSync(pkgFile, 'utf8');
    // Most of node_modules is not a plugin: a package.json without the keyword anywhere in its
    // text is passed over unparsed (the service's start reads every one of them).
    if (options.requireKeyword && !text.includes(PLUGIN_KEYWORD)) return { notPlugin: true };
    json = JSON.parse(text);
  } catch (err) {
    return { problem: `${pkgFile}: not valid JSON (${errorMessage(err)})` };
  }
  const isPlugin = hasPluginKeyword(json);
  if (options.requireKeyword && !isPlugin) return { notPlugin: true };
  const read = packageSchema.safeParse(json);
  if (!read.success) return { problem: formatZodError(read.error, { source: pkgFile, input: json }) };
  const pkg = read.data;
  const name = pkg.name ?? dir;
  if (pkg.heliograph === undefined) {
    return {
      problem: `${pkgFile} has no "heliograph" field: a plugin names its id, kind and sdk range there, e.g. "heliograph": { "id": "acme", "kind": "inverter", "sdk": "^1" }`,
      noManifest: true,
    };
  }
  const parsed = manifestSchema.safeParse(pkg.heliograph);
  if (!parsed.success) {
    return {
      problem: `plugin package ${name}: ${formatZodError(parsed.error, { source: 'package.json heliograph', input: pkg.heliograph })}`,
    };
  }
  const { sdk } = parsed.data;
  if (!satisfies(SDK_VERSION, sdk)) {
    return {
      problem: `plugin package ${name} needs SDK "${sdk}", this Heliograph has SDK ${SDK_VERSION}: change package.json heliograph.sdk (e.g. "^1") or update Heliograph`,
    };
  }
  return {
    plugin: {
      manifest: parsed.data,
      packageName: pkg.name ?? parsed.data.id,
      dir,
      entry: join(dir, pkg.main ?? 'index.js'),
      description: pkg.description,
      bundled: options.bundled,
    },
  };
}

const PLUGIN_KEYWORD = 'heliograph-plugin';

/** Whether a package.json names the keyword, read before the rest is checked: other packages are passed over quietly. */
function hasPluginKeyword(json: unknown): boolean {
  const keywords = (json as { keywords?: unknown } | null)?.keywords;
  return Array.isArray(keywords) && keywords.includes(PLUGIN_KEYWORD);
}

/**
 * Work discovery does between two turns of the event loop at most, ms. It reads every
 * package.json in node_modules (about 500, some 40 ms on one core), while the server already
 * answers: in slices, a request that came in meanwhile is answered between two of them.
 */
const SLICE_MS = 4;

/**
 * Finds plugin packages: every package under `<root>/plugins/`, and every package in
 * `<root>/node_modules` (scoped ones included) with the keyword `heliograph-plugin`. Broken
 * or incompatible packages there are logged and skipped; the first package found for an id
 * wins. Plugin folders under development are added by plugin-dirs.ts.
 */
export async function discoverPlugins(root: string): Promise<Map<string, DiscoveredPlugin>> {
  const found = new Map<string, DiscoveredPlugin>();
  let sliceStart = performance.now();
  for (const { dir, requireKeyword } of packageDirs(root)) {
    const read = readPluginPackage(dir, { requireKeyword, bundled: !requireKeyword });
    if ('problem' in read) log.warn(`skipping ${read.problem}`);
    if ('plugin' in read && !found.has(read.plugin.manifest.id)) found.set(read.plugin.manifest.id, read.plugin);
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
  return found;
}

/** The package folders discovery reads, in its order: the project's plugins/, then node_modules (where the keyword is required). */
function* packageDirs(root: string): Generator<{ dir: string; requireKeyword: boolean }> {
  const pluginsDir = join(root, 'plugins');
  for (const name of listDirs(pluginsDir)) yield { dir: join(pluginsDir, name), requireKeyword: false };
  const modules = join(root, 'node_modules');
  for (const name of listDirs(modules)) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@'))
      for (const sub of listDirs(join(modules, name))) yield { dir: join(modules, name, sub), requireKeyword: true };
    else yield { dir: join(modules, name), requireKeyword: true };
  }
}

/** The sub-folders of a folder (symbolic links included), sorted; none when it cannot be read. */
export function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() || d.isSymbolicLink())
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}
