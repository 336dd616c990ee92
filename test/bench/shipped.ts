// What every benchmark shares beyond starting the service (support.ts): a read token made
// through the API, the load generator in its own pinned process, and the anchors measured
// in the same run: a bare node:http server serving the same bytes (JSON built per request,
// and one cached Buffer: the ceiling).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { basicAuth, cpuMsOf, LOAD_CORE, NODE_FLAGS, ownChild, pinned, SERVER_CORE, shippedEnv } from './support.js';

/** Headers of the two kinds of client: the admin password (Basic) and a read token (Bearer). */
export interface Clients {
  basic: Record<string, string>;
  token: Record<string, string>;
}

/** Makes a read-scope token through POST /api/v1/tokens, as an integration would get one. */
export async function makeClients(baseUrl: string, password: string): Promise<Clients> {
  const basic = { authorization: basicAuth(password) };
  const res = await fetch(`${baseUrl}/api/v1/tokens`, {
    method: 'POST',
    headers: { ...basic, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `bench-${process.pid}-${Date.now()}`, scope: 'read' }),
  });
  if (res.status !== 201) throw new Error(`POST /api/v1/tokens: ${res.status} ${await res.text()}`);
  const { token } = (await res.json()) as { token: string };
  return { basic, token: { authorization: `Bearer ${token}` } };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  bytesPerRequest: number;
}

/** Runs autocannon in a child process on the load core; fails on any non-2xx answer or error. */
export async function load(
  url: string,
  headers: Record<string, string>,
  durationS: number,
  connections = 10,
): Promise<LoadResult> {
  const worker = fileURLToPath(new URL('./load-worker.js', import.meta.url));
  const [command, args] = pinned(LOAD_CORE, [
    process.execPath,
    worker,
    JSON.stringify({ url, headers, duration: durationS, connections }),
  ]);
  const child = ownChild(spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] }));
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`load generator exited with ${code}`);
  const result = JSON.parse(out) as LoadResult & { non2xx: number; errors: number };
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result;
}

export interface Anchor {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/**
 * A bare node:http server (bare-server.ts) on the server core answering every path with
 * `body`: `json` builds it with JSON.stringify per request, `cached` sends one Buffer.
 */
export async function startBare(body: unknown, mode: 'json' | 'cached'): Promise<Anchor> {
  const file = join(mkdtempSync(join(tmpdir(), 'heliograph-bench-')), 'body.json');
  writeFileSync(file, JSON.stringify(body));
  return startAnchor('bare server', 'bare-server.js', [file, mode]);
}

/**
 * The packages the service's design names, each used once, in a process of their own
 * (packages-floor.ts): the floor under the service's memory.
 */
export function startPackagesFloor(): Promise<Anchor> {
  return startAnchor('packages floor', 'packages-floor.js', []);
}

/**
 * One of the anchors' scripts (next to this file) on the server core, with the same node
 * flags and C allocator settings as the service, so the two differ in their code only;
 * resolves once it listens.
 */
async function startAnchor(what: string, script: string, args: string[]): Promise<Anchor> {
  const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const [command, argv] = pinned(SERVER_CORE, [process.execPath, ...NODE_FLAGS, path, ...args]);
  const child = ownChild(spawn(command, argv, { env: shippedEnv(), stdio: ['ignore', 'pipe', 'inherit'] }));
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /^listening on (\S+)$/.exec(line);
      if (match) resolve(match[1]!);
    });
  });
  return {
    child,
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** One row of the table `npm run bench:all` prints, as a line the runner picks up. */
export interface TableRow {
  figure: string;
  value: string;
  anchor: string;
  target: string;
  met?: boolean;
}

export function tableRow(r: TableRow): void {
  console.log(`TABLE ${JSON.stringify(r)}`);
}

/**
 * A simulated site for benches that need live topics through `serve`: `inverters` inverters
 * and `batteries` batteries polled once a second (8 and 2 give about 120 topics with totals
 * and the demo forecast, the snapshot bench's site).
 */
export function simulatorSite(inverters = 8, batteries = 2, backfillDays?: number): { plugins: unknown[] } {
  const devices = [
    ...Array.from({ length: inverters }, (_, i) => `inverter_${i + 1}`),
    ...Array.from({ length: batteries }, (_, i) => `battery_${i + 1}`),
  ];
  const config = { pollIntervalMs: 1000, ...(backfillDays === undefined ? {} : { backfill_days: backfillDays }) };
  return { plugins: [{ id: 'sim', plugin: 'simulator', devices, config }] };
}

/** The load average of the machine, to print beside figures taken while other work runs. */
export function loadAverage(): string {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
}

/**
 * A bare node:http server (bare-static.ts) on the server core serving the files of `dir`
 * (the built page), with the same node flags as the service: the page benchmark's anchor.
 */
export function startBareStatic(dir: string): Promise<Anchor> {
  return startAnchor('bare static server', 'bare-static.js', [dir]);
}

/**
 * Resolves once the process `pid` has used less than `percent` % of a core over each of
 * `windows` consecutive seconds (its start-up work, a backfill, done); fails after
 * `deadlineS` seconds, saying so.
 */
export async function waitForQuiet(pid: number, percent = 10, windows = 2, deadlineS = 180): Promise<void> {
  const deadline = Date.now() + deadlineS * 1000;
  let quiet = 0;
  while (quiet < windows) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still busy after ${deadlineS} s`);
    const before = cpuMsOf(pid);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    quiet = (cpuMsOf(pid) - before) / 10 < percent ? quiet + 1 : 0;
  }
}
