// Run by planner.bench.ts in a fresh process with the node flags under test: the RSS a
// process has before the planner's solver is loaded and after it made 800 plans of 48 h.
// Prints one JSON line: { beforeMb, afterMb }.
import { BENCH_PLAN_PARAMS } from './planner-params.js';
import { generateYear, loadSolver, makePlan, type PriceInput } from '@heliograph/plugin-planner/planning';

const gc = () => (globalThis as { gc?: () => void }).gc?.();
const year = generateYear({ seed: 5, days: 6 });
const params = BENCH_PLAN_PARAMS;
gc();
const before = process.memoryUsage().rss;
const highs = await loadSolver();
for (let k = 0; k < 800; k++) {
  const i = (k * 37) % (year.times.length - 192);
  const prices: PriceInput[] = [];
  const pvW = new Map<number, number>();
  const loadW = new Map<number, number>();
  for (let j = i; j < i + 192; j++) {
    prices.push({
      start: year.times[j]!,
      end: year.times[j]! + 900_000,
      import: year.importPrice[j]!,
      export: year.exportPrice[j]!,
    });
    pvW.set(year.times[j]!, year.pvKw[j]! * 1000);
    loadW.set(year.times[j]!, year.loadKw[j]! * 1000);
  }
  makePlan(highs, {
    now: year.times[i]!,
    params,
    prices,
    pvW,
    loadW,
    defaultLoadW: 500,
    socPercent: 10 + (k % 90),
    exportPrice: 0,
    describe: { currency: 'EUR', timeZone: 'Europe/Berlin' },
  });
}
gc();
const after = process.memoryUsage().rss;
console.log(JSON.stringify({ beforeMb: before / 1048576, afterMb: after / 1048576 }));
