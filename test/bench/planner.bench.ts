// `npm run bench:planner`: a generated year of quarter hours (seeded), a 10 kWh / 5 kW
// battery, and four ways to run it: no control (self-consumption), the planner with perfect
// forecasts, the planner with noisy forecasts, and the perfect-foresight optimum.
// Then the hard cases (planner-cases.ts): fortnights bent into what real tariffs and forecasts
// do, each with the share of the optimum's saving the planner reaches and what it lost (EUR).
// Options: --days N (default 365), --seed N (default 19), --start-day N (default 0: 1 January),
// --cases-only (skip the year), --case TEXT (only the cases whose name has it), --terminal use|replacement[+extend][+hold] (default: the
// planner's own, see plan.ts DEFAULT_TERMINAL), --car (only the car: planner-car.ts), --no-car (without it),
// --year-only (the year without the hard cases), --attribute (each case's noisy run again with
// the PV alone noisy, the load alone, and each day's PV told after its first hour of sun).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CAR_EFFICIENCY, CAR_KWH, CAR_MAX_KW, runCar } from './planner-car.js';
import { CASES, runCases } from './planner-cases.js';
import { BENCH_PLAN_PARAMS, yearWindow } from './planner-params.js';
import { dayAheadUntil, newRun, noControl, replay, type Run, settle, yearSlots } from './planner-replay.js';
import {
  DEFAULT_TERMINAL,
  type PlanParams,
  type TerminalPolicy,
  type YearData,
  forecastLoad,
  generateYear,
  LocalCalendar,
  loadSolver,
  makePlan,
  seededRandom,
  solvePlan,
  terminalValue,
} from '@heliograph/plugin-planner/planning';

const ZONE = 'Europe/Berlin';
const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const days = option('--days', 365);
const seed = option('--seed', 19);
const startDay = option('--start-day', 0);
const carOnly = args.includes('--car');
const casesOnly = args.includes('--cases-only') || carOnly;
const withCar = !args.includes('--no-car') && !args.includes('--cases-only');
const caseFilter = args.includes('--case') ? args[args.indexOf('--case') + 1] : undefined;
const attribute = args.includes('--attribute');
const terminal: TerminalPolicy = (() => {
  const i = args.indexOf('--terminal');
  if (i < 0) return DEFAULT_TERMINAL;
  const parts = (args[i + 1] ?? '').split('+');
  return {
    value: parts[0] === 'use' ? 'use' : 'replacement',
    extend: parts.includes('extend'),
    holdStart: parts.includes('hold'),
  };
})();

const params: PlanParams = BENCH_PLAN_PARAMS;
const describe = { currency: 'EUR', timeZone: ZONE };

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

const year = generateYear({ seed, days: days + 3, timeZone: ZONE, startUtc: Date.UTC(2025, 0, 1 + startDay) });
const n = days * 96;
const cal = new LocalCalendar(ZONE);

const knownUntil = dayAheadUntil(year, cal);

gc();
const rssBefore = process.memoryUsage().rss;

type Highs = Awaited<ReturnType<typeof loadSolver>>;

function planner(
  pricesKnownDayAhead: boolean,
  highs: Highs,
  pvF: readonly number[],
  loadF: readonly number[],
  noisy: boolean,
): Run {
  return replay(highs, year, n, params, {
    describe,
    terminal,
    forecast: noisy ? { pvKw: pvF, loadKw: loadF } : undefined,
    pricesTo: (i) => Math.min(pricesKnownDayAhead ? knownUntil[i]! : Infinity, i + 192, year.times.length),
  });
}

/** Perfect foresight: 9-day LPs of which the first 7 days are kept, the SOC carried over. */
function optimum(highs: Highs, data: YearData): Run {
  const run = newRun();
  let soc = 50;
  const keep = 7 * 96;
  for (let from = 0; from < n; from += keep) {
    const slots = yearSlots(data, from, Math.min(from + 9 * 96, data.times.length));
    const sol = solvePlan(highs, {
      params,
      slots,
      socPercent: soc,
      terminalValue: terminalValue(slots, params, terminal.value),
    });
    const end = Math.min(keep, n - from);
    for (let t = 0; t < end; t++) {
      const grid = sol.importKw[t]! - sol.exportKw[t]!;
      settle(run, data, from + t, grid, sol.dischargeKw[t]!, params);
    }
    soc = sol.socPercent[end - 1]!;
  }
  return run;
}

