import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const MAIN = join(REPO_ROOT, 'core', 'dist', 'src', 'main.js');
/** Node flags of `npm start` (package.json), so the benchmark measures the service as it runs. */
export const NODE_FLAGS = ['--max-semi-space-size=1', '--v8-pool-size=0'];

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** ms from spawn to the "listening on" line. */
  listeningAfterMs: number;
  startedAt: number;
  stop(): Promise<void>;
}

/** Starts `heliograph serve` in a child process on a free port with a fresh data dir. */
export async function startServerProcess(options: {
  plugins: unknown;
  password: string;
  env?: Record<string, string>;
  /** Runs the service under `nice -n <n>`: a lower priority than the load the benchmark makes. */
  nice?: number;
}): Promise<ServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'heliograph-bench-'));
  const pluginsFile = join(dir, 'plugins.json');
  writeFileSync(pluginsFile, JSON.stringify(options.plugins));
  const startedAt = performance.now();
  const niced = options.nice === undefined ? [] : ['-n', String(options.nice), process.execPath];
  const child = spawn(
    options.nice === undefined ? process.execPath : 'nice',
    [
      ...niced,
      ...NODE_FLAGS,
      MAIN,
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data',
      join(dir, 'data'),
      '--plugins',
      pluginsFile,
    ],
    {
      env: {
        ...process.env,
        HELIOGRAPH_PASSWORD: options.password,
        HELIOGRAPH_LOG_LEVEL: 'warn',
        HELIOGRAPH_MDNS: '0',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
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

export function basicAuth(password: string): string {
  return 'Basic ' + Buffer.from(`admin:${password}`).toString('base64');
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function row(label: string, value: string, target?: string): void {
  console.log(`${label.padEnd(44)} ${value.padStart(14)}${target ? `   (target ${target})` : ''}`);
}
