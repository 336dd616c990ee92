import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SetupCode } from '../../src/auth/setup-code.js';
import { runSetupCode } from '../../src/cli/setup-code.js';

function dataDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'heliograph-setup-code-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('without a password the code is also in <data>/setup-code, for the service user only, until used', (t) => {
  const dir = dataDir(t);
  const file = join(dir, 'setup-code');
  writeFileSync(file, 'OLD\n', { mode: 0o644 });
  const code = SetupCode.forStart(false, file);
  assert.equal(readFileSync(file, 'utf8'), `${code.value}\n`);
  assert.equal(statSync(file).mode & 0o777, 0o600, 'readable by the service user only');
  const lines: string[] = [];
  assert.equal(
    runSetupCode(dir, (l) => lines.push(l)),
    0,
  );
  assert.deepEqual(lines, [code.value]);
  assert.ok(code.matches(readFileSync(file, 'utf8').trim()));
  code.consume();
  assert.equal(existsSync(file), false, 'deleted once the password is set');
  assert.equal(
    runSetupCode(dir, (l) => lines.push(l)),
    1,
  );
  assert.match(lines[1]!, /a password is already set/);
});

test('a start with a password set leaves no code file behind', (t) => {
  const dir = dataDir(t);
  const file = join(dir, 'setup-code');
  writeFileSync(file, 'ABCD-EFGH\n');
  const code = SetupCode.forStart(true, file);
  assert.equal(code.value, undefined);
  assert.equal(existsSync(file), false);
});
