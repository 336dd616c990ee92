// The command's own help: every subcommand answers --help with its usage, --version names the
// release, no arguments prints the usage (and serves nothing), and mistakes are said in words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '@heliograph/core/testing';
import { REPO_ROOT, tempDir } from '../helpers/server.js';
import { MAIN, run } from './service.js';

const node = process.execPath;
const SUBCOMMANDS = ['serve', 'password', 'history', 'setup-code', 'backup', 'restore', 'emulate', 'plugin'];

test('--version prints the release of the core package', async () => {
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'core', 'package.json'), 'utf8')) as { version: string };
  const result = await run([node, MAIN, '--version']);
  assert.equal(result.code, 0);
  assert.equal(result.output, `heliograph ${version}\n`);
});

test('no arguments prints the usage naming every subcommand, and exits 2 without serving', async () => {
  const result = await run([node, MAIN]);
  assert.equal(result.code, 2);
  assert.doesNotMatch(result.output, /listening on/);
  for (const name of SUBCOMMANDS) assert.match(result.output, new RegExp(`heliograph ${name}\\b`), name);
});

for (const name of SUBCOMMANDS) {
  test(`heliograph ${name} --help prints its own usage`, async () => {
    const result = await run([node, MAIN, name, '--help']);
    assert.equal(result.code, 0, result.output);
    assert.match(result.output, new RegExp(`^(U|u)sage:\\s+heliograph ${name}\\b`));
  });
}

test('serve --help documents the log level and the environment', async () => {
  const result = await run([node, MAIN, 'serve', '--help']);
  for (const variable of ['HELIOGRAPH_LOG_LEVEL', 'HELIOGRAPH_DATA', 'HELIOGRAPH_PASSWORD', 'HELIOGRAPH_MDNS'])
    assert.match(result.output, new RegExp(variable), variable);
  assert.match(result.output, /debug logs every request/);
});

test('a wrong flag is said in words with the usage, not as a parser message', async () => {
  for (const [args, words] of [
    [['emulate', 'deye', '--frobnicate'], /heliograph emulate: unknown option --frobnicate/],
    [['emulate', 'deye', '--port'], /heliograph emulate: --port needs a value/],
    [['serve', 'extra'], /heliograph serve: unexpected argument "extra"/],
    [['backup'], /heliograph backup: name the one file to write/],
  ] as const) {
    const result = await run([node, MAIN, ...args]);
    assert.equal(result.code, 2, args.join(' '));
    assert.match(result.output, words);
    assert.match(result.output, /Usage: heliograph/);
    assert.doesNotMatch(result.output, /ERR_PARSE_ARGS|To specify a positional argument/);
  }
});

test('serve refuses a database written by a newer release, saying so, and leaves it as it was', async () => {
  const data = join(tempDir(), 'data');
  const file = join(data, 'heliograph.db');
  const db = await openDatabase(file);
  await db.run("INSERT INTO migrations (id, applied_at) VALUES ('auth:99', 1)");
  await db.close();
  const bytes = readFileSync(file);
  const result = await run([node, MAIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--data', data]);
  assert.equal(result.code, 1);
  assert.match(result.output, /written by a newer Heliograph.*auth:99.*Nothing was changed/);
  assert.deepEqual(readFileSync(file), bytes);
});

test('setup-code prints the code the service keeps in the data directory, and says why when there is none', async () => {
  const data = tempDir();
  const none = await run([node, MAIN, 'setup-code', '--data', data]);
  assert.equal(none.code, 1);
  assert.match(none.output, /no setup code in .*: a password is already set/);
  writeFileSync(join(data, 'setup-code'), 'ACDE-FGHJ\n', { mode: 0o600 });
  const some = await run([node, MAIN, 'setup-code', '--data', data]);
  assert.equal(some.code, 0, some.output);
  assert.equal(some.output, 'ACDE-FGHJ\n');
});
