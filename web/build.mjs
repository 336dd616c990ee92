#!/usr/bin/env node
// Bundles the page (src/main.ts and everything it imports, uPlot and the Phoenix client
// included) into one script and one style sheet with content-hashed names, writes
// index.html naming them, and a .br and .gz of each file beside it, so the core serves the
// precompressed bytes and lets browsers cache the hashed files for good.
// `--report` prints the compressed sizes.
import { build } from 'esbuild';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const dist = join(here, 'dist');
/** The page's size budget: script, styles and page together, compressed. */
const BUDGET_BYTES = 150 * 1024;

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

const result = await build({
  entryPoints: [join(here, 'src', 'main.ts')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2020',
  outdir: dist,
  // Upper-case hash so static.ts's HASHED_FILE pattern knows a hashed file from its name.
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const script = outputs.find((f) => f.endsWith('.js'));
const style = outputs.find((f) => f.endsWith('.css'));
if (!script || !style) throw new Error(`the bundle lacks a script or style sheet: ${outputs.join(', ')}`);
const html = readFileSync(join(here, 'src', 'index.html'), 'utf8')
  .replaceAll('%SCRIPT%', `/${script}`)
  .replaceAll('%STYLE%', `/${style}`);
writeFileSync(join(dist, 'index.html'), html);

let total = 0;
const rows = [];
for (const name of readdirSync(dist)) {
  const bytes = readFileSync(join(dist, name));
  const br = brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  });
  writeFileSync(join(dist, `${name}.br`), br);
  writeFileSync(join(dist, `${name}.gz`), gzipSync(bytes, { level: 9 }));
  total += br.length;
  rows.push(`${name.padEnd(28)} ${String(bytes.length).padStart(8)} B  br ${String(br.length).padStart(7)} B`);
}
if (process.argv.includes('--report'))
  console.log(`${rows.join('\n')}\ntotal brotli: ${(total / 1024).toFixed(1)} kB of ${BUDGET_BYTES / 1024} kB`);
if (total > BUDGET_BYTES) {
  console.error(
    `web/build.mjs: the page is ${(total / 1024).toFixed(1)} kB compressed, over its budget of ${BUDGET_BYTES / 1024} kB: find what grew with \`npx esbuild --analyze\`.`,
  );
  process.exit(1);
}
