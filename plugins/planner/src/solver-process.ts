/**
 * The child process that makes plans (see solver.ts): HiGHS and its WebAssembly memory live
 * here, so ending the process gives all of it back. Each message is a PlanRequest; the answer
 * is { plan } or { error }. It ends with its parent.
 */
import { loadSolver } from './lp.js';
import { makePlan, type PlanRequest } from './plan.js';

const send = (answer: unknown) => process.send?.(answer);
process.on('disconnect', () => process.exit(0));
process.on('message', (req: PlanRequest) => {
  loadSolver().then(
    (highs) => {
      try {
        send({ plan: makePlan(highs, req) });
      } catch (e) {
        send({ error: e instanceof Error ? e.message : String(e) });
      }
    },
    (e: unknown) => send({ error: `the solver did not load: ${e instanceof Error ? e.message : String(e)}` }),
  );
});
