/**
 * Plans made in a child process that ends when plans stop coming. HiGHS is WebAssembly whose
 * memory only grows (about 34 MB after the first plan, 58 MB after a day of plans, in the
 * process that loads it: npm run bench:planner), and what a thread frees stays in its
 * allocator: only a process of its own gives all of it back when it ends. It starts when a
 * plan is due (about 0.1 s, twice the solve) and ends once idle for IDLE_MS, so a site that
 * plans every quarter hour carries it a minute in fifteen.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Plan, PlanRequest } from './plan.js';

/** Idle time after which the process (and the solver's memory) is released. */
export const IDLE_MS = 60_000;

type Answer = { plan: Plan } | { error: string };

const ENTRY = fileURLToPath(new URL('./solver-process.js', import.meta.url));

export class PlanSolver {
  private child: ChildProcess | null = null;
  private idle: NodeJS.Timeout | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly idleMs = IDLE_MS,
    /** Called each time the process has ended and its memory is given back. */
    private readonly onRelease: () => void = () => undefined,
  ) {}

  /** Whether the process (and the solver in it) is alive now. */
  get loaded(): boolean {
    return this.child !== null;
  }

  /** Makes the plan in the solver process (one at a time); throws with the solver's reason when there is none. */
  plan(req: PlanRequest): Promise<Plan> {
    const next = this.queue.then(() => this.ask(req));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Ends the process now (the plugin stops). */
  async close(): Promise<void> {
    await this.queue;
    await this.release();
  }

  private start(): ChildProcess {
    // The solver's own memory is what it needs: no flags of the service (inspector, profiles).
    const child = fork(ENTRY, [], {
      serialization: 'advanced',
      execArgv: ['--max-semi-space-size=1', '--v8-pool-size=0'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    return child;
  }

  private async ask(req: PlanRequest): Promise<Plan> {
    if (this.idle) clearTimeout(this.idle);
    const child = (this.child ??= this.start());
    // Held while a plan is asked for, let go in between: an idle solver never keeps the
    // service from exiting. Both the process and its IPC channel count (Node 22 needs both).
    child.ref();
    child.channel?.ref();
    try {
      const answer = await new Promise<Answer>((resolve, reject) => {
        const fail = (e: unknown) => {
          child.off('message', answered);
          // A process that failed or ended is not reused.
          if (this.child === child) this.child = null;
          child.kill();
          reject(e instanceof Error ? e : new Error(`the solver process ended (exit code ${String(e)})`));
        };
        const answered = (a: Answer) => {
          child.off('error', fail);
          child.off('exit', fail);
          resolve(a);
        };
        child.once('error', fail);
        child.once('exit', fail);
        child.once('message', answered);
        child.send(req);
      });
      if ('error' in answer) throw new Error(answer.error);
      return answer.plan;
    } finally {
      child.unref();
      child.channel?.unref();
      this.idle = setTimeout(() => void this.release(), this.idleMs);
      this.idle.unref();
    }
  }

  private async release(): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const child = this.child;
    this.child = null;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) {
      child.ref(); // waited for below
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    }
    this.onRelease();
  }
}
