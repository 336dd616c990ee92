// Run by planner.bench.ts in a fresh process with the node flags under test: the RSS a
// process has before the planner's solver is loaded and after it made 800 plans of 48 h.
// With the argument `solver-process`, the plans are made as the service makes them
// (PlanSolver: a child process ended when idle), and the RSS is read once more after it ended.
// Prints one JSON line: { beforeMb, afterMb, releasedMb? }.
import { BENCH_PLAN_PARAMS, yearWindow } from './planner-params.js';
import { generateYear, loadSolver, makePlan, PlanSolver, type PlanRequest } from '@heliograph/plugin-planner/planning';

const gc = () => (globalThis as { gc?: () => void }).gc?.();
const year = generateYear({ seed: 5, days: 6 });
const params = BENCH_PLAN_PARAMS;
gc();
const before = process.memoryUsage().rss;
const inChild = process.argv[2] === 'solver-process';
let released = () => {};
const solver = new PlanSolver(200, () => released());
const highs = inChild ? undefined : await loadSolver();
const plan = (req: PlanRequest) => (highs ? Promise.resolve(makePlan(highs, req)) : solver.plan(req));
for (let k = 0; k < Number(process.env.BENCH_PLANS ?? 800); k++) {
  const i = (k * 37) % (year.times.length - 192);
  await plan({
    now: year.times[i]!,
    params,
    ...yearWindow(year, i, i + 192),
    defaultLoadW: 500,
    socPercent: 10 + (k % 90),
    exportPrice: 0,
    describe: { currency: 'EUR', timeZone: 'Europe/Berlin' },
  });
}
gc();
const after = process.memoryUsage().rss;
let releasedMb: number | undefined;
if (inChild) {
  // The solver's timer does not keep a process alive; this wait does.
  const alive = setInterval(() => undefined, 1000);
  await new Promise<void>((resolve) => (released = resolve));
  clearInterval(alive);
  gc();
  releasedMb = process.memoryUsage().rss / 1048576;
}
console.log(JSON.stringify({ beforeMb: before / 1048576, afterMb: after / 1048576, releasedMb }));
