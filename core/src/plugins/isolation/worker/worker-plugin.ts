/*
 * The host side of a plugin instance that runs in a worker process of its own (a child
 * process, as Homebridge's child bridges are). It starts the process, serves its context
 * calls against the instance's host-side context (so topics, jobs, writes and status behave
 * exactly as for in-process plugins), and watches it: a process that throws, runs out of
 * memory, stops answering pings or dies natively (an abort in a native module, a segfault)
 * is gone, reported as crashed, and the host restarts it with back-off. One that dies
 * natively before its setup finished is refused for good (`ProcessCrashError`): the host
 * disables the instance with the reason instead of starting it again. The server is never
 * at risk: nothing of the plugin runs in its process.
 */
import { type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Cleanup, Disposer, PluginContext } from '@heliograph/plugins-sdk';
import { errorMessage } from '../../../log.js';
import type { HttpLimits } from '../../instances/http-limits.js';
import type { WorkerLimits } from '../../instances/worker-limits.js';
import type { z } from 'zod';
import { CTX_METHODS, ctxFunction, withCallbacks } from '../../context/methods.js';
import { ProcessCrashError, forkPluginProcess, describeExit, type ExitWatch } from './child.js';
import type { Refusal } from './refusals.js';
import type { Sandbox } from './sandbox.js';
import {
  batchSchema,
  errorFromFields,
  fromWorkerSchema,
  type FromWorker,
  type ToWorker,
  type WorkerStart,
} from './protocol.js';

export { ProcessCrashError };

const ENTRY = new URL('./entry.js', import.meta.url);
/**
 * How long a stopping worker may take for its cleanup before it is killed: as long as the
 * host gives an in-process plugin's (a driver may be putting a battery back to Normal).
 */
const STOP_GRACE_MS = 8_000;
/**
 * The least silence tolerated while the worker loads its modules and runs setup: compiling
 * a plugin's dependencies blocks its event loop for a while on a small machine.
 */
const SETUP_WATCHDOG_MS = 10_000;
/**
 * The watchdog counts the CPU time the plugin's process used while it did not answer, not
 * the wall clock: on a loaded machine a healthy process waits for a core, and is not killed
 * for it. A process silent this many times its limit without using the CPU (stuck in a
 * blocking wait) is ended all the same.
 */
const SILENT_WALL_FACTOR = 6;

export interface WorkerPluginOptions {
  /** The instance's host-side context; every call of the worker lands on it. */
  ctx: PluginContext;
  /** Absolute path of the plugin's module. */
  entry: string;
  /** The instance's config as plugins.json holds it; the worker parses it. */
  config: unknown;
  http: HttpLimits;
  limits: WorkerLimits;
  /** Its process's sandbox (sandbox.ts). */
  sandbox: Sandbox;
  /** The sandbox refused one of its calls: logged and audited by the host. */
  refused(refusal: Refusal): void;
  /** The hosts its grants let ctx.http reach (checked in its process); undefined: any. */
  hosts?: readonly string[];
  /** ctx.http in the process was refused a host. */
  hostRefused?(host: string, message: string): void;
  /** The worker failed after its setup: threw, ran out of memory, stopped answering. */
  crashed(message: string): void;
  /** An outbound request of the plugin timed out. */
  timedOut(message: string): void;
}

/**
 * Starts the plugin in a worker process. Resolves, once its setup succeeded, with the disposer
 * that stops the process; rejects with the setup's error (the process is then gone).
 */
export function setupInWorker(options: WorkerPluginOptions): Promise<Cleanup> {
  return new WorkerPlugin(options).started;
}

class WorkerPlugin {
  readonly started: Promise<Cleanup>;
  private readonly worker: ChildProcess;
  private readonly exit: ExitWatch;
  /** A crash the process reported just before it exited. */
  private crashReport: string | undefined;
  private readonly registrations = new Map<number, Disposer>();
  private readonly pending = new Map<number, { resolve(): void; reject(error: Error): void }>();
  private nextCall = 0;
  /** `stopping`: its cleanup runs and may still call the context; then `ended`. */
  private phase: 'setup' | 'running' | 'stopping' | 'ended' = 'setup';
  private lastPong = performance.now();
  /** CPU time of the process at the last pong, when the system tells it (Linux's /proc). */
  private cpuAtPong: number | undefined;
  private readonly watchdog: NodeJS.Timeout;
  private settle!: { resolve(cleanup: Cleanup): void; reject(error: Error): void };
  /** Resolves once a stopping worker's process has gone. */
  private gone: Promise<void> | undefined;

