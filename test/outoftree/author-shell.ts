// Commands run as a plugin author runs them in a shell, for the out-of-tree tests
// (plugin-new.test.ts, walkthrough.test.ts).
import { execFile } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../helpers/server.js';

const exec = promisify(execFile);
const SQLITE_BINARY = join('node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node');

/**
 * The environment of a command run as the author would in a shell: without what `npm test`
 * (npm_* settings naming this repository) or node's test runner (NODE_TEST_CONTEXT, which
 * would make the plugin's own `node --test` report to this runner) put there.
 */
export function authorEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'NODE_TEST_CONTEXT'),
  );
}

/** Runs `command` in `cwd` with the author's environment; its stdout, or an error holding both outputs. */
export async function run(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await exec(command, args, { cwd, env: authorEnv(), maxBuffer: 16 << 20 });
    return stdout;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: err });
  }
}

/**
 * Lends the checkout's built SQLite driver to the package in `pkgDir`: installs skip install
 * scripts, which would fetch a prebuilt binary from the network (or build from source offline).
 */
export function lendSqliteBinary(pkgDir: string): void {
  cpSync(join(REPO_ROOT, SQLITE_BINARY), join(pkgDir, SQLITE_BINARY));
}
