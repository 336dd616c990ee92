// Code and docs never send a reader to a file outside the repository: the API contract's rules
// are cited by the section of docs/api.md that carries them, a device's protocol by its public
// name. Every file git tracks is read for the names of the documents the project was specified
// in, which a reader of the repository cannot open.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../helpers/server.js';

/** The documents outside the repository, by name or by the folder they sit in. */
const OUTSIDE =
  /\b(?:local-api|decisions|providers|DESIGN|STYLE|DEVELOPERS)\.md\b|(?:\.\.\/)+shared\/|\bshared\/(?:spec|reference|bench)\//g;

/** Each line of `text` that names a document outside the repository, as `line: match`. */
function outsideReferences(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const [match] of line.matchAll(OUTSIDE)) found.push(`${i + 1}: ${match}`);
  });
  return found;
}

const OWN = 'test/shape/outside-references.test.ts';

test('no file in the repository names a document outside it', async () => {
  const { stdout } = await promisify(execFile)('git', ['ls-files', '-z'], {
    cwd: REPO_ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const files = stdout.split('\0').filter((f) => f !== '' && f !== OWN);
  assert.ok(files.length > 500, `git lists the repository's files (${files.length})`);
  const named: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(REPO_ROOT, file), 'utf8');
    } catch {
      continue; // listed but not in this checkout (a sparse one)
    }
    if (text.includes('\0')) continue; // binary
    for (const where of outsideReferences(text)) named.push(`${file}:${where}`);
  }
  assert.deepEqual(named, [], 'documents outside the repository, named');
});

test('the check catches each outside name and passes the repository’s own documents', () => {
  const planted = [
    'as decisions.md says',
    '(local-api.md, Errors)',
    'the map of providers.md',
    'see ../shared/spec/x',
    'shared/reference/y.md',
    'DESIGN.md and STYLE.md',
  ].join('\n');
  assert.deepEqual(outsideReferences(planted), [
    '1: decisions.md',
    '2: local-api.md',
    '3: providers.md',
    '4: ../shared/',
    '5: shared/reference/',
    '6: DESIGN.md',
    '6: STYLE.md',
  ]);
  assert.deepEqual(
    outsideReferences('docs/api.md "Authentication", docs/api-choices.md, plugins/planner/README.md'),
    [],
  );
});
