// Duplicated code in a checkout: jscpd's clones (the same run of 50 or more tokens over 6 or
// more lines, names and strings included, import statements left out) in the TypeScript,
// JavaScript and CSS that git tracks, tests included: a copied test is a copy too. `npm run figures` prints the count;
// test/shape/duplicates.test.ts holds it to its limit.
//
//   node test/lint/duplicates.mjs [--list] [--check | --max N] [checkout]
//
// Prints the count (and with --list each clone); with --check (the limit below) or --max,
// exits 1 when there are more.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// jscpd 4's ES module build imports `colors/safe` without its extension, which Node refuses;
// its CommonJS build loads.
const { detectClones } = createRequire(import.meta.url)('jscpd');

/** The most clones the checkout may hold: lower it when copies are merged, never raise it. */
export const CLONE_LIMIT = 26;

const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|css)$/;

/** The tracked source files of `root` (declaration files and generated ones left out). */
function trackedSources(root) {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: root, maxBuffer: 1 << 26 }).toString();
  return out
    .split('\0')
    .filter((f) => SOURCE.test(f) && !f.endsWith('.d.ts'))
    .map((f) => resolve(root, f));
}

/** The clones in `root`'s tracked sources: `{ a: 'file:from-to', b: 'file:from-to', lines }`, longest first. */
export async function findClones(root) {
  const files = trackedSources(root);
  if (files.length === 0) return [];
  const clones = await detectClones({
    path: files,
    minLines: 6,
    minTokens: 50,
    format: ['typescript', 'javascript', 'css'],
    formatsExts: { typescript: ['ts', 'mts', 'cts'], javascript: ['js', 'mjs', 'cjs'], css: ['css'] },
    reporters: [],
    silent: true,
    noTips: true,
    // Import statements are left out: two files that use the same modules are not a copy.
    ignorePattern: [String.raw`(^|\n)import[\s{*][^;]*;`],
  });
  const place = (d) => `${d.sourceId.slice(root.length + 1)}:${d.start.line}-${d.end.line}`;
  return clones
    .map((c) => ({
      a: place(c.duplicationA),
      b: place(c.duplicationB),
      lines: c.duplicationA.end.line - c.duplicationA.start.line + 1,
    }))
    .sort((x, y) => y.lines - x.lines || x.a.localeCompare(y.a));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const max = args.includes('--max')
    ? Number(args[args.indexOf('--max') + 1])
    : args.includes('--check')
      ? CLONE_LIMIT
      : undefined;
  const rest = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--max');
  const root = resolve(rest[0] ?? '.');
  const clones = await findClones(root);
  console.log(`duplicated code (jscpd clones of 6+ lines): ${clones.length}`);
  if (args.includes('--list')) for (const c of clones) console.log(`  ${c.lines} ${c.a} ~ ${c.b}`);
  if (max !== undefined && clones.length > max) {
    console.error(
      `${clones.length} clones, above the limit of ${max}: share the code (node test/lint/duplicates.mjs --list)`,
    );
    process.exitCode = 1;
  }
}
