/*
 * Starting a plugin's process (sandboxed: sandbox.ts) and telling how it ended. A child
 * process rather than a worker thread: a native module (serialport, say) may only be entered from the thread that
 * loaded it and can abort or crash the whole process; in a process of its own that takes only
 * the plugin down. The memory limit is V8's heap limit of that process; the last lines the
 * process wrote to stderr say why it died when it could not say so itself.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { WorkerLimits } from '../../instances/worker-limits.js';
import type { Sandbox } from './sandbox.js';

/** Flags of `npm start` that keep a process small on a small device; plugin processes get them too. */
const MEMORY_FLAGS = /^--(max-semi-space-size|v8-pool-size)=/;

/** Kept of a plugin process's stderr, for the reason of a death it could not report. */
const STDERR_TAIL_BYTES = 4096;

/** A plugin's process died natively (a signal, V8's fatal error) before its setup finished. */
export class ProcessCrashError extends Error {
  override name = 'ProcessCrashError';
}

export interface ExitWatch {
  /** The last lines the process wrote to stderr (also passed on to the server's stderr). */
  stderrTail(): string;
  /** Whether an exit was a native death (a signal, V8's fatal error), not an exit of its own. */
  native(code: number | null, signal: NodeJS.Signals | null): boolean;
}

/** Forks `entry` with an IPC channel that carries structured-cloned messages. */
export function forkPluginProcess(
  entry: URL,
  options: { name: string; maxMemoryMb: number; sandbox: Sandbox },
): { child: ChildProcess; exit: ExitWatch } {
  const child = fork(fileURLToPath(entry), [options.name], {
    serialization: 'advanced',
    // The heap limit, the server's memory-saving V8 flags and the sandbox; its other flags
    // (a test runner's, an inspector's) are not the plugin's, nor is its environment.
    execArgv: [
      `--max-old-space-size=${options.maxMemoryMb}`,
      ...process.execArgv.filter((flag) => MEMORY_FLAGS.test(flag)),
      ...options.sandbox.execArgv,
    ],
    env: options.sandbox.env,
    cwd: options.sandbox.cwd,
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let tail = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
  });
  return {
    child,
    exit: {
      stderrTail: () => tail,
      native: (code, signal) => signal !== null || code === 134 || outOfMemory(tail),
    },
  };
}

function outOfMemory(stderr: string): boolean {
  return /heap out of memory|Reached heap limit/.test(stderr);
}

/** Why a plugin's process ended, for the instance's status. */
export function describeExit(
  code: number | null,
  signal: NodeJS.Signals | null,
  exit: ExitWatch,
  limits: WorkerLimits,
): string {
  const stderr = exit.stderrTail();
  if (outOfMemory(stderr)) {
    return `ran out of memory (its limit is ${limits.maxMemoryMb} MB; raise "worker": { "maxMemoryMb": ... } in plugins.json if it really needs more) and was terminated`;
  }
  const last = lastLine(stderr);
  const how = signal ? `was ended by ${signal}` : `exited with code ${code}`;
  return `crashed: its worker process ${how}${signal === 'SIGABRT' || signal === 'SIGSEGV' ? ' (a native crash)' : ''}${last ? `: ${last}` : ''}`;
}

/**
 * The last line the process wrote before it died, without the stacks Node prints when it
 * aborts (V8's "FATAL ERROR: ..." line, a native assertion's message; nothing after a bare
 * `process.abort()`).
 */
function lastLine(stderr: string): string {
  const stack = stderr.lastIndexOf('----- Native stack trace -----');
  const lines = (stack >= 0 ? stderr.slice(0, stack) : stderr)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !/^<---.*--->$/.test(line));
  return lines.at(-1)?.slice(0, 300) ?? '';
}