/** Noisy forecasts: PV off by a per-day factor and per-quarter noise; load from history. */
function noisyForecasts(year: YearData, days: number): { pv: number[]; load: number[]; loadMaeW: number | null } {
  const rand = seededRandom(seed + 1);
  const gauss = () => Math.sqrt(-2 * Math.log(Math.max(rand(), 1e-12))) * Math.cos(2 * Math.PI * rand());
  const pv: number[] = [];
  let dayFactor = 1;
  for (let i = 0; i < year.times.length; i++) {
    if (i % 96 === 0) dayFactor = Math.exp(0.3 * gauss());
    pv.push(Math.max(0, year.pvKw[i]! * dayFactor * (1 + 0.15 * gauss())));
  }
  const history = year.times.map((time, i) => ({ time, value: year.loadKw[i]! * 1000 }));
  const forecast = forecastLoad({ history, targets: year.times, timeZone: ZONE, errorDays: days });
  const load = forecast.values.map((v) => (v ?? 500) / 1000);
  return { pv, load, loadMaeW: forecast.maeW };
}

/** Wall-clock solve times of 48 h plans, and the CPU time of each whole plan (the machine is shared). */
function solveTimes48h(highs: Highs): number[] & { cpu?: number[] } {
  const times: number[] & { cpu?: number[] } = [];
  times.cpu = [];
  for (let k = 0; k < 400; k++) {
    const i = (k * 7919) % (year.times.length - 192);
    const cpu = process.cpuUsage();
    times.push(
      makePlan(highs, {
        now: year.times[i]!,
        params,
        ...yearWindow(year, i, i + 192, undefined, { pricesFrom: i - 96 }),
        defaultLoadW: 500,
        socPercent: 10 + (k % 90),
        terminal,
        exportPrice: 0,
        describe,
      }).solveMs,
    );
    const used = process.cpuUsage(cpu);
    times.cpu.push((used.user + used.system) / 1000);
  }
  return times;
}

