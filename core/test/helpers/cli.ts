// The `heliograph` command as a user runs it: a real child process.
import { spawn } from 'node:child_process';
import { within } from './deadline.js';
import { MAIN } from './paths.js';

/**
 * Runs `heliograph <args>` with the environment plus `env`, `stdin` (if given) written to it
 * and closed; its stderr is kept, its exit awaited with a deadline that names the command.
 */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; stdin?: string } = {}) {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (options.stdin !== undefined) {
    // A command may end without reading what it was given (a refusal): not an error here.
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
    child.stdin.end(options.stdin);
  }
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    /** The exit code, awaited with a deadline from here on. */
    get exited() {
      return within(exit, `exit of \`heliograph ${args.join(' ')}\``, 60_000);
    },
    stderr: () => stderr,
  };
}
