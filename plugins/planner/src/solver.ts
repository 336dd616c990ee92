/**
 * Plans made in a child process kept warm between plans. A fresh solver pays for starting
 * Node and compiling HiGHS's WebAssembly with every plan (about 0.3 s of CPU, seconds on a
 * Raspberry Pi) against 15-20 ms warm, and plans come every quarter hour: so the process stays
 * while they come and ends after IDLE_MS without one (the planner paused, or no prices). Its
 * own process, not a thread of the service: the flags that keep it small (Liftoff only, no
 * V8 helper threads) are per process, a thread's freed memory stays in the service's
 * allocator, and a crash or runaway heap in HiGHS cannot touch the service. It ends with its
 * parent. The figures of each way (child process or worker thread, cold or warm, or on the
 * service's own thread): npm run bench:solver, docs/architecture.md "The planner".
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Plan, PlanRequest } from './plan.js';
import type { SolverAnswer } from './solver-process.js';

/** Idle time after which the solver (and its memory) is released: longer than the quarter-hour cadence. */
export const IDLE_MS = 20 * 60_000;

const ENTRY = fileURLToPath(new URL('./solver-process.js', import.meta.url));

/** Where the solver runs: a worker thread of the service, or a child process of its own. */
export type SolverHost = 'thread' | 'process';

export interface PlanSolverOptions {
  /** Default 'process' (see above; 'thread' is kept for the benchmark's comparison). */
  host?: SolverHost;
}

/** What PlanSolver needs of a worker or a child process. */
interface Running {
  send(req: PlanRequest): void;
  /** Emits 'message' (a SolverAnswer), 'error' and 'exit'. */
  events: NodeJS.EventEmitter;
  /** Whether it keeps the service from exiting. */
  hold(held: boolean): void;
  /** Ends it; resolves once it has. */
  end(): Promise<void>;
  /** The CPU it has used so far, ms, when it is a process of its own (a thread's is the service's). */
  cpuMs: number;
}

function startThread(): Running {
  // The heap a plan needs is a few MB; a runaway one ends the thread, not the service.
  const worker = new Worker(ENTRY, {
    resourceLimits: { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 2, stackSizeMb: 4 },
    stdout: false,
    stderr: false,
  });
  return {
    send: (req) => worker.postMessage(req),
    events: worker,
    hold: (held) => (held ? worker.ref() : worker.unref()),
    end: async () => {
      await worker.terminate();
    },
    cpuMs: 0,
  };
}

function startProcess(): Running {
  // The solver's own memory is what it needs: no flags of the service (inspector, profiles).
  // Liftoff alone compiles the few HiGHS functions a plan calls quickly and small, and warm
  // plans run as fast as with TurboFan's tier-up, which costs memory and CPU spikes early on;
  // single-threaded: no V8 helper threads and their allocator arenas (npm run bench:solver).
  // Lazy validation: each HiGHS function is checked when first compiled, not all 3.5 MB at
  // start (a fresh process's first plan 297 -> 267 ms of CPU, medians of 4 pairs).
  const child = fork(ENTRY, [], {
    serialization: 'advanced',
    execArgv: [
      '--max-semi-space-size=1',
      '--max-old-space-size=16',
      '--liftoff-only',
      '--single-threaded',
      '--wasm-lazy-validation',
    ],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const running: Running = {
    send: (req) => child.send(req),
    events: child,
    // Both the process and its IPC channel count (Node 22 needs both).
    hold: (held) => {
      if (held) {
        child.ref();
        child.channel?.ref();
      } else {
        child.unref();
        child.channel?.unref();
      }
    },
    end: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.ref(); // waited for below
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    },
    cpuMs: 0,
  };
  child.on('message', (a: SolverAnswer) => {
    if (a.cpuMs !== undefined) running.cpuMs = a.cpuMs;
  });
  return running;
}

export class PlanSolver {
  private running: Running | null = null;
  private idle: NodeJS.Timeout | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly host: SolverHost;

  constructor(
    private readonly idleMs = IDLE_MS,
    /** Called each time the solver has ended and its memory is given back. */
    private readonly onRelease: () => void = () => undefined,
    options: PlanSolverOptions = {},
  ) {
    this.host = options.host ?? 'process';
  }

  /** Whether the solver is alive now. */
  get loaded(): boolean {
    return this.running !== null;
  }

  /**
   * The CPU the solver's own process has used, ms (0 for a thread, whose CPU is the
   * service's): for the benchmark, which adds it to the service's.
   */
  get ownCpuMs(): number {
    return this.running?.cpuMs ?? 0;
  }

  /** Makes the plan in the solver (one at a time); throws with the solver's reason when there is none. */
  plan(req: PlanRequest): Promise<Plan> {
    const next = this.queue.then(() => this.ask(req));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Ends the solver now (the plugin stops). */
  async close(): Promise<void> {
    await this.queue;
    await this.release();
  }

  private async ask(req: PlanRequest): Promise<Plan> {
    if (this.idle) clearTimeout(this.idle);
    const running = (this.running ??= this.host === 'process' ? startProcess() : startThread());
    // Held while a plan is asked for, let go in between: an idle solver never keeps the
    // service from exiting.
    running.hold(true);
    try {
      const answer = await new Promise<SolverAnswer>((resolve, reject) => {
        const fail = (e: unknown) => {
          running.events.off('message', answered);
          running.events.off('error', fail);
          running.events.off('exit', fail);
          // A solver that failed or ended is not reused.
          if (this.running === running) this.running = null;
          void running.end();
          reject(e instanceof Error ? e : new Error(`the solver ended (exit code ${String(e)})`));
        };
        const answered = (a: SolverAnswer) => {
          running.events.off('message', answered);
          running.events.off('error', fail);
          running.events.off('exit', fail);
          resolve(a);
        };
        running.events.on('error', fail);
        running.events.on('exit', fail);
        running.events.on('message', answered);
        running.send(req);
      });
      if ('error' in answer) throw new Error(answer.error);
      return answer.plan;
    } finally {
      running.hold(false);
      this.idle = setTimeout(() => void this.release(), this.idleMs);
      this.idle.unref();
    }
  }

  private async release(): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const running = this.running;
    this.running = null;
    if (!running) return;
    await running.end();
    this.onRelease();
  }
}
