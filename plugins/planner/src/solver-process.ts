/**
 * Where plans are made (see solver.ts): HiGHS and its WebAssembly memory live here, loaded
 * once and kept warm between plans. The same file runs as a worker thread of the service (the
 * default) or as a child process of its own; each message is a PlanRequest, the answer is
 * { plan, cpuMs } or { error, cpuMs }, where cpuMs is this process's CPU so far (a child
 * process only: a thread's CPU is the service's own). A child process ends with its parent.
 */
import { parentPort } from 'node:worker_threads';
import { loadSolver } from './lp.js';
import { makePlan, type PlanRequest } from './plan.js';

export type SolverAnswer = ({ plan: ReturnType<typeof makePlan> } | { error: string }) & { cpuMs?: number };

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

async function answer(req: PlanRequest): Promise<SolverAnswer> {
  let highs;
  try {
    highs = await loadSolver();
  } catch (e) {
    return { error: `the solver did not load: ${message(e)}` };
  }
  try {
    return { plan: makePlan(highs, req) };
  } catch (e) {
    return { error: message(e) };
  }
}

const port = parentPort;
if (port) {
  port.on('message', (req: PlanRequest) => void answer(req).then((a) => port.postMessage(a)));
} else {
  const cpuMs = () => {
    const r = process.resourceUsage();
    return (r.userCPUTime + r.systemCPUTime) / 1000;
  };
  /**
   * Answers the service; if it went away meanwhile (killed while a plan was being made), there
   * is no one to answer and the process ends quietly rather than on an unhandled EPIPE.
   */
  const send = (a: SolverAnswer) => {
    if (!process.connected) process.exit(0);
    process.send!({ ...a, cpuMs: cpuMs() }, undefined, undefined, (err) => {
      if (err) process.exit(0);
    });
  };
  process.on('disconnect', () => process.exit(0));
  process.on('message', (req: PlanRequest) => void answer(req).then(send));
}
