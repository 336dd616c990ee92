// npm run bench:serve-history: history answers through `heliograph serve` as `npm start` runs
// it (its node flags, Host checks, a read token), on the year of ./gen-year.ts (five series,
// built once into bench-data/serve-history-year/ and reused), beside VictoriaMetrics on the
// same year when its Debian package is installed (`victoria-metrics` on PATH), in the same
// run. The service and VictoriaMetrics run on one core, this client on the other (taskset).
// Also run with plain node (no flags), paired, for the README's trade of `npm start`'s flags,
// and the service's peak RSS while 32 clients query history: the median over BENCH_PEAK_RUNS
// starts (default 3; the first also ran the queries), each peak printed.
// BENCH_CPU_PROF=DIR writes a CPU profile of the shipped service to DIR (--cpu-prof).
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateYear, YEAR_TOPICS, type YearSeries } from './gen-year.js';
import { historyLoad } from './history-load.js';
import { makeClients, tableRow, type Clients } from './shipped.js';
import {
  LOAD_CORE,
  median,
  NODE_FLAGS,
  PINNED,
  pinned,
  pinProcess,
  REPO_ROOT,
  ownChild,
  row,
  SERVER_CORE,
  startServerProcess,
  type ServerProcess,
} from './support.js';
import { buildYearDb, YEAR_END } from './year-db.js';

const SERIES: YearSeries[] = ['pv_power', 'load_power', 'battery_soc', 'battery_voltage', 'inverter_temperature'];
const PASSWORD = 'bench-password';
const RUNS = Number(process.env.BENCH_RUNS ?? 31);
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** The year's database, built once (about a minute) and kept under bench-data/. */
async function yearDir(): Promise<{ dir: string; bytesPerReading: number }> {
  const dir = join(REPO_ROOT, 'bench-data', 'serve-history-year');
  const done = join(dir, 'built.json');
  if (!existsSync(done)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    console.log('building the year database (once)...');
    const year = await buildYearDb(dir, SERIES);
    await year.store.close();
    await year.db.close();
    writeFileSync(done, JSON.stringify({ readings: year.readings, bytes: year.bytes }));
  }
  const { readings, bytes } = JSON.parse(readFileSync(done, 'utf8')) as { readings: number; bytes: number };
  return { dir, bytesPerReading: bytes / readings };
}

