/*
 * The real server as a child process (`node core/dist/src/main.js serve`), for behaviour that
 * needs the server process's own process-level handlers: in-process, node's test runner
 * would catch a stray exception first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { checked, registerServer, servedCheck } from '@heliograph/core/test/openapi-check';
import { linkPlugins } from '@heliograph/core/test/helpers/plugins';
import { basicAuth, MAIN, tempDir } from './server.js';

export { MAIN } from './server.js';
const PASSWORD = 'a-long-password';

export interface ChildServer {
  child: ChildProcess;
  /** The folder of data, plugin root and plugins.json: pass it as `dir` to start again on the same data. */
  dir: string;
  url: string;
  dataDir: string;
  exited: Promise<number | null>;
  stderr(): string;
  api(path: string, init?: RequestInit): Promise<Response>;
}

/**
 * Starts the server on 127.0.0.1:0 with the given plugins.json entries. `fixtures` are linked
 * into the plugin root's plugins/ folder (bundled), `external` into its node_modules/ (found
 * as third-party packages). `args` are added to `serve`'s flags, `env` to its environment;
 * `cwd` is its working directory.
 */
export async function startChildServer(options: {
  plugins: unknown[];
  fixtures?: string[];
  external?: string[];
  config?: Record<string, unknown>;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** A previous server's `dir`: starts again on its data (a restart). */
  dir?: string;
}): Promise<ChildServer> {
  const dir = options.dir ?? tempDir();
  const root = join(dir, 'root');
  mkdirSync(join(root, 'node_modules'), { recursive: true });
  linkPlugins(root, options);
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  if (options.config) writeFileSync(join(dataDir, 'config.json'), JSON.stringify(options.config));
  const pluginsFile = join(dir, 'plugins.json');
  writeFileSync(pluginsFile, JSON.stringify({ plugins: options.plugins }));
  const child = spawn(
    process.execPath,
    [
      MAIN,
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data',
      dataDir,
      '--plugins',
      pluginsFile,
      ...(options.args ?? []),
    ],
    {
      env: {
        ...process.env,
        HELIOGRAPH_LOG_LEVEL: 'warn',
        HELIOGRAPH_PASSWORD: PASSWORD,
        HELIOGRAPH_PLUGIN_ROOT: root,
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: options.cwd,
    },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening:\n${stderr}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
      if (match) resolve(match[1]!);
    });
  });
  const auth = basicAuth(PASSWORD);
  // Fetched at once, while the server surely runs; answers are checked against it.
  const served = servedCheck(url, auth);
  served.catch(() => undefined); // reported by the first answer checked against it
  const check = registerServer(url, () => served);
  return {
    child,
    dir,
    url,
    dataDir,
    exited,
    stderr: () => stderr,
    /** fetch with the password; the answer is checked as TestServer.api's is. */
    api: async (path, init = {}) => {
      const asked = { method: init.method ?? 'GET', url: url + path };
      const headers = { ...(init.headers as Record<string, string>), authorization: auth };
      return checked(check(), asked, await fetch(asked.url, { ...init, headers }));
    },
  };
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
