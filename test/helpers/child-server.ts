/*
 * The real server as a child process (`node core/dist/src/main.js serve`), for behaviour that
 * needs the server process's own process-level handlers (in-process, node's test runner
 * would catch a stray exception first), its log, a restart on the same port, or a kill.
 * In-process servers come from ./server.ts; both link their plugins with the same helper.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { linkPlugins } from '@heliograph/core/test/helpers/plugins';
import { checked, registerServer, servedCheck } from '@heliograph/core/test/helpers/openapi-check';
import { within } from './deadline.js';
import { serveArgs } from './serve-command.js';
import { basicAuth, MAIN, tempDir } from './server.js';

export { MAIN } from './server.js';
const PASSWORD = 'a-long-password';
/** Bound on a wait for the server's output (a start with the simulator's backfill included). */
const OUTPUT_DEADLINE_MS = 60_000;

export interface WatchedOutput {
  /** stdout and stderr so far, in the order they came. */
  output: () => string;
  /**
   * Resolves with the first match of `pattern` in the output from offset `from` on, now or
   * later; rejects when the process exits first or after the deadline, naming `what`.
   */
  waitFor: (pattern: RegExp, what?: string, from?: number) => Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/** Watches a child process's stdout and stderr for the lines a test waits for. */
export function watchOutput(child: ChildProcess, deadlineMs = OUTPUT_DEADLINE_MS): WatchedOutput {
  let output = '';
  let waiters: Array<{ pattern: RegExp; from: number; resolve: (m: RegExpMatchArray) => void }> = [];
  const check = () => {
    waiters = waiters.filter((w) => {
      const match = output.slice(w.from).match(w.pattern);
      if (match) w.resolve(match);
      return !match;
    });
  };
  const take = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    check();
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = (pattern: RegExp, what = String(pattern), from = 0) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${what} within ${deadlineMs / 1000} s; output:\n${output.slice(-4000)}`)),
        deadlineMs,
      );
      void exited.then((code) =>
        // After the output's last chunk: a line printed just before the exit still counts.
        setImmediate(() => {
          clearTimeout(timer);
          reject(new Error(`exited with ${code} before ${what}; output:\n${output.slice(-4000)}`));
        }),
      );
      waiters.push({ pattern, from, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      check();
    });
  return { output: () => output, waitFor, exited };
}

export interface ChildServer {
  /** The running process (a new one after `restart`). */
  readonly child: ChildProcess;
  /** The folder of data, plugin root and plugins.json: pass it as `dir` to start again on the same data. */
  dir: string;
  readonly url: string;
  readonly port: number;
  dataDir: string;
  pluginsFile: string;
  /** Resolves with the exit code of the running process; rejects, naming it, after the output deadline. */
  readonly exited: Promise<number | null>;
  /** Everything the service wrote to stdout and stderr, across restarts. */
  output: () => string;
  /** What it wrote to stderr. */
  stderr: () => string;
  /** See WatchedOutput.waitFor; `from` is an offset into output(). */
  waitFor: (pattern: RegExp, what?: string, from?: number) => Promise<RegExpMatchArray>;
  /** fetch with the password; the answer is checked against the served OpenAPI document. */
  api: (path: string, init?: RequestInit) => Promise<Response>;
  /** SIGTERM, then waits for the exit (60 s at most); nothing when it is not running. */
  stop: () => Promise<void>;
  /** Starts it again on the same port and data. */
  restart: () => Promise<void>;
}

export interface ChildServerOptions {
  plugins: unknown[];
  /** test/fixtures/plugins/<name> linked into the plugin root's plugins/ (found as bundled). */
  fixtures?: string[];
  /** This repository's plugins/<name> linked into the plugin root's plugins/. */
  bundled?: string[];
  /** test/fixtures/plugins/<name> linked into the root's node_modules/ (third-party packages). */
  external?: string[];
  /** No plugin root of its own: the checkout's plugins, as `npm start` finds them. */
  checkoutPlugins?: boolean;
  config?: Record<string, unknown>;
  /** The device password (HELIOGRAPH_PASSWORD); null: none yet, the first-run setup. */
  password?: string | null;
  /** Added to `serve`'s flags. */
  args?: string[];
  /** Added to its environment (HELIOGRAPH_LOG_LEVEL is warn unless given). */
  env?: Record<string, string>;
  cwd?: string;
  /** A previous server's `dir`: starts again on its data (a restart). */
  dir?: string;
}

/**
 * Starts the server on 127.0.0.1 (a free port) with the given plugins.json entries and
 * resolves once it prints the address it listens on.
 */
export async function startChildServer(options: ChildServerOptions): Promise<ChildServer> {
  const dir = options.dir ?? tempDir();
  const root = join(dir, 'root');
  if (!options.checkoutPlugins) {
    mkdirSync(join(root, 'node_modules'), { recursive: true });
    linkPlugins(root, options);
  }
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  if (options.config) writeFileSync(join(dataDir, 'config.json'), JSON.stringify(options.config));
  const pluginsFile = join(dir, 'plugins.json');
  writeFileSync(pluginsFile, JSON.stringify({ plugins: options.plugins }));
  const password = options.password === undefined ? PASSWORD : options.password;

  let port = 0;
  let output = '';
  let stderr = '';
  let running!: { child: ChildProcess; watched: WatchedOutput };
  const launch = async () => {
    const child = spawn(
      process.execPath,
      [MAIN, ...serveArgs({ port, data: dataDir, plugins: pluginsFile }), ...(options.args ?? [])],
      {
        env: {
          ...process.env,
          HELIOGRAPH_LOG_LEVEL: 'warn',
          HELIOGRAPH_PASSWORD: password ?? '',
          ...(options.checkoutPlugins ? {} : { HELIOGRAPH_PLUGIN_ROOT: root }),
          ...options.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        cwd: options.cwd,
      },
    );
    child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString('utf8');
      stderr += d.toString('utf8');
    });
    const watched = watchOutput(child);
    running = { child, watched };
    const listening = await watched.waitFor(
      /^listening on http:\/\/127\.0\.0\.1:(\d+)$/m,
      'listening (the "listening on" line)',
    );
    port = Number(listening[1]);
  };
  await launch();
  const url = `http://127.0.0.1:${port}`;
  const auth = password === null ? undefined : basicAuth(password);
  // Fetched at once, while the server surely runs; answers are checked against it. Without a
  // password (first-run setup) the document is not served to anyone.
  const served = auth
    ? servedCheck(url, auth)
    : Promise.reject(new Error('a server without a password serves no OpenAPI document to check against'));
  served.catch(() => undefined); // reported by the first answer checked against it
  const check = registerServer(url, () => served);
  const server: ChildServer = {
    get child() {
      return running.child;
    },
    dir,
    url,
    get port() {
      return port;
    },
    dataDir,
    pluginsFile,
    get exited() {
      return within(running.watched.exited, 'exit of `heliograph serve`', OUTPUT_DEADLINE_MS);
    },
    output: () => output,
    stderr: () => stderr,
    waitFor: (pattern, what, from = 0) => {
      // Offsets are into output(), earlier runs included: a wait for a later line passes the
      // length of output() before it.
      const offset = output.length - running.watched.output().length;
      const earlier = output.slice(from, Math.max(from, offset)).match(pattern);
      if (earlier) return Promise.resolve(earlier);
      return running.watched.waitFor(pattern, what, Math.max(0, from - offset));
    },
    api: async (path, init = {}) => {
      const asked = { method: init.method ?? 'GET', url: url + path };
      const headers = { ...(init.headers as Record<string, string>), ...(auth && { authorization: auth }) };
      return checked(check(), asked, await fetch(asked.url, { ...init, headers }));
    },
    stop: async () => {
      const { child, watched } = running;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await within(watched.exited, 'exit of `heliograph serve` after SIGTERM', OUTPUT_DEADLINE_MS);
    },
    restart: launch,
  };
  return server;
}

/**
 * Asks `probe` until it returns a value (not undefined), at most `attempts` times, 20 ms
 * apart: the state of another process can only be watched from outside.
 */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, attempts = 500): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}