const quantile = (xs: readonly number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const money = (r: Run) =>
  `${(r.bill + r.wear).toFixed(2).padStart(9)} EUR (bill ${r.bill.toFixed(2)}, wear ${r.wear.toFixed(2)})`;

const highs = await loadSolver();
const warm = casesOnly ? [] : solveTimes48h(highs);
gc();
const rssPlanner = process.memoryUsage().rss;
const times = casesOnly ? Object.assign([], { cpu: [] }) : solveTimes48h(highs);

function printCases(): void {
  // The cases need the whole year (the last starts mid-December), whatever --days says.
  const full =
    days >= 362 && startDay === 0
      ? year
      : generateYear({ seed, days: 365, timeZone: ZONE, startUtc: Date.UTC(2025, 0, 1) });
  const noisy = noisyForecasts(full, 362);
  const started = performance.now();
  const cases = CASES.filter((c) => !caseFilter || c.name.includes(caseFilter));
  const results = runCases({ highs, year: full, noisy, params, timeZone: ZONE, terminal, cases, attribute });
  console.log(
    `hard cases (re-planned every quarter hour; terminal ${terminal.value}${terminal.extend ? '+extend' : ''}${terminal.holdStart ? '+hold' : ''}): share of the optimum's saving at the planner's end state / realized (optimum free to empty the battery), '-' under 0.05 EUR at stake; lost: EUR over the optimum at the same end state, perfect / noisy [${((performance.now() - started) / 1000).toFixed(0)} s]`,
  );
  const pct = (v: number) => (Number.isNaN(v) ? '    - %' : `${v.toFixed(1).padStart(5)} %`);
  // The optimum is solved to HiGHS's tolerance: a run may come out a hair cheaper.
  const eur = (v: number) => (v > -0.005 ? Math.max(0, v) : v).toFixed(2);
  const split = (x: { share: number; lostEur: number }) => `${pct(x.share)} (lost ${eur(x.lostEur)} EUR)`;
  for (const r of results)
    console.log(
      `  ${`${r.name} (${r.days} d)`.padEnd(44)} perfect ${pct(r.perfectEqual)} / ${pct(r.perfectRealized)}   noisy ${pct(r.noisyEqual)} / ${pct(r.noisyRealized)}   lost ${eur(r.lostEur.perfect)} / ${eur(r.lostEur.noisy)} EUR   solve p99 ${quantile(r.solveMs, 0.99).toFixed(1)} ms${r.allPrices === undefined ? '' : `   (with every price known 48 h ahead: perfect ${pct(r.allPrices.perfect)}, noisy ${pct(r.allPrices.noisy)})`}${
        r.attribution === undefined
          ? ''
          : `\n  ${''.padEnd(44)} noisy PV alone ${split(r.attribution.pvAlone)}, noisy load alone ${split(r.attribution.loadAlone)}, each day's PV told after its first hour of sun ${split(r.attribution.daySeen)}`
      }`,
    );
  const all = results.flatMap((r) => r.solveMs);
  console.log(
    `  solve time in the cases: p50 ${quantile(all, 0.5).toFixed(1)} ms, p99 ${quantile(all, 0.99).toFixed(1)} ms, max ${Math.max(...all).toFixed(1)} ms`,
  );
}

/** The car beside the battery: planned charging against charging at plug-in (planner-car.ts). */
function printCar(): void {
  const started = performance.now();
  const car = runCar({ highs, year, params, timeZone: ZONE, n });
  console.log(
    `car, ${CAR_KWH} kWh by 07:00 after plugging in at 18:00 on weekdays (${car.evenings} evenings; ${CAR_MAX_KW} kW charger, ${CAR_EFFICIENCY * 100} % efficiency; battery kept off the car; 2 plans of 48 h per evening, perfect foresight) [${((performance.now() - started) / 1000).toFixed(0)} s]:`,
  );
  console.log(
    `  the 48 h plans' cost summed, car at plug-in at full power: ${car.atPlugIn.toFixed(2).padStart(9)} EUR (car energy at ${car.priceAtPlugIn.toFixed(3)} EUR/kWh)`,
  );
  console.log(
    `                           car planned with the house: ${car.planned.toFixed(2).padStart(9)} EUR (car energy at ${car.pricePlanned.toFixed(3)} EUR/kWh)  saving ${(car.atPlugIn - car.planned).toFixed(2)} EUR over the ${days} days, ${((car.atPlugIn - car.planned) / Math.max(1, car.evenings)).toFixed(3)} EUR an evening; need not met on ${car.short} evenings; solve p50 ${quantile(car.solveMs, 0.5).toFixed(1)} ms, p99 ${quantile(car.solveMs, 0.99).toFixed(1)} ms`,
  );
}

