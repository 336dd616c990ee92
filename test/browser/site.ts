import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { basicAuth, MAIN } from '../helpers/server.js';

export const PASSWORD = 'correct horse battery';

/** The simulated site the page is tried on: two inverters and a battery, two days backfilled. */
export const SIMULATOR = {
  id: 'sim',
  plugin: 'simulator',
  devices: ['inverter_1', 'inverter_2', 'battery_1'],
  config: { backfill_days: 2, pollIntervalMs: 1000 },
};

export interface Site {
  url: string;
  port: number;
  dataDir: string;
  pluginsFile: string;
  /** Everything the service wrote to stdout and stderr so far. */
  log(): string;
  /** Resolves with the first match of `pattern` in the service's output, now or later. */
  waitForLog(pattern: RegExp, from?: number): Promise<RegExpMatchArray>;
  /** Stops the service (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  restart(): Promise<void>;
}

/**
 * The real service as users run it (`heliograph serve`) in a child process on 127.0.0.1
 * with a temp data directory, so a test can stop it, start it again on the same port, and
 * read its log (the setup code is printed there).
 */
export async function startSite(options: { password?: string | null; plugins?: unknown[] } = {}): Promise<Site> {
  const dir = mkdtempSync(join(tmpdir(), 'heliograph-page-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  const pluginsFile = join(dir, 'plugins.json');
  writeFileSync(pluginsFile, JSON.stringify({ plugins: options.plugins ?? [SIMULATOR] }));
  const password = options.password === undefined ? PASSWORD : options.password;

  let child: ChildProcess | null = null;
  let output = '';
  let waiters: Array<{ pattern: RegExp; from: number; resolve: (m: RegExpMatchArray) => void }> = [];
  const check = () => {
    waiters = waiters.filter((w) => {
      const match = output.slice(w.from).match(w.pattern);
      if (match) w.resolve(match);
      return !match;
    });
  };
  // Bounded: a line that never comes fails the test with the log, instead of hanging it.
  const waitForLog = (pattern: RegExp, from = 0) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the service did not print ${pattern} within 60 s:\n${output.slice(-4000)}`)),
        60_000,
      );
      waiters.push({ pattern, from, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      check();
      child?.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the service exited (${code}) before printing ${pattern}:\n${output.slice(-4000)}`));
      });
    });

  let port = 0;
  const launch = async () => {
    const from = output.length;
    child = spawn(
      process.execPath,
      [MAIN, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', dataDir, '--plugins', pluginsFile],
      {
        env: {
          ...process.env,
          HELIOGRAPH_LOG_LEVEL: 'info',
          HELIOGRAPH_MDNS: '0',
          HELIOGRAPH_PASSWORD: password ?? '',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const take = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      check();
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    const listening = await waitForLog(/listening on http:\/\/127\.0\.0\.1:(\d+)/, from);
    port = Number(listening[1]);
  };
  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  after(stop);
  await launch();
  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    dataDir,
    pluginsFile,
    log: () => output,
    waitForLog,
    stop,
    restart: launch,
  };
}

/** `Basic` credentials for fetch calls of the test itself. */
export function basic(password = PASSWORD): string {
  return basicAuth(password);
}
