/*
 * The `heliograph` command as an administrator runs it: a real child process, started from
 * the checkout's build or from an installed `bin`, with its output watched line by line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { watchOutput } from '../helpers/child-server.js';
import { within } from '../helpers/deadline.js';
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

/** Runs a command to its end. */
export async function run(
  command: string[],
  options: { env?: Record<string, string>; stdin?: string; cwd?: string; deadlineMs?: number } = {},
): Promise<{ code: number | null; output: string }> {
  const child = spawn(command[0]!, command.slice(1), {
    env: { ...process.env, HELIOGRAPH_MDNS: '0', ...options.env },
    // Without input the command reads /dev/null: a pipe closed by a command that ends
    // before it reads would fail the test with EPIPE.
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    cwd: options.cwd,
  });
  if (options.stdin !== undefined) {
    // A command may end without reading what it was given; that is its answer, not ours.
    child.stdin!.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
    child.stdin!.end(options.stdin);
  }
  const watched = watchOutput(child, DEADLINE_MS);
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
  const watched = watchOutput(child, DEADLINE_MS);
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
      return within(watched.exited, 'exit of the service after SIGTERM', DEADLINE_MS);
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