if (carOnly) {
  printCar();
} else if (casesOnly) {
  printCases();
} else {
  const sum = (xs: readonly number[]) => xs.slice(0, n).reduce((a, b) => a + b, 0) / 4;
  console.log(
    `planner benchmark: ${days} days of generated quarter hours (seed ${seed}, ${ZONE}), battery 10 kWh / 5 kW, round trip ${params.roundTripEfficiency * 100} %, wear ${params.cycleCost} EUR/kWh, reserve ${params.reserveSoc} %`,
  );
  console.log(
    `  load ${sum(year.loadKw).toFixed(0)} kWh, PV ${sum(year.pvKw).toFixed(0)} kWh, negative spot hours ${(year.spot.slice(0, n).filter((p) => p < 0).length / 4).toFixed(0)}; import = 1.19 x (spot + 0.12), export paid at spot`,
  );

  const base = noControl(year, n, params);
  console.log(`no control (self-consumption):   ${money(base)}`);
  let started = performance.now();
  const best = optimum(highs, year);
  console.log(
    `perfect-foresight optimum:       ${money(best)}  [9-day LPs keeping 7 days, SOC carried over; ${((performance.now() - started) / 1000).toFixed(1)} s]`,
  );
  const bestSaving = base.bill + base.wear - (best.bill + best.wear);
  const share = (r: Run) =>
    `${((100 * (base.bill + base.wear - (r.bill + r.wear))) / bestSaving).toFixed(1)} % of the optimum's saving`;

  started = performance.now();
  const perfect = planner(false, highs, year.pvKw, year.loadKw, false);
  console.log(
    `planner, perfect forecasts:      ${money(perfect)}  ${share(perfect)}  [PV, load and prices known 48 h ahead; re-planned every quarter hour, ${((performance.now() - started) / 1000).toFixed(0)} s]`,
  );
  const noisy = noisyForecasts(year, days);
  started = performance.now();
  const noisyRun = planner(true, highs, noisy.pv, noisy.load, true);
  console.log(
    `planner, noisy forecasts:        ${money(noisyRun)}  ${share(noisyRun)}  [${((performance.now() - started) / 1000).toFixed(0)} s; PV: per-day factor e^N(0,0.3) and 15 % per quarter; load: the blend of past days (same weekday and last days, the highest day left out), MAE ${noisy.loadMaeW?.toFixed(0)} W, the current quarter forecast too, corrected by the last one measured and by today's PV so far; prices day-ahead]`,
  );
  console.log(
    `solve time, 48 h horizon (192 quarter hours, ${times.length} plans): p50 ${quantile(times, 0.5).toFixed(1)} ms, p99 ${quantile(times, 0.99).toFixed(1)} ms (warm-up p99 ${quantile(warm, 0.99).toFixed(1)} ms); CPU time per whole plan p50 ${quantile(times.cpu!, 0.5).toFixed(1)} ms, p99 ${quantile(times.cpu!, 0.99).toFixed(1)} ms`,
  );
  console.log(
    `solve time in the simulations: p50 ${quantile(perfect.solveMs, 0.5).toFixed(1)} ms, p99 ${quantile(perfect.solveMs, 0.99).toFixed(1)} ms`,
  );
  console.log(
    `RSS added by the planner in this process (solver loaded, 800 plans of 48 h made): ${((rssPlanner - rssBefore) / 1048576).toFixed(1)} MB`,
  );
  if (withCar) printCar();
  if (!args.includes('--year-only')) printCases();
  // The same in a fresh process per set of node flags: what the service's process would add.
  const probe = fileURLToPath(new URL('./planner-rss.js', import.meta.url));
  for (const flags of [
    ['--max-semi-space-size=1', '--v8-pool-size=0'],
    ['--max-semi-space-size=1', '--v8-pool-size=0', '--liftoff-only'],
  ]) {
    const out = execFileSync(process.execPath, ['--expose-gc', ...flags, probe], { encoding: 'utf8' });
    const { beforeMb, afterMb } = JSON.parse(out) as { beforeMb: number; afterMb: number };
    console.log(
      `RSS added in a fresh process with ${flags.join(' ')}: ${(afterMb - beforeMb).toFixed(1)} MB (${beforeMb.toFixed(0)} -> ${afterMb.toFixed(0)} MB)`,
    );
  }
  {
    // As the service plans: in a child process that ends when idle (plugins/planner/src/solver.ts).
    const flags = ['--max-semi-space-size=1', '--v8-pool-size=0'];
    const out = execFileSync(process.execPath, ['--expose-gc', ...flags, probe, 'solver-process'], {
      encoding: 'utf8',
    });
    const { beforeMb, afterMb, releasedMb } = JSON.parse(out) as {
      beforeMb: number;
      afterMb: number;
      releasedMb: number;
    };
    console.log(
      `RSS added as the service plans (solver process) with ${flags.join(' ')}: ${(afterMb - beforeMb).toFixed(1)} MB while planning, ${(releasedMb - beforeMb).toFixed(1)} MB once the idle process ended (${beforeMb.toFixed(0)} -> ${afterMb.toFixed(0)} -> ${releasedMb.toFixed(0)} MB)`,
    );
  }
}