  constructor(private readonly options: WorkerPluginOptions) {
    this.started = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    const { ctx } = options;
    const start: WorkerStart = {
      entry: options.entry,
      instanceId: ctx.instanceId,
      devices: ctx.devices.map((d) => ({ ...d })),
      site: {
        timeZone: ctx.site.timeZone,
        latitude: ctx.site.latitude,
        longitude: ctx.site.longitude,
        temperatureUnit: ctx.site.temperatureUnit,
      },
      config: options.config,
      http: options.http,
      ...(options.hosts && { hosts: [...options.hosts] }),
    };
    ({ child: this.worker, exit: this.exit } = forkPluginProcess(ENTRY, {
      name: `plugin:${ctx.instanceId}`,
      maxMemoryMb: options.limits.maxMemoryMb,
      sandbox: options.sandbox,
    }));
    this.cpuAtPong = cpuMsOf(this.worker.pid);
    this.worker.on('message', (message: unknown) => this.receive(message));
    this.worker.on('error', (err) => this.end(`crashed: its process could not run: ${err.message}`));
    // 'close', not 'exit': the last of its stderr ("Reached heap limit") is read by then.
    this.worker.on('close', (code, signal) => this.exited(code, signal));
    this.send({ type: 'start', start });
    this.watchdog = setInterval(() => this.checkAlive(), Math.max(25, options.limits.watchdogMs / 4));
    this.watchdog.unref();
    // Stopped (shutdown, new config) while setup still runs: nobody waits for it any more.
    ctx.signal.addEventListener('abort', () => void this.stop(), { once: true });
  }

  private checkAlive(): void {
    if (this.phase === 'stopping') return;
    const silentMs = performance.now() - this.lastPong;
    const limit =
      this.phase === 'setup'
        ? Math.max(SETUP_WATCHDOG_MS, this.options.limits.watchdogMs)
        : this.options.limits.watchdogMs;
    if (silentMs > limit) {
      const cpu = cpuMsOf(this.worker.pid);
      const busyMs = cpu === undefined || this.cpuAtPong === undefined ? silentMs : cpu - this.cpuAtPong;
      if (busyMs > limit || silentMs > limit * SILENT_WALL_FACTOR) {
        this.end(`its worker did not answer for ${Math.round(silentMs)} ms (a busy loop?) and was terminated`);
        return;
      }
    }
    this.send({ type: 'ping' });
  }

  private ponged(): void {
    this.lastPong = performance.now();
    this.cpuAtPong = cpuMsOf(this.worker.pid);
  }

  /** A message, or a batch of them applied in order in this one synchronous run (one tick). */
  private receive(raw: unknown): void {
    const batch = batchSchema.safeParse(raw);
    for (const one of batch.success ? batch.data.messages : [raw]) {
      const parsed = fromWorkerSchema.safeParse(one);
      const args = parsed.success && parsed.data.type === 'ctx' ? ctxArguments(parsed.data) : undefined;
      const problem = !parsed.success ? parsed.error : args?.success === false ? args.error : undefined;
      if (!parsed.success || problem) {
        this.end(
          `its worker sent a message the host does not understand (${problem?.issues[0]?.message ?? 'invalid'}) and was terminated`,
        );
        return;
      }
      const message = parsed.data;
      try {
        if (message.type === 'ctx') this.dispatch(message, args!.data!);
        else this.handle(message);
      } catch (err) {
        // What the host-side context refused (a bad declaration, say) fails the plugin.
        this.end(`${message.type === 'ctx' ? message.method : message.type} failed: ${errorMessage(err)}`);
        return;
      }
    }
  }

  private handle(message: Exclude<FromWorker, { type: 'ctx' }>): void {
    const { ctx } = this.options;
    switch (message.type) {
      case 'pong':
        return this.ponged();
      case 'denied':
        return this.options.refused({ permission: message.permission, resource: message.resource, api: message.api });
      case 'crashed':
        this.crashReport = `crashed: ${message.error ?? 'an unknown error'}`;
        return;
      case 'setup-done':
        if (this.phase !== 'setup') return;
        if (message.ok) {
          this.phase = 'running';
          this.lastPong = performance.now();
          this.settle.resolve(() => this.stop());
        } else if (message.errorName === 'ConfigError') {
          // Not a crash: the host fails the instance once with the message, no retry.
          const phase = this.phase;
          this.finish();
          this.kill();
          if (phase === 'setup') this.settle.reject(errorFromFields(message));
        } else this.end(message.error ?? 'setup failed');
        return;
      case 'log':
        ctx.log[message.level](message.message, message.fields);
        return;
      case 'dispose':
        this.registrations.get(message.id)?.();
        this.registrations.delete(message.id);
        return;
      case 'http-timeout':
        return this.options.timedOut(message.message);
      case 'http-refused':
        return this.options.hostRefused?.(message.host, message.message);
      case 'reply': {
        const waiting = this.pending.get(message.call);
        this.pending.delete(message.call);
        if (message.ok) waiting?.resolve();
        else waiting?.reject(errorFromFields(message));
        return;
      }
    }
  }

