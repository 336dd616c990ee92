#!/usr/bin/env node
// Bundles the page (src/main.ts and everything it imports, uPlot and the Phoenix client
// included) into a script, the chunks it loads later (the screens after the first:
// screens/tabs.ts imports them when their tab is opened) and one style sheet, all with
// content-hashed names; writes index.html naming the script and style sheet, and a .br and
// .gz of each file beside it, so the core serves the precompressed bytes and lets browsers
// cache the hashed files for good. `--report` prints the compressed sizes.
import { build } from 'esbuild';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const dist = join(here, 'dist');
/**
 * The page's size budget, compressed, for everything built (and so for what the first load
 * on a phone fetches: index.html, the script with the chunks it imports at once, the style
 * sheet; `--report` prints both).
 */
const BUDGET_BYTES = 150 * 1024;

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

const result = await build({
  entryPoints: [join(here, 'src', 'main.ts')],
  bundle: true,
  minify: true,
  format: 'esm',
  // Screens imported with import() become chunks of their own, fetched when first shown.
  splitting: true,
  target: 'es2020',
  outdir: dist,
  // Upper-case hash so static.ts's HASHED_FILE pattern knows a hashed file from its name.
  entryNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = result.metafile.outputs;
const entry = Object.keys(outputs).find((p) => p.endsWith('.js') && outputs[p].entryPoint);
const styleOut = entry && outputs[entry].cssBundle;
if (!entry || !styleOut)
  throw new Error(`the bundle lacks a script or style sheet: ${Object.keys(outputs).join(', ')}`);
const script = basename(entry);
const style = basename(styleOut);
/** The entry and the chunks it imports statically: what a first load runs before anything shows. */
const firstLoad = new Set(['index.html', style]);
const follow = (path) => {
  if (firstLoad.has(basename(path))) return;
  firstLoad.add(basename(path));
  for (const i of outputs[path]?.imports ?? []) if (i.kind === 'import-statement') follow(i.path);
};
follow(entry);
// The chunks the script imports at once are named in the page too, so the browser fetches
// them beside the script instead of after it.
const preloads = [...firstLoad]
  .filter((name) => name.endsWith('.js') && name !== script)
  .map((name) => `<link rel="modulepreload" href="/${name}" />`)
  .join('\n    ');
const html = readFileSync(join(here, 'src', 'index.html'), 'utf8')
  .replaceAll('%SCRIPT%', `/${script}`)
  .replaceAll('%STYLE%', `/${style}`)
  .replaceAll('%PRELOADS%', preloads);
writeFileSync(join(dist, 'index.html'), html);

let total = 0;
let first = 0;
const rows = [];
for (const name of readdirSync(dist)) {
  const bytes = readFileSync(join(dist, name));
  const br = brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  });
  writeFileSync(join(dist, `${name}.br`), br);
  writeFileSync(join(dist, `${name}.gz`), gzipSync(bytes, { level: 9 }));
  total += br.length;
  if (firstLoad.has(name)) first += br.length;
  const when = firstLoad.has(name) ? 'first load' : 'when shown';
  rows.push(`${name.padEnd(28)} ${String(bytes.length).padStart(8)} B  br ${String(br.length).padStart(7)} B  ${when}`);
}
const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
if (process.argv.includes('--report'))
  console.log(
    `${rows.join('\n')}\nfirst load brotli: ${kb(first)} of ${kb(BUDGET_BYTES)}; all files brotli: ${kb(total)} of ${kb(BUDGET_BYTES)}`,
  );
if (total > BUDGET_BYTES) {
  console.error(
    `web/build.mjs: the page is ${kb(total)} compressed (first load ${kb(first)}), over its budget of ${kb(BUDGET_BYTES)}: find what grew with \`npx esbuild --analyze\`.`,
  );
  process.exit(1);
}
