#!/usr/bin/env node
// `npm run mutate [module...]`: mutation testing of the modules that decide access and answers
// (modules.json). For each module, Stryker mutates its compiled JavaScript and runs the module's
// compiled tests (node's test runner, through Stryker's TAP runner) against every mutant; a
// mutant no test notices "survives". Survivors that cannot change behaviour are listed, with the
// reason, in equivalent.json; every other survivor is printed, and the run fails when a module
// scores under the bar. It is not part of `npm test`: run it before merging a change to one of
// these modules (docs/architecture.md).
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Stryker } from '@stryker-mutator/core';

const BAR = 90;
const root = fileURLToPath(new URL('../..', import.meta.url));
const here = join(root, 'test', 'mutate');
const { modules } = JSON.parse(readFileSync(join(here, 'modules.json'), 'utf8'));
const equivalents = JSON.parse(readFileSync(join(here, 'equivalent.json'), 'utf8')).mutants;

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !modules.some((m) => m.name === name));
if (unknown.length > 0) {
  console.error(`unknown module(s) ${unknown.join(', ')}; known: ${modules.map((m) => m.name).join(', ')}`);
  process.exit(2);
}
const chosen = wanted.length > 0 ? modules.filter((m) => wanted.includes(m.name)) : modules;

/** The source line a mutant sits on, trimmed: what equivalent.json names, so line shifts do not matter. */
function sourceLine(file, line) {
  return (readFileSync(join(root, file), 'utf8').split('\n')[line - 1] ?? '').trim();
}

function isEquivalent(moduleName, mutant, file) {
  const line = sourceLine(file, mutant.location.start.line);
  return equivalents.find(
    (e) =>
      e.module === moduleName &&
      e.file === file &&
      e.mutator === mutant.mutatorName &&
      e.replacement === mutant.replacement &&
      e.line === line,
  );
}

// The test processes inherit this environment: no mDNS advertising, no log noise.
process.env.HELIOGRAPH_MDNS = '0';
process.env.HELIOGRAPH_LOG_LEVEL = 'silent';

const rows = [];
let failed = false;
for (const module of chosen) {
  const missing = [...module.mutate, ...module.tests].filter((f) => !existsSync(join(root, f)));
  if (missing.length > 0) {
    console.error(`${module.name}: ${missing.join(', ')} not found: run \`npm run build\` first`);
    process.exit(2);
  }
  console.log(`\n== ${module.name}: ${module.mutate.join(', ')}`);
  // Mutants are made in place: tests across packages import the core by its package name,
  // which a sandbox copy would leave pointing at the unmutated files. Stryker puts the files
  // back when it ends; the copies taken here are put back as well, whatever happens.
  const backup = mkdtempSync(join(tmpdir(), 'heliograph-mutate-'));
  const restore = () => module.mutate.forEach((f, i) => copyFileSync(join(backup, String(i)), join(root, f)));
  module.mutate.forEach((f, i) => copyFileSync(join(root, f), join(backup, String(i))));
  process.once('exit', restore);
  const stryker = new Stryker({
    inPlace: true,
    testRunner: 'tap',
    // forceBail: a test file exits at its first failure, so a killed mutant costs one test.
    tap: { testFiles: module.tests, forceBail: true },
    mutate: module.mutate,
    coverageAnalysis: 'perTest',
    // The project builds with TypeScript 7, which has no JavaScript API for Stryker's tsconfig
    // rewriting; the mutants are in compiled JavaScript anyway.
    tsconfigFile: 'test/mutate/no-such-tsconfig.json',
    disableTypeChecks: false,
    reporters: ['progress'],
    concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 2),
    // A mutant that loops forever (a varint reader that never ends) is given up on after its
    // covering tests' baseline time x 1.5 plus this: long enough for a loaded machine.
    timeoutMS: Number(process.env.MUTATE_TIMEOUT_MS ?? 10_000),
    // One per module, so runs of two modules at once do not clear each other's.
    tempDirName: `.stryker-tmp-${module.name}`,
    cleanTempDir: 'always',
    // Compiled output is git-ignored; Stryker must still see the files it mutates.
    ignorePatterns: ['!core/dist', '!plugins/*/dist', 'data', 'test-artifacts'],
    logLevel: 'warn',
    fileLogLevel: 'off',
  });
  let results;
  try {
    results = await stryker.runMutationTest();
  } finally {
    restore();
    process.off('exit', restore);
    rmSync(backup, { recursive: true, force: true });
    rmSync(join(root, `.stryker-tmp-${module.name}`), { recursive: true, force: true });
  }
  const counted = { killed: 0, survived: 0, equivalent: 0, other: 0 };
  const alive = [];
  for (const mutant of results) {
    const file = relative(root, mutant.fileName);
    if (mutant.status === 'Killed' || mutant.status === 'Timeout') counted.killed++;
    else if (mutant.status === 'Survived' || mutant.status === 'NoCoverage') {
      if (isEquivalent(module.name, mutant, file)) counted.equivalent++;
      else {
        counted.survived++;
        alive.push(
          `  ${file}:${mutant.location.start.line}:${mutant.location.start.column} ${mutant.mutatorName}${mutant.status === 'NoCoverage' ? ' (no test runs it)' : ''}\n` +
            `    ${sourceLine(file, mutant.location.start.line)}\n    -> ${mutant.replacement.replace(/\s+/g, ' ')}`,
        );
      }
    } else counted.other++;
  }
  const judged = counted.killed + counted.survived;
  const score = judged === 0 ? 100 : (100 * counted.killed) / judged;
  if (score < BAR) failed = true;
  rows.push({ module: module.name, mutants: results.length, ...counted, score });
  if (alive.length > 0) console.log(`surviving mutants of ${module.name}:\n${alive.join('\n')}`);
}

console.log('\nmodule                   mutants  killed  survived  equivalent  errors  score');
for (const r of rows) {
  console.log(
    `${r.module.padEnd(24)} ${String(r.mutants).padStart(7)} ${String(r.killed).padStart(7)} ${String(r.survived).padStart(9)} ${String(r.equivalent).padStart(11)} ${String(r.other).padStart(7)}  ${r.score.toFixed(1)} %`,
  );
}
console.log(
  `\nscore = killed (incl. time-outs) / (killed + surviving, equivalent mutants left out); the bar is ${BAR} %`,
);
process.exit(failed ? 1 : 0);
