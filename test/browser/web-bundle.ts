import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const WEB_SRC = fileURLToPath(new URL('../../../web/src/', import.meta.url));

/**
 * Some of the page's own modules (web/src), bundled alone into a script that defines the global
 * `globalName`: `entry` is the source of a module beside web/src's files that exports what the
 * test needs, e.g. `export { LiveStore } from './state/live.ts';`.
 */
export async function bundleWebModules(globalName: string, entry: string): Promise<string> {
  const built = await build({
    stdin: { contents: entry, resolveDir: WEB_SRC, loader: 'ts' },
    bundle: true,
    format: 'iife',
    globalName,
    write: false,
    target: 'es2020',
  });
  return built.outputFiles[0]!.text;
}
