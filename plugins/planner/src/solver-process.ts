/**
 * The child process that makes plans (see solver.ts): HiGHS and its WebAssembly memory live
 * here, so ending the process gives all of it back. Each message is a PlanRequest; the answer
 * is { plan } or { error }. It ends with its parent.
 */
import { loadSolver } from './lp.js';
import { makePlan, type PlanRequest } from './plan.js';

/**
 * Answers the service; if it went away meanwhile (killed while a plan was being made), there
 * is no one to answer and the process ends quietly rather than on an unhandled EPIPE.
 */
const send = (answer: unknown) => {
  if (!process.connected) process.exit(0);
  process.send!(answer, undefined, undefined, (err) => {
    if (err) process.exit(0);
  });
};
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
