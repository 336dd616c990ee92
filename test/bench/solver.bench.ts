// npm run bench:solver: what each way of hosting the planner's solver (HiGHS, WebAssembly)
// costs per plan, in CPU and memory, over a simulated day of 96 plans (one per quarter hour,
// each a 48-hour window of a generated year moved on by a quarter hour). Each case runs in a
// fresh node with npm start's flags and environment, pinned to one core (as a Pi's would be;
// its solver threads and processes inherit the pin). Per plan CPU: the service process's
// (process.cpuUsage, all its threads) plus a child process's own (process.resourceUsage,
// reported with each answer). Memory: the service's RSS before the first plan and after the
// day, plus a child process's RSS, and of that its private (anonymous) part: the rest is the
// node binary's pages, shared with the service. A warm child is read again after
// CHILD_IDLE_MS without a plan, as it stays between plans: V8 frees what a plan left once
// its isolate has been idle for some seconds (its memory reducer), so the figure right after
// a plan is its peak, not what it keeps for the quarter hour.
//
// `npm run bench:solver -- forecasts` prints instead the load forecast's error over a generated
// year: forecast at each local midnight for the day ahead from the five weeks before, for
// same-weekday alone (the forecast before) and for blends with the last days' average; then
// the planner's blend without and with the temperature term, on the year as generated and on
// the year with a heat pump's load (year.ts `generateTemperature`, `withHeatPump`), the
// forecaster given the measured temperature for the past and a day-ahead forecast of it
// (the generator's truth with a day's bias and hourly noise) for the day.
//
// The cases: `cold process` is each plan in a fresh child process (what a 60 s idle release
// gave at a 15-minute cadence), `warm process` a child kept between plans, `cold thread` /
// `warm thread` the same as a worker thread, `in-process` HiGHS on the service's own thread.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BENCH_PLAN_PARAMS, yearWindow } from './planner-params.js';
import { NODE_FLAGS, pinned, SERVER_CORE, SHIPPED_NODE, shippedEnv } from './support.js';
import {
  forecastLoad,
  generateTemperature,
  generateYear,
  LocalCalendar,
  loadSolver,
  makePlan,
  PlanSolver,
  seededRandom,
  withHeatPump,
  zoneOffsets,
  type PlanRequest,
} from '@heliograph/plugin-planner/planning';

const PLANS = Number(process.env.BENCH_PLANS ?? 96);
/** How long a warm child is left without a plan before it is read again (5 s is too soon). */
const CHILD_IDLE_MS = 15_000;
const CASES = ['cold process', 'warm process', 'cold thread', 'warm thread', 'in-process'] as const;
type Case = (typeof CASES)[number];

interface Result {
  firstCpuMs: number;
  warm: { p50: number; p95: number; max: number };
  serviceBeforeMb: number;
  serviceAfterMb: number;
  servicePeakMb: number;
  childMb: number | null;
  childPrivateMb: number | null;
  childPeakPrivateMb: number | null;
  /** A warm child's private part after {@link CHILD_IDLE_MS} without a plan. */
  childIdlePrivateMb: number | null;
}

/** VmRSS and RssAnon of a process, MB (null when it has ended). */
function memory(pid: number | 'self'): { rss: number; anon: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
    return { rss: kb('VmRSS'), anon: kb('RssAnon') };
  } catch {
    return null;
  }
}

/** The service's child processes now (the solver's, when it runs in one). */
function children(): number[] {
  const pids: number[] = [];
  for (const task of readdirSync('/proc/self/task'))
    for (const pid of readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim().split(/\s+/))
      if (pid) pids.push(Number(pid));
  return pids;
}

