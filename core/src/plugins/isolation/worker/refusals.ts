/*
 * Inside a plugin's sandboxed process: hears each refusal of Node's permission model
 * (ERR_ACCESS_DENIED) so the host can log and audit it, even when the plugin catches it.
 * Node enforces the sandbox; this only reports. The public functions of `fs`,
 * `fs/promises`, `child_process`, `worker_threads.Worker` and `process.dlopen` are wrapped
 * before the plugin is imported (and the ES module bindings of the built-in modules synced),
 * so a refusal thrown, rejected or passed to a callback is seen. A plugin that reaches
 * Node's internals some other way is still refused, only not reported.
 */
import childProcess from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import workerThreads from 'node:worker_threads';

/** One refusal, as the host hears it. */
export interface Refusal {
  /** Node's permission scope: `FileSystemRead`, `FileSystemWrite`, `ChildProcess`, `WorkerThreads`, `Addon`. */
  permission: string;
  /** The path (or command) refused, when Node names it. */
  resource: string;
  /** The function the plugin called (`fs.readFileSync`). */
  api: string;
}

type AnyFn = (...args: unknown[]) => unknown;

/** Wraps the built-in modules; `report` is called once per refused call. */
export function reportRefusals(report: (refusal: Refusal) => void): void {
  const seen = new WeakSet<object>();
  /** Wrapped calls under way: one inside another (readFileSync's openSync) is the outer one's. */
  let depth = 0;
  const check = (api: string, err: unknown) => {
    const e = err as { code?: unknown; permission?: unknown; resource?: unknown } | null;
    if (depth > 0 || !e || typeof e !== 'object' || seen.has(e)) return;
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    let permission: string;
    // A native addon refused says so with a code of its own and no permission field.
    if (e.code === 'ERR_DLOPEN_DISABLED') permission = 'Addon';
    else if (e.code === 'ERR_ACCESS_DENIED') permission = text(e.permission) || 'unknown';
    else return;
    seen.add(e);
    report({ api, permission, resource: text(e.resource) });
  };
  const wrap = (api: string, fn: AnyFn): AnyFn => {
    const wrapped = function (this: unknown, ...args: unknown[]) {
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        args[last] = function (this: unknown, err: unknown, ...rest: unknown[]) {
          check(api, err);
          return (callback as AnyFn).call(this, err, ...rest);
        };
      }
      let result: unknown;
      depth += 1;
      try {
        result = fn.apply(this, args);
      } catch (err) {
        depth -= 1;
        check(api, err);
        throw err;
      }
      depth -= 1;
      if (result instanceof Promise) result.catch((err: unknown) => check(api, err));
      return result;
    };
    // `realpathSync.native`, `promisify.custom` and the like stay where callers look for them.
    for (const key of Reflect.ownKeys(fn)) {
      if (key === 'length' || key === 'name' || key === 'prototype') continue;
      Object.defineProperty(wrapped, key, Object.getOwnPropertyDescriptor(fn, key)!);
    }
    return wrapped;
  };
  const wrapAll = (prefix: string, target: Record<string, unknown>) => {
    for (const name of Object.keys(target)) {
      const value = target[name];
      // Classes (fs.Stats, fs.ReadStream) start upper-case; leave them alone.
      if (typeof value !== 'function' || !/^[a-z]/.test(name)) continue;
      target[name] = wrap(`${prefix}.${name}`, value as AnyFn);
    }
  };
  wrapAll('fs', fs);
  wrapAll('fs.promises', fs.promises);
  wrapAll('child_process', childProcess);
  const Worker = workerThreads.Worker;
  (workerThreads as { Worker: unknown }).Worker = class extends Worker {
    constructor(...args: ConstructorParameters<typeof Worker>) {
      try {
        super(...args);
      } catch (err) {
        check('worker_threads.Worker', err);
        throw err;
      }
    }
  };
  process.dlopen = wrap('process.dlopen', process.dlopen.bind(process) as AnyFn);
  syncBuiltinESMExports();
}
