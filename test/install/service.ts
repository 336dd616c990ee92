/*
 * The `heliograph` command as an administrator runs it: a real child process, started from
 * the checkout's build or from an installed `bin`, with its output watched line by line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { basicAuth } from '../helpers/server.js';

export { MAIN } from '../helpers/server.js';
export const PASSWORD = 'a-long-password';

/** Bound on anything a healthy command does in seconds (the simulator's backfill included). */
const DEADLINE_MS = 90_000;

export interface Service {
  child: ChildProcess;
  url: string;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output, now or later; fails after the deadline. */
  waitFor(pattern: RegExp, what: string): Promise<RegExpMatchArray>;
  /** fetch with the password. */
  api(path: string, init?: RequestInit): Promise<Response>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

function watch(child: ChildProcess) {
  let output = '';
  let waiters: Array<{ pattern: RegExp; resolve: (m: RegExpMatchArray) => void }> = [];
  const check = () => {
    waiters = waiters.filter((w) => {
      const match = output.match(w.pattern);
      if (match) w.resolve(match);
      return !match;
    });
  };
  child.stdout?.on('data', (d) => ((output += d), check()));
  child.stderr?.on('data', (d) => ((output += d), check()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = (pattern: RegExp, what: string) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`gave up after ${DEADLINE_MS} ms waiting for ${what}; output:\n${output}`)),
        DEADLINE_MS,
      );
      void exited.then((code) =>
        setImmediate(() => reject(new Error(`exited with ${code} while waiting for ${what}; output:\n${output}`))),
      );
      waiters.push({
        pattern,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
      check();
    });
  return { output: () => output, waitFor, exited };
}

/** Runs a command to its end. */
export async function run(
  command: string[],
  options: { env?: Record<string, string>; stdin?: string; cwd?: string; deadlineMs?: number } = {},
): Promise<{ code: number | null; output: string }> {
  const child = spawn(command[0]!, command.slice(1), {
    env: { ...process.env, HELIOGRAPH_MDNS: '0', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    cwd: options.cwd,
  });
  child.stdin.end(options.stdin ?? '');
  const watched = watch(child);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.deadlineMs ?? DEADLINE_MS);
  const code = await watched.exited;
  clearTimeout(timer);
  return { code, output: watched.output() };
}

/** Starts `serve` (the command given up to its flags) on 127.0.0.1:0 and waits until it answers. */
export async function startService(
  command: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<Service> {
  const child = spawn(command[0]!, [...command.slice(1), '--host', '127.0.0.1', '--port', '0'], {
    env: {
      ...process.env,
      HELIOGRAPH_MDNS: '0',
      HELIOGRAPH_LOG_LEVEL: 'info',
      HELIOGRAPH_PASSWORD: PASSWORD,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: options.cwd,
  });
  const watched = watch(child);
  const url = (await watched.waitFor(/^listening on (http:\/\/127\.0\.0\.1:\d+)$/m, 'the "listening on" line'))[1]!;
  const authorization = basicAuth(PASSWORD);
  return {
    child,
    url,
    output: watched.output,
    waitFor: watched.waitFor,
    api: (path, init = {}) =>
      fetch(url + path, { ...init, headers: { authorization, ...(init.headers as Record<string, string>) } }),
    stop: async () => {
      child.kill('SIGTERM');
      return watched.exited;
    },
  };
}

/**
 * What a backup must keep, as the API shows it: the site id, the history of the three days
 * before `before` (hourly), the token names, and whether `token` still signs in.
 */
export async function siteSnapshot(service: Service, token: string, before: number) {
  const system = (await (await service.api('/api/v1/system')).json()) as Array<{ topic: string; value: unknown }>;
  const from = new Date(before - 3 * 86_400_000).toISOString();
  const to = new Date(before - 3_600_000).toISOString();
  const { points } = (await (
    await service.api(`/api/v1/history?topic=inverter_1/pv_power&group_by=1h&from=${from}&to=${to}`)
  ).json()) as { points: unknown[] };
  const tokens = ((await (await service.api('/api/v1/tokens')).json()) as Array<{ name: string }>).map((t) => t.name);
  const byToken = await fetch(`${service.url}/api/v1/metrics?topic=system/site_id`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    siteId: system.find((r) => r.topic === 'system/site_id')?.value,
    points,
    tokens,
    tokenStatus: byToken.status,
  };
}

/** Creates a read token named `name`; its secret. */
export async function createToken(service: Service, name: string): Promise<string> {
  const res = await service.api('/api/v1/tokens', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, scope: 'read' }),
  });
  if (res.status !== 201) throw new Error(`POST /api/v1/tokens answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}