async function runCase(name: Case): Promise<Result> {
  const year = generateYear({ seed: 7, days: 5 });
  const requests: PlanRequest[] = Array.from({ length: PLANS }, (_, k) => ({
    now: year.times[k]!,
    params: BENCH_PLAN_PARAMS,
    ...yearWindow(year, k, k + 192),
    defaultLoadW: 500,
    socPercent: 20 + ((k * 7) % 70),
    exportPrice: 0,
    // As the planner's controller asks: with the zone's offsets, so the solver needs no ICU.
    describe: {
      currency: 'EUR',
      timeZone: 'Europe/Berlin',
      offsets: zoneOffsets('Europe/Berlin', year.times[k]!, year.times[k]! + 49 * 3_600_000),
    },
  }));
  const gc = () => (globalThis as { gc?: () => void }).gc?.();
  const cold = name.startsWith('cold');
  let released: () => void = () => undefined;
  const solver =
    name === 'in-process'
      ? null
      : new PlanSolver(cold ? 0 : 3_600_000, () => released(), {
          host: name.endsWith('process') ? 'process' : 'thread',
        });
  gc();
  const before = memory('self')!;
  let peak = before.rss;
  let child: { rss: number; anon: number } | null = null;
  let childPeak = 0;
  const cpu: number[] = [];
  for (const req of requests) {
    const service = process.cpuUsage();
    let own = 0;
    if (!solver) makePlan(await loadSolver(), req);
    else {
      const had = solver.loaded ? solver.ownCpuMs : 0;
      const gone = cold ? new Promise<void>((resolve) => (released = resolve)) : null;
      await solver.plan(req);
      // A cold process's CPU is read before it is released: it is all its own.
      own = solver.ownCpuMs - had;
      await gone;
    }
    const used = process.cpuUsage(service);
    cpu.push((used.user + used.system) / 1000 + own);
    peak = Math.max(peak, memory('self')!.rss);
    const pid = children()[0];
    if (pid !== undefined && !cold) {
      child = memory(pid) ?? child;
      childPeak = Math.max(childPeak, child?.anon ?? 0);
    }
    // Between plans the service's loop turns, as it would in fifteen minutes.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  let idle: { rss: number; anon: number } | null = null;
  const warmChild = cold ? undefined : children()[0];
  if (warmChild !== undefined) {
    await new Promise((resolve) => setTimeout(resolve, CHILD_IDLE_MS));
    idle = memory(warmChild);
  }
  gc();
  const after = memory('self')!;
  await solver?.close();
  const warm = cpu.slice(1).sort((a, b) => a - b);
  const at = (q: number) => warm[Math.min(warm.length - 1, Math.floor(q * warm.length))]!;
  return {
    firstCpuMs: cpu[0]!,
    warm: { p50: at(0.5), p95: at(0.95), max: warm[warm.length - 1]! },
    serviceBeforeMb: before.rss,
    serviceAfterMb: after.rss,
    servicePeakMb: peak,
    childMb: child?.rss ?? null,
    childPrivateMb: child?.anon ?? null,
    childPeakPrivateMb: child ? childPeak : null,
    childIdlePrivateMb: idle?.anon ?? null,
  };
}

/** Mean absolute error, W, of day-ahead load forecasts over a generated year for one blend. */
function loadError(
  year: ReturnType<typeof generateYear>,
  midnights: readonly number[],
  blend: { share: number; recentDays: number },
  /** The outside temperature as the forecaster knows it, °C per quarter hour: measured, and forecast a day ahead. */
  temperature?: { measured: readonly number[]; forecast: readonly number[] },
): number {
  let abs = 0;
  let n = 0;
  for (const start of midnights) {
    const history = [];
    const temperatureC = [];
    for (let j = Math.max(0, start - 35 * 96); j < start; j++) {
      history.push({ time: year.times[j]!, value: year.loadKw[j]! * 1000 });
      if (temperature) temperatureC.push({ time: year.times[j]!, value: temperature.measured[j]! });
    }
    const targets = year.times.slice(start, start + 96);
    if (temperature)
      for (let j = start; j < start + 96; j++)
        temperatureC.push({ time: year.times[j]!, value: temperature.forecast[j]! });
    const f = forecastLoad({
      history,
      targets,
      timeZone: 'Europe/Berlin',
      sameWeekdayShare: blend.share,
      recentDays: blend.recentDays,
      ...(temperature ? { temperatureC } : {}),
    });
    targets.forEach((_, k) => {
      abs += Math.abs(f.values[k]! - year.loadKw[start + k]! * 1000);
      n++;
    });
  }
  return abs / n;
}

if (process.argv[2] === 'forecasts') {
  const zone = 'Europe/Berlin';
  const year = generateYear({ seed: 19, days: 366, timeZone: zone });
  const cal = new LocalCalendar(zone);
  // Local midnights from the sixth week on (five weeks of history before each).
  const midnights = year.times
    .map((time, i) => ({ i, minute: cal.position(time).minute }))
    .filter(({ i, minute }) => minute === 0 && i >= 35 * 96 && i + 96 <= year.times.length)
    .map(({ i }) => i);
  console.log(`# day-ahead load forecast over a generated year (seed 19, ${midnights.length} days), MAE in W`);
  console.log('| same-weekday share | last days | MAE W |');
  console.log('|---|---|---|');
  // The blends a first full run (0 to 1 by quarters, 3, 7 or 14 days) found best, and the one before.
  const blends = [
    { share: 1, recentDays: 7 },
    { share: 0.75, recentDays: 7 },
    { share: 0.5, recentDays: 7 },
    { share: 0.5, recentDays: 14 },
    { share: 0.25, recentDays: 14 },
    { share: 0, recentDays: 14 },
  ];
  for (const blend of blends) {
    const mae = loadError(year, midnights, blend);
    const name = blend.share === 1 ? '1 (same weekday alone: before)' : String(blend.share);
    console.log(`| ${name} | ${blend.share === 1 ? '-' : blend.recentDays} | ${mae.toFixed(1)} |`);
  }
  temperatureTable(year, midnights, zone);
  process.exit(0);
}

/** The planner's blend without and with the temperature term, on the year and the year with a heat pump. */
function temperatureTable(year: ReturnType<typeof generateYear>, midnights: readonly number[], zone: string): void {
  const truth = generateTemperature({ seed: 19, times: year.times, timeZone: zone });
  // What the forecaster knows: the past as measured (0.3 K off), the day ahead as forecast
  // (a bias per day of 1 K spread and 0.7 K of noise that drifts over hours).
  const rand = seededRandom(1919);
  const gauss = () => Math.sqrt(-2 * Math.log(Math.max(rand(), 1e-12))) * Math.cos(2 * Math.PI * rand());
  const measured = truth.map((c) => c + 0.3 * gauss());
  let bias = 0;
  let drift = 0;
  const forecast = truth.map((c, i) => {
    if (i % 96 === 0) bias = gauss();
    drift = 0.95 * drift + 0.7 * Math.sqrt(1 - 0.95 * 0.95) * gauss();
    return c + bias + drift;
  });
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const forecastMae = mean(
    midnights.flatMap((s) => truth.slice(s, s + 96).map((c, k) => Math.abs(forecast[s + k]! - c))),
  );
  const heated = withHeatPump(year, truth, { timeZone: zone, seed: 19 });
  const heatKwh = (mean(heated.loadKw) - mean(year.loadKw)) * 24 * 365;
  console.log(
    `\n# the same days, the blend (0.5, 14 days) without and with the temperature term; outside ${mean(truth).toFixed(1)} °C on average ` +
      `(${Math.min(...truth).toFixed(1)} to ${Math.max(...truth).toFixed(1)}), its day-ahead forecast off by ${forecastMae.toFixed(2)} K (MAE); ` +
      `the heat pump (160 W/K, heating limit 15 °C) adds ${heatKwh.toFixed(0)} kWh a year to ${(mean(year.loadKw) * 24 * 365).toFixed(0)}`,
  );
  console.log('| load | blend alone (before) MAE W | with temperature MAE W |');
  console.log('|---|---|---|');
  const blend = { share: 0.5, recentDays: 14 };
  for (const [name, y] of [
    ['as generated (no heating)', year],
    ['with a heat pump', heated],
  ] as const) {
    const before = loadError(y, midnights, blend);
    const after = loadError(y, midnights, blend, { measured, forecast });
    console.log(`| ${name} | ${before.toFixed(1)} | ${after.toFixed(1)} |`);
  }
}

if (process.argv[2] === 'case') {
  // The solver's idle timer does not keep a process alive (a service has its server for that).
  const alive = setInterval(() => undefined, 1000);
  const result = await runCase(process.argv[3] as Case);
  clearInterval(alive);
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exit(0);
}

const only = process.argv[2] as Case | undefined;
console.log(`# solver hosting: ${PLANS} plans of 48 h, one core (${SHIPPED_NODE}), MB are RSS`);
console.log(
  '| case | first plan CPU ms | later plans CPU ms p50 / p95 / max | service RSS before -> after (peak) | solver process RSS after the last plan (private, peak private) | its private part between plans | solver adds after the day |',
);
console.log('|---|---|---|---|---|---|---|');
for (const name of only ? [only] : CASES) {
  const [command, args] = pinned(SERVER_CORE, [
    process.execPath,
    '--expose-gc',
    ...NODE_FLAGS,
    fileURLToPath(import.meta.url),
    'case',
    name,
  ]);
  const r = JSON.parse(execFileSync(command, args, { env: shippedEnv(), encoding: 'utf8' })) as Result;
  const f = (x: number) => x.toFixed(1);
  // A warm child counts as it stays between plans.
  const adds = r.serviceAfterMb - r.serviceBeforeMb + (r.childIdlePrivateMb ?? r.childPrivateMb ?? 0);
  console.log(
    `| ${name} | ${f(r.firstCpuMs)} | ${f(r.warm.p50)} / ${f(r.warm.p95)} / ${f(r.warm.max)} | ` +
      `${f(r.serviceBeforeMb)} -> ${f(r.serviceAfterMb)} (${f(r.servicePeakMb)}) | ` +
      `${r.childMb === null ? '-' : `${f(r.childMb)} (${f(r.childPrivateMb!)}, ${f(r.childPeakPrivateMb!)})`} | ` +
      `${r.childIdlePrivateMb === null ? '-' : f(r.childIdlePrivateMb)} | ${f(adds)} |`,
  );
}