function get(agent: Agent, url: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    request(url, { agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode} ${body.slice(0, 200)}`));
        else resolve(body);
      });
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/**
 * Warm-up runs before each query is timed. A service answers thousands of requests between
 * restarts; with 20, the first query was timed while V8 was still compiling the code that
 * answers it (the same page asked afresh after Q4 came out faster than the repeated one
 * before it, in the same run).
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);

/** Median ms of RUNS sequential runs of `once` after WARMUP warm-up runs, over one keep-alive socket. */
async function timed(run: () => Promise<number>): Promise<{ ms: number; points: number }> {
  let points = 0;
  const times: number[] = [];
  for (let i = -WARMUP; i < RUNS; i++) {
    const t = performance.now();
    points = await run();
    if (i >= 0) times.push(performance.now() - t);
  }
  return { ms: median(times), points };
}

type Timed = { ms: number; points: number };
type Queries = { q1cap: Timed; q4: Timed };

async function heliographQueries(url: string, headers: Record<string, string>): Promise<Queries & { fresh: Timed }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const query = (from: number, groupBy: string, agg: string) =>
    `${url}/api/v1/history?topic=total/pv_power&from=${iso(from)}&to=${iso(YEAR_END)}&group_by=${groupBy}&agg=${agg}`;
  const pages = async (first: string, follow: boolean) => {
    let points = 0;
    for (let next: string | undefined = first; next;) {
      const body = JSON.parse(await get(agent, next, headers)) as { points: unknown[]; next?: string };
      points += body.points.length;
      next = follow && body.next ? first.replace(/from=[^&]+/, `from=${body.next}`) : undefined;
    }
    return points;
  };
  const q1cap = await timed(() => pages(query(YEAR_END - DAY, '10s', 'mean'), false));
  const q4 = await timed(() => pages(query(YEAR_END - 365 * DAY, '1h', 'max'), true));
  // The same page 10 s later each time: never an answer the service kept, so this is the
  // read itself (as VictoriaMetrics' nocache=1 is its computation).
  let shift = 0;
  const fresh = await timed(() => pages(query(YEAR_END - DAY + (shift++ % 2000) * 10_000, '10s', 'mean'), false));
  agent.destroy();
  return { q1cap, q4, fresh };
}

/** VictoriaMetrics on the same year (pv_power as `pv_power`), or undefined when not installed. */
async function victoriaQueries(): Promise<(Queries & { version: string; uncached: Queries }) | undefined> {
  let binary: string;
  try {
    binary = execFileSync('sh', ['-c', 'command -v victoria-metrics'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
  if (!binary) return undefined;
  // Debian's build prints no -version; its package version says which release it is.
  let version = execFileSync(binary, ['-version'], { encoding: 'utf8' }).trim();
  try {
    version ||= execFileSync('dpkg-query', ['-W', '-f=${Version}', 'victoria-metrics'], { encoding: 'utf8' }).trim();
  } catch {
    // not a Debian package
  }
  const storage = mkdtempSync(join(tmpdir(), 'heliograph-bench-vm-'));
  const [command, args] = pinned(SERVER_CORE, [
    binary,
    `-storageDataPath=${storage}`,
    '-httpListenAddr=127.0.0.1:0',
    '-retentionPeriod=100y',
    '-loggerLevel=ERROR',
  ]);
  const child = ownChild(spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  // VictoriaMetrics logs its address on stderr at INFO only; find the port it listens on.
  const port = await new Promise<number>((resolve, reject) => {
    const deadline = Date.now() + 20_000;
    const look = () => {
      try {
        const out = execFileSync('ss', ['-ltnpH'], { encoding: 'utf8' });
        const m = new RegExp(`127\\.0\\.0\\.1:(\\d+)\\s.*pid=${child.pid},`).exec(out);
        if (m) return resolve(Number(m[1]));
      } catch {
        // ss missing: fall through to the deadline
      }
      if (Date.now() > deadline) return reject(new Error('victoria-metrics did not listen within 20 s'));
      setTimeout(look, 100);
    };
    look();
  });
  const base = `http://127.0.0.1:${port}`;
  const format = ['1:time:unix_s', ...SERIES.map((name, k) => `${k + 2}:metric:${name}`)].join(',');
  let lines: string[] = [];
  const send = async () => {
    const res = await fetch(`${base}/api/v1/import/csv?format=${format}`, { method: 'POST', body: lines.join('') });
    if (!res.ok) throw new Error(`victoria-metrics import: ${res.status} ${await res.text()}`);
    lines = [];
  };
  for (const r of generateYear()) {
    lines.push(`${r.time / 1000},${SERIES.map((name) => r[name]).join(',')}\n`);
    if (lines.length >= 100_000) await send();
  }
  await send();
  await fetch(`${base}/internal/force_flush`);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const range = async (query: string, start: number, step: string, nocache = false) => {
    const body = JSON.parse(
      await get(
        agent,
        `${base}/api/v1/query_range?query=${encodeURIComponent(query)}&start=${start / 1000}&end=${YEAR_END / 1000}&step=${step}${nocache ? '&nocache=1' : ''}`,
        {},
      ),
    ) as { data: { result: Array<{ values: unknown[] }> } };
    return body.data.result[0]?.values.length ?? 0;
  };
  // Q1cap: the 2 000 buckets Heliograph's first page holds; Q4: the year at 1 h, max.
  const q1cap = await timed(() => range('avg_over_time(pv_power[10s])', YEAR_END - 2000 * 10_000, '10s'));
  const q4 = await timed(() => range('max_over_time(pv_power[1h])', YEAR_END - 365 * DAY, '1h'));
  // VictoriaMetrics keeps answers in its rollup cache; nocache=1 makes it compute each one, as Heliograph does.
  const uncached = {
    q1cap: await timed(() => range('avg_over_time(pv_power[10s])', YEAR_END - 2000 * 10_000, '10s', true)),
    q4: await timed(() => range('max_over_time(pv_power[1h])', YEAR_END - 365 * DAY, '1h', true)),
  };
  agent.destroy();
  child.kill('SIGTERM');
  await once(child, 'exit');
  rmSync(storage, { recursive: true, force: true });
  return { q1cap, q4, version, uncached };
}

/** Starts of the service under the 32 clients, per flag set: its peak moves by tens of MB from start to start. */
const PEAK_RUNS = Math.max(1, Number(process.env.BENCH_PEAK_RUNS ?? 3));

/**
 * One flag set: a start of the service with `nodeFlags` for the two queries and a load of 32
 * clients, then PEAK_RUNS - 1 more fresh starts under the same load; the load with the median
 * peak is reported, with every peak beside it.
 */
async function serveRun(dir: string, nodeFlags: string[], profile?: string) {
  const start = (extraFlags: string[] = []) =>
    startServerProcess({ plugins: { plugins: [] }, password: PASSWORD, data: dir, nodeFlags, extraFlags });
  const underLoad = async (server: ServerProcess, token: Clients['token']) =>
    historyLoad(
      server,
      token.authorization!,
      SERIES.map((s) => YEAR_TOPICS[s]),
      YEAR_END,
    );
  const server = await start(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []);
  const clients = await makeClients(server.url, PASSWORD);
  const queries = await heliographQueries(server.url, clients.token);
  const loads = [await underLoad(server, clients.token)];
  await server.stop();
  while (loads.length < PEAK_RUNS) {
    const again = await start();
    loads.push(await underLoad(again, (await makeClients(again.url, PASSWORD)).token));
    await again.stop();
  }
  loads.sort((a, b) => a.peak - b.peak);
  const load = loads[Math.floor((loads.length - 1) / 2)]!;
  return { ...queries, load, peaks: loads.map((l) => l.peak), flags: nodeFlags.join(' ') || 'none (plain node)' };
}

/**
 * The flag sets compared, paired in one run: `npm start`'s first, then BENCH_FLAG_VARIANTS
 * (";"-separated sets, "none" for plain node; default: plain node only).
 */
function variants(): string[][] {
  const extra = (process.env.BENCH_FLAG_VARIANTS ?? 'none').split(';').map((v) => v.trim());
  return [NODE_FLAGS, ...extra.filter(Boolean).map((v) => (v === 'none' ? [] : v.split(/\s+/)))];
}

async function main(): Promise<void> {
  // This process is the client: on the core the servers do not use.
  pinProcess(process.pid, LOAD_CORE);
  const { dir, bytesPerReading } = await yearDir();
  const runs: Array<Awaited<ReturnType<typeof serveRun>>> = [];
  for (const [i, flags] of variants().entries())
    runs.push(await serveRun(dir, flags, i === 0 ? process.env.BENCH_CPU_PROF : undefined));
  const shipped = runs[0]!;
  const vm = await victoriaQueries();

  const ms = (q: { ms: number }) => `${q.ms.toFixed(2)} ms`;
  const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;
  console.log(
    `\nhistory through heliograph serve (read token), total/pv_power of the year, median of ${RUNS} runs after ${WARMUP} warm-up runs; node ${process.version}; ` +
      `${PINNED ? 'pinned' : 'NOT pinned'}; 32 clients: ${shipped.load.requests} requests`,
  );
  console.log(
    `  ${'node flags'.padEnd(44)} ${'Q1cap'.padStart(9)} ${'Q4 all'.padStart(9)}  RSS idle  peak(32), median`,
  );
  for (const r of runs)
    console.log(
      `  ${r.flags.padEnd(44)} ${ms(r.q1cap).padStart(9)} ${ms(r.q4).padStart(9)}  ${mb(r.load.idle).padStart(8)}  ${mb(r.load.peak).padStart(8)}`,
    );
  console.log(
    `  points: Q1cap ${shipped.q1cap.points}, Q4 ${shipped.q4.points} (targets: Q1cap <= 1.5 ms, Q4 <= 6 ms)`,
  );
  for (const r of runs)
    console.log(`  Q1cap read afresh (a page the service did not keep), ${r.flags}: ${ms(r.fresh)}`);
  for (const r of runs) console.log(`  peak(32) of ${PEAK_RUNS} starts, ${r.flags}: ${r.peaks.map(mb).join(', ')}`);
  if (vm) {
    row(`VictoriaMetrics ${vm.version || '(version unknown)'}: Q1cap, ${vm.q1cap.points} points`, ms(vm.q1cap));
    row(`VictoriaMetrics: Q4, ${vm.q4.points} points`, ms(vm.q4));
    row('VictoriaMetrics without its cache (nocache=1): Q1cap, Q4', `${ms(vm.uncached.q1cap)}, ${ms(vm.uncached.q4)}`);
    row('Q1cap shipped / VictoriaMetrics', `${(shipped.q1cap.ms / vm.q1cap.ms).toFixed(2)}x`, '<= 0.8x');
  }
  row('bytes per reading on disk', bytesPerReading.toFixed(3), '<= 0.45');
  for (const r of runs)
    if (r.load.failed > 0) row(`requests that failed (${r.flags})`, `${r.load.failed} (first: ${r.load.firstError})`);
  const vmAnchor = (q: 'q1cap' | 'q4') =>
    vm ? `VictoriaMetrics ${ms(vm[q])} (nocache ${ms(vm.uncached[q])})` : 'VictoriaMetrics not installed';
  const others = (q: 'q1cap' | 'q4') =>
    runs
      .slice(1)
      .map((r) => `${r.flags}: ${ms(r[q])}`)
      .join(', ');
  tableRow({
    figure: 'history Q1cap through serve, token',
    value: `${ms(shipped.q1cap)}${vm ? `, ${(shipped.q1cap.ms / vm.q1cap.ms).toFixed(2)}x VM` : ''}`,
    anchor: `${vmAnchor('q1cap')}; read afresh ${ms(shipped.fresh)}; ${others('q1cap')}`,
    target: '<= 1.5 ms, <= 0.8x VM',
    met: shipped.q1cap.ms <= 1.5 && (!vm || shipped.q1cap.ms <= 0.8 * vm.q1cap.ms),
  });
  tableRow({
    figure: 'history Q4 all pages through serve, token',
    value: ms(shipped.q4),
    anchor: `${vmAnchor('q4')}; ${others('q4')}`,
    target: '<= 6 ms',
    met: shipped.q4.ms <= 6,
  });
  tableRow({
    figure: 'history bytes per reading',
    value: bytesPerReading.toFixed(3),
    anchor: '',
    target: '<= 0.45',
    met: bytesPerReading <= 0.45,
  });
  tableRow({
    figure: 'peak RSS, 32 history clients',
    value: `${mb(shipped.load.peak)}, median of ${PEAK_RUNS} starts (${shipped.peaks.map(mb).join(', ')})`,
    anchor: `idle ${mb(shipped.load.idle)}; ${runs
      .slice(1)
      .map((r) => `${r.flags}: ${mb(r.load.peak)}`)
      .join(', ')}`,
    target: '<= 150 MB',
    met: shipped.load.peak <= 150 * 1048576,
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
