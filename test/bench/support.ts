import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { MAIN, REPO_ROOT } from '@heliograph/core/test/helpers/paths';
import { serveArgs } from '../helpers/serve-command.js';
import { assignments, startScript } from '../install/unit-file.js';

export { MAIN, REPO_ROOT };
export { basicAuth } from '@heliograph/core/test/helpers/basic-auth';
/**
 * Node flags and environment of `npm start`, read from package.json's start script so the
 * benchmarks measure the service as it ships and cannot drift from it. BENCH_NODE_FLAGS
 * (space-separated, or "none") overrides the flags and BENCH_START_ENV ("NAME=value ...", or
 * "none") the environment, to measure the trade of a flag or an allocator setting in a paired run.
 */
const START = startScript(join(REPO_ROOT, 'package.json'));
export const NODE_FLAGS: string[] = overridden(process.env.BENCH_NODE_FLAGS, START.nodeFlags);
export const START_ENV: Record<string, string> = process.env.BENCH_START_ENV
  ? assignments(overridden(process.env.BENCH_START_ENV, []))
  : START.env;

/** npm start's environment as `NAME=value` words, for the benches' headers. */
export const START_ENV_TEXT = Object.entries(START_ENV)
  .map(([k, v]) => `${k}=${v}`)
  .join(' ');

/** How the benches run node, for their headers: the version, npm start's flags and its environment. */
export const SHIPPED_NODE = [`node ${process.version}`, ...NODE_FLAGS, START_ENV_TEXT].filter(Boolean).join(' ');

/** The environment of a node the benches start: theirs, npm start's on top, then `extra`. */
export function shippedEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...START_ENV, ...extra };
}

function overridden(override: string | undefined, shipped: string[]): string[] {
  if (override === undefined) return shipped;
  return override === 'none' ? [] : override.split(/\s+/).filter(Boolean);
}

/** `taskset` pins the service and its load to different cores, when the machine has it and two cores. */
const TASKSET = ['/usr/bin/taskset', '/bin/taskset'].find((path) => existsSync(path));
export const PINNED = TASKSET !== undefined && availableParallelism() >= 2;
export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

/** Every server a benchmark started: stopped when the benchmark exits, whatever way it does. */
const started = new Set<ChildProcess>();
export function ownChild<T extends ChildProcess>(child: T): T {
  started.add(child);
  child.once('exit', () => started.delete(child));
  return child;
}
process.once('exit', () => {
  for (const child of started) child.kill('SIGTERM');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

/**
 * Pins every thread of a running process to `core` (nothing without taskset). `taskset -a` lists
 * the threads, then pins each: a thread that ends in between fails the whole call ("failed to get
 * pid N's affinity: No such process"), so it is asked again.
 */
export function pinProcess(pid: number, core: number): void {
  if (!PINNED) return;
  for (let attempt = 1; ; attempt++) {
    const result = spawnSync(TASKSET!, ['-a', '-p', '-c', String(core), String(pid)], { encoding: 'utf8' });
    if (result.status === 0) return;
    if (attempt === 3)
      throw new Error(
        `taskset could not pin process ${pid} to core ${core}: ${result.stderr || result.error?.message}`,
      );
  }
}

/** The command line to spawn `argv` pinned to `core` (unpinned without taskset). */
export function pinned(core: number, argv: string[]): [string, string[]] {
  return PINNED ? [TASKSET!, ['-c', String(core), ...argv]] : [argv[0]!, argv.slice(1)];
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** ms from spawn to the "listening on" line. */
  listeningAfterMs: number;
  startedAt: number;
  stop(): Promise<void>;
}

/** Starts `heliograph serve` in a child process on a free port with a fresh data dir (or `data`). */
export async function startServerProcess(options: {
  plugins: unknown;
  /** Set at start (HELIOGRAPH_PASSWORD); without it, the one `data` already holds. */
  password?: string;
  env?: Record<string, string>;
  /** The data dir (default: a fresh one). */
  data?: string;
  /** Node flags (default: `npm start`'s). */
  nodeFlags?: string[];
  /** Extra node flags after those, e.g. --cpu-prof. */
  extraFlags?: string[];
  /** Runs the service under `nice -n <n>`: a lower priority than the load the benchmark makes. */
  nice?: number;
}): Promise<ServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'heliograph-bench-'));
  const pluginsFile = join(dir, 'plugins.json');
  writeFileSync(pluginsFile, JSON.stringify(options.plugins));
  const startedAt = performance.now();
  // Under `nice -n <n>` when asked: a lower priority than the load the benchmark makes.
  const niced = options.nice === undefined ? [] : ['nice', '-n', String(options.nice)];
  const [command, args] = pinned(SERVER_CORE, [
    ...niced,
    process.execPath,
    ...(options.nodeFlags ?? NODE_FLAGS),
    ...(options.extraFlags ?? []),
    MAIN,
    ...serveArgs({ data: options.data ?? join(dir, 'data'), plugins: pluginsFile }),
  ]);
  const child = ownChild(
    spawn(command, args, {
      env: shippedEnv({
        HELIOGRAPH_PASSWORD: options.password,
        HELIOGRAPH_LOG_LEVEL: 'warn',
        HELIOGRAPH_MDNS: '0',
        ...options.env,
      }),
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /^listening on (http:\/\/\S+)$/.exec(line);
      if (match) resolve(match[1]!);
    });
  });
  const listeningAfterMs = performance.now() - startedAt;
  return {
    child,
    url,
    listeningAfterMs,
    startedAt,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Resident set size of a process in bytes, from /proc. */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
  return kb * 1024;
}

/** CPU time (user + system) of a process in ms, from /proc (clock ticks of 10 ms). */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function row(label: string, value: string, target?: string): void {
  console.log(`${label.padEnd(44)} ${value.padStart(14)}${target ? `   (target ${target})` : ''}`);
}
