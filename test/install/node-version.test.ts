// A Node older than package.json's "engines" is refused at the start in words (the versions
// and where to get a newer one), before anything that could fail on it is loaded; the check
// module parses on old Node. The repository's .npmrc makes npm refuse an unsupported Node too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { within } from '../helpers/deadline.js';
import { REPO_ROOT } from '../helpers/server.js';
import { MAIN, run } from './service.js';

interface VersionModule {
  OLDEST_NODE: string;
  nodeVersionProblem: (version: string, oldest?: string) => string | undefined;
}
// Not among the core package's exports: loaded from the build, as main.js loads it.
const versionModule = (): Promise<VersionModule> =>
  import(pathToFileURL(join(REPO_ROOT, 'core', 'dist', 'src', 'node-version.js')).href) as Promise<VersionModule>;

/** An older Node on the machine (Debian's, say), when there is one. */
const OLD_NODE = '/usr/bin/node';

test('the oldest Node named in the code is the one of package.json "engines"', async () => {
  const { OLDEST_NODE } = await versionModule();
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  assert.equal(pkg.engines.node, `>=${OLDEST_NODE}`);
});

test('a Node older than the engines range is refused, naming both versions and the README section', async () => {
  const { nodeVersionProblem } = await versionModule();
  assert.equal(
    nodeVersionProblem('20.20.2'),
    'Heliograph needs Node 22.18 or newer; this is 20.20.2. Install a current LTS line (Node 24) as README.md says ' +
      'under "Install on a Raspberry Pi or Debian" (NodeSource\'s Debian repository), or from https://nodejs.org/',
  );
  for (const old of ['v18.19.0', '22.12.0', '22.17.99', '21.99.0', '0.12.18'])
    assert.match(nodeVersionProblem(old) ?? '', /needs Node 22\.18 or newer/, old);
  for (const fine of ['22.18.0', 'v22.18.0', '22.23.3', '23.0.0', '24.21.0', '26.10.0', '100.0.0'])
    assert.equal(nodeVersionProblem(fine), undefined, fine);
  assert.match(nodeVersionProblem('22.12.0', '22.12.1') ?? '', /needs Node 22\.12\.1 or newer; this is 22\.12\.0/);
  assert.equal(nodeVersionProblem('not a version'), undefined, 'an unreadable version is let try');
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  assert.match(readme, /^## Install on a Raspberry Pi or Debian$/m, 'the section the message names exists');
});

test('main.js on an old Node (when the machine has one) stops with the refusal, exit 1', async (t) => {
  const version = existsSync(OLD_NODE) ? execFileSync(OLD_NODE, ['--version'], { encoding: 'utf8' }).trim() : '';
  const { nodeVersionProblem } = await versionModule();
  if (!version || nodeVersionProblem(version) === undefined) {
    t.skip(`no Node older than the engines range at ${OLD_NODE} (${version || 'none'})`);
    return;
  }
  const result = await within(
    run([OLD_NODE, MAIN, '--version']),
    `exit of \`${OLD_NODE} main.js --version\` (${version})`,
  );
  assert.equal(result.code, 1, result.output);
  assert.equal(result.output, `${nodeVersionProblem(version)}\n`, 'the refusal alone, nothing else');
});

test('.npmrc makes npm refuse an unsupported Node (engine-strict)', () => {
  const npmrc = readFileSync(join(REPO_ROOT, '.npmrc'), 'utf8');
  assert.match(npmrc, /^engine-strict\s*=\s*true$/m);
});