  /**
   * A method of the context the worker forwarded (see context/methods.ts), applied to the
   * instance's host-side context: an event at once, a call answered with its outcome, a
   * registration with each function id replaced by one that calls the worker's function.
   */
  private dispatch(message: Extract<FromWorker, { type: 'ctx' }>, args: unknown[]): void {
    const { kind } = CTX_METHODS[message.method];
    if (kind === 'register') {
      if (message.id === undefined) throw new Error('a registration without an id');
      const withFunctions = withCallbacks(message.method, args, (held, _holder, callback) =>
        callback.kind === 'call'
          ? (...a: unknown[]) => this.call(held as number, a.map(withoutSignal))
          : (...a: unknown[]) => this.send({ type: 'callback', id: held as number, args: a.map(withoutSignal) }),
      );
      const dispose = ctxFunction(this.options.ctx, message.method)(...withFunctions) as Disposer;
      this.registrations.set(message.id, dispose);
      return;
    }
    const result = ctxFunction(this.options.ctx, message.method)(...args);
    if (kind === 'call' && message.call !== undefined) this.answer(message.call, Promise.resolve(result));
  }

  /** Runs a function held in the worker (a job, a write handler); settles with its outcome. */
  private call(id: number, args: unknown[]): Promise<void> {
    if (this.phase === 'ended') return Promise.reject(new Error("the plugin's worker has ended"));
    const call = this.nextCall++;
    return new Promise((resolve, reject) => {
      this.pending.set(call, { resolve, reject });
      this.send({ type: 'call', call, id, args });
    });
  }

  private answer(call: number, result: Promise<unknown>): void {
    result.then(
      (value) => this.send({ type: 'reply', call, ok: true, value }),
      (err: unknown) => {
        const code = (err as { code?: unknown } | null)?.code;
        this.send({
          type: 'reply',
          call,
          ok: false,
          error: errorMessage(err),
          code: typeof code === 'string' ? code : undefined,
        });
      },
    );
  }

  private send(message: ToWorker): void {
    // The callback keeps a send to a process that just died from throwing ERR_IPC_CHANNEL_CLOSED.
    if (this.phase !== 'ended' && this.worker.connected) this.worker.send(message, undefined, {}, () => undefined);
  }

  private kill(): void {
    if (this.worker.exitCode === null && this.worker.signalCode === null) this.worker.kill('SIGKILL');
  }

  /**
   * The process ended on its own. Before setup finished, a native death (a signal, V8's
   * fatal error) refuses the instance for good; an exception is an ordinary failed setup.
   */
  private exited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.phase === 'ended') return;
    if (this.phase === 'stopping') return this.finish();
    const reason = this.crashReport ?? describeExit(code, signal, this.exit, this.options.limits);
    if (this.phase === 'setup' && !this.crashReport && this.exit.native(code, signal)) {
      this.finish();
      this.settle.reject(new ProcessCrashError(reason));
      return;
    }
    this.end(reason);
  }

  /**
   * Asks the worker to run its cleanup and exit, serving its context calls meanwhile (an
   * async cleanup may write through `ctx.site`); terminates it if it does not in time.
   * Resolves once the process has gone.
   */
  private stop(): Promise<void> {
    if (this.phase === 'ended') return Promise.resolve();
    if (this.gone) return this.gone;
    this.send({ type: 'stop' });
    // Stopped while its setup ran: nobody is waiting for that setup any more.
    if (this.phase === 'setup') this.settle.reject(new Error('stopped while starting'));
    this.phase = 'stopping';
    this.gone = new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.kill(), STOP_GRACE_MS);
      this.worker.once('close', () => {
        clearTimeout(timer);
        this.finish();
        resolve();
      });
    });
    return this.gone;
  }

  /** The worker failed: it goes, and setup's caller or the host hears why. */
  private end(message: string): void {
    if (this.phase === 'ended') return;
    const wasSetup = this.phase === 'setup';
    this.finish();
    this.kill();
    if (wasSetup) this.settle.reject(new Error(message));
    else this.options.crashed(message);
  }

  private finish(): void {
    this.phase = 'ended';
    clearInterval(this.watchdog);
    for (const waiting of this.pending.values()) waiting.reject(new Error("the plugin's worker has ended"));
    this.pending.clear();
  }
}

/** A forwarded method's arguments, checked against its schema in context/methods.ts. */
function ctxArguments(message: Extract<FromWorker, { type: 'ctx' }>) {
  return (CTX_METHODS[message.method].args as z.ZodType<unknown[]>).safeParse(message.args);
}

/** A callback's argument as it crosses to the worker: without its AbortSignal, which does not clone. */
function withoutSignal(arg: unknown): unknown {
  if (arg === null || typeof arg !== 'object' || !((arg as { signal?: unknown }).signal instanceof AbortSignal))
    return arg;
  const { signal: _signal, ...rest } = arg as { signal: AbortSignal };
  return rest;
}

/** Clock ticks per second of /proc's CPU times: 100 on every Linux Node runs on. */
const CLOCK_TICKS = 100;

/** User and system CPU time of a process in ms, from /proc; undefined where there is none. */
function cpuMsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's name (in parentheses, which may hold spaces): utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
