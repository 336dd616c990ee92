// npm run bench:history: one year of 10-s readings of 5 topics (./gen-year.ts, generated in
// this process, deterministic; BENCH_HISTORY_SERIES=a,b,... picks other series) loaded
// through the recorder's folding path into a fresh store; ingest rate, bytes per reading on
// disk, the median of 7 runs of four queries over HTTP, the CPU time of recording 500 topics
// at 1 Hz, and the real service's memory while 32 clients query history.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, listen } from '@heliograph/core/api/app';
import { historyRoutes } from '@heliograph/core/api/history';
import type { Authenticator } from '@heliograph/core/auth/types';
import { ManualClock } from '@heliograph/core/clock';
import { openDatabase } from '@heliograph/core/db';
import { Recorder } from '@heliograph/core/history/recorder';
import { HistoryStore } from '@heliograph/core/history/store';
import { TopicRegistry, type TopicMeta, type TopicState } from '@heliograph/core/topics/registry';
import { generateYear, UNITS, YEAR_START, YEAR_TOPICS, type YearSeries } from './gen-year.js';
import { median, REPO_ROOT, row } from './support.js';

const HISTORY = { retentionDays: 3650, diskBudgetMb: 2048, flushIntervalMs: 5000 };
const YEAR_END = YEAR_START + 365 * 86_400_000;
/** Readings handed to the store at once: 30 days of each topic, as a backfill would. */
const CHUNK = 8640 * 30;
/**
 * The series recorded: by default the five the benchmark has always measured, so figures
 * compare with earlier runs. Grid and battery power are noisier (they carry the load's
 * noise): see the per-topic rows.
 */
const SERIES = (
  process.env.BENCH_HISTORY_SERIES ?? 'pv_power,load_power,battery_soc,battery_voltage,inverter_temperature'
).split(',') as YearSeries[];
for (const name of SERIES)
  if (!(name in YEAR_TOPICS))
    throw new Error(`BENCH_HISTORY_SERIES: unknown series "${name}"; known: ${Object.keys(YEAR_TOPICS).join(', ')}`);
const allowAll: Authenticator = {
  authenticate: () => Promise.resolve({ ok: true, who: 'admin', scope: 'admin' as const }),
};

function meta(topic: string, unit = 'W'): TopicMeta {
  const [deviceId, name] = topic.split('/') as [string, string];
  return { topic, deviceId, device: deviceId, number: 0, group: 'Status', name, unit, type: 'number', recorded: true };
}

function get(agent: Agent, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

async function ingestAndQuery(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'heliograph-bench-history-'));
  const file = join(dir, 'heliograph.db');
  const clock = new ManualClock(YEAR_END);
  const db = await openDatabase(file);
  const store = await HistoryStore.open({ db, clock, config: HISTORY, autoFlush: false });
  const registry = new TopicRegistry(clock);

  const series = SERIES.map((name) => [name, YEAR_TOPICS[name]] as const);
  const metas = series.map(([name, topic]) => meta(topic, UNITS[name]));
  for (const m of metas) registry.define(m);
  let readings = 0;
  let storeMs = 0;
  let generateMs = 0;
  const year = generateYear();
  for (let done = false; !done;) {
    const t0 = performance.now();
    const parts: Array<Array<[number, number]>> = series.map(() => []);
    for (let i = 0; i < CHUNK; i++) {
      const next = year.next();
      if (next.done) {
        done = true;
        break;
      }
      series.forEach(([name], k) => parts[k]!.push([next.value.time, next.value[name]]));
    }
    generateMs += performance.now() - t0;
    if (parts[0]!.length === 0) break;
    readings += parts.length * parts[0]!.length;
    const t1 = performance.now();
    await store.recordPastSeries(metas.map((m, k) => [m, parts[k]!] as const));
    storeMs += performance.now() - t1;
  }
  // An hour later: the hourly upkeep runs (packing any day rows of past months).
  clock.advance(3_600_000);
  const t0 = performance.now();
  await store.flush();
  storeMs += performance.now() - t0;
  await db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const loadedBytes = statSync(file).size;
  await store.vacuum();
  const bytes = statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);

  console.log(
    `\nhistory: one year of 10-s readings, ${series.length} topics (${series.map(([n]) => n).join(', ')}), ${readings.toLocaleString('en')} readings`,
  );
  row('generating the year (gen-year.ts, not counted)', `${(generateMs / 1000).toFixed(1)} s`);
  row(
    'ingest (recorder folding, compression, SQLite)',
    `${Math.round(readings / (storeMs / 1000)).toLocaleString('en')}/s`,
  );
  row('bytes per reading as loaded (checkpointed)', (loadedBytes / readings).toFixed(3));
  row('bytes per reading after compaction (VACUUM)', (bytes / readings).toFixed(3), '<= 0.5');
  row('database file after compaction', `${(bytes / 1048576).toFixed(2)} MB`);
  // Which series cost what: compressed row bytes only (no SQLite page overhead).
  const perTopic = await db.all<Array<{ topic: string; bytes: number }>>(
    'SELECT t.topic, sum(length(b.data)) AS bytes FROM history_blocks b JOIN history_topics t ON t.id = b.topic_id GROUP BY t.topic ORDER BY t.topic',
  );
  console.log('bytes per reading by topic (compressed row data only):');
  for (const { topic, bytes: topicBytes } of perTopic)
    row(`  ${topic}`, (topicBytes / (readings / series.length)).toFixed(3));

  const server = await listen(
    createApp({ auth: allowAll, realm: 'Heliograph', routers: [historyRoutes({ registry, store, clock })] }),
    '127.0.0.1',
    0,
  );
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const end = YEAR_END;
  const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
  const url = (from: number, groupBy: string, agg: string) =>
    `${server.url}/api/v1/history?topic=total/pv_power&from=${iso(from)}&to=${iso(end)}&group_by=${groupBy}&agg=${agg}`;
  const DAY = 86_400_000;
  const queries: Array<[string, string, string, boolean]> = [
    ['Q1 last 24 h @10s mean (first 2000 buckets)', url(end - DAY, '10s', 'mean'), '<= 3 ms', false],
    ['Q2 last 30 days @1h mean', url(end - 30 * DAY, '1h', 'mean'), '<= 2 ms', false],
    ['Q3 365 days @1d mean', url(end - 365 * DAY, '1d', 'mean'), '<= 2 ms', false],
    ['Q4 365 days @1h max (all 5 pages)', url(end - 365 * DAY, '1h', 'max'), '<= 10 ms', true],
    ['Q4 365 days @1h max (first page)', url(end - 365 * DAY, '1h', 'max'), undefined as unknown as string, false],
  ];
  console.log(
    '\nqueries through HTTP on total/pv_power: median of 7 runs after 20 warm-up runs [the very first, cold run]',
  );
  for (const [label, first, target, follow] of queries) {
    const times: number[] = [];
    let cold = 0;
    let points = 0;
    for (let run = -20; run < 7; run++) {
      points = 0;
      const t = performance.now();
      let next: string | undefined = first;
      while (next) {
        const answer = await get(agent, next);
        if (answer.status !== 200) throw new Error(`${next}: ${answer.status} ${answer.body}`);
        const body = JSON.parse(answer.body) as { points: unknown[]; next?: string };
        points += body.points.length;
        next = follow && body.next ? first.replace(/from=[^&]+/, `from=${body.next}`) : undefined;
      }
      if (run === -20) cold = performance.now() - t;
      if (run >= 0) times.push(performance.now() - t);
    }
    row(`${label}, ${points} points`, `${median(times).toFixed(2)} ms [${cold.toFixed(1)}]`, target);
  }
  agent.destroy();
  await server.close();
  await store.close();
  await db.close();
  await reportRssUnderLoad(dir, end);
  // HELIOGRAPH_BENCH_KEEP=1 keeps the year's database for `history.bench.js --rss DIR`.
  if (process.env.HELIOGRAPH_BENCH_KEEP) console.log(`kept the database in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

/**
 * Resident memory of the real service (`heliograph serve` with the flags `npm start` uses,
 * in a process of its own, on the year's database) while 32 clients query history at once:
 * every topic, fine and coarse bucket sizes, random ranges, following `next`. The README
 * states what this measures; one history request must not hold more than its page in memory.
 * The peak is the kernel's high-water mark of the process (VmHWM), so nothing is missed.
 */
async function reportRssUnderLoad(dataDir: string, end: number): Promise<void> {
  const password = 'bench bench bench';
  const pluginsFile = join(dataDir, 'plugins.json');
  writeFileSync(pluginsFile, JSON.stringify({ plugins: [] }));
  const child = spawn(
    process.execPath,
    [
      '--max-semi-space-size=1',
      '--v8-pool-size=0',
      join(REPO_ROOT, 'core', 'dist', 'src', 'main.js'),
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data',
      dataDir,
      '--plugins',
      pluginsFile,
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, HELIOGRAPH_PASSWORD: password, HELIOGRAPH_MDNS: '0', HELIOGRAPH_LOG_LEVEL: 'warn' },
    },
  );
  let baseUrl = '';
  for await (const line of createInterface({ input: child.stdout })) {
    const m = /^listening on (\S+)/.exec(line);
    if (m) {
      baseUrl = m[1]!;
      break;
    }
  }
  child.stdout.resume();
  const status = (field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? NaN) *
    1024;
  const auth = 'Basic ' + Buffer.from(`admin:${password}`).toString('base64');
  const DAY = 86_400_000;
  const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
  const topics = SERIES.map((name) => YEAR_TOPICS[name]);
  const shapes: Array<[string, number]> = [
    ['10s', 2],
    ['50s', 30],
    ['90m', 365],
    ['1h', 365],
    ['1d', 365],
  ];
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const idle = status('VmRSS');
  let requests = 0;
  let failed = 0;
  let firstError = '';
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      for (let i = 0; i < 10; i++) {
        const [groupBy, days] = shapes[Math.floor(rnd() * shapes.length)]!;
        const from = end - Math.floor(rnd() * (365 - days) + days) * DAY;
        let next: string | undefined =
          `${baseUrl}/api/v1/history?topic=${topics[Math.floor(rnd() * topics.length)]}&from=${iso(from)}&to=${iso(Math.min(end, from + days * DAY))}&group_by=${groupBy}&agg=max`;
        for (let pages = 0; next && pages < 5; pages++) {
          requests++;
          try {
            const res: Response = await fetch(next, { headers: { authorization: auth } });
            const text = await res.text();
            if (res.status !== 200) throw new Error(`${res.status} ${text.slice(0, 200)}`);
            const body = JSON.parse(text) as { next?: string };
            next = body.next ? next.replace(/from=[^&]+/, `from=${body.next}`) : undefined;
          } catch (err) {
            failed++;
            firstError ||= `${next}: ${err instanceof Error ? err.message : String(err)}`;
            next = undefined;
          }
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const peak = status('VmHWM');
  const after = status('VmRSS');
  child.kill('SIGTERM');
  await once(child, 'exit');
  const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;
  console.log(
    `\nthe service (heliograph serve, npm start's flags) under history load: 32 clients, ${requests} requests in ${seconds.toFixed(1)} s`,
  );
  row('RSS idle, after start', mb(idle));
  row('peak RSS (VmHWM) during the load', mb(peak), '<= 180 MB, as the README says');
  row('RSS after the load', mb(after));
  if (failed > 0) row('requests that failed', `${failed} (first: ${firstError})`);
}

/** CPU of recording `topics` topics at 1 Hz for `seconds` of simulated time, as % of one core. */
async function recordingCpu(topics: number, seconds: number, startIso: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'heliograph-bench-record-'));
  const clock = new ManualClock(Date.parse(startIso));
  const db = await openDatabase(join(dir, 'heliograph.db'));
  const store = await HistoryStore.open({ db, clock, config: HISTORY, autoFlush: false });
  const registry = new TopicRegistry(clock);
  const recorder = new Recorder({ registry, store, clock }, { sampleTimer: false });
  const states: TopicState[] = [];
  const names = [
    'pv_power',
    'load_power',
    'grid_power',
    'battery_power',
    'pv_voltage',
    'pv_current',
    'ac_voltage',
    'frequency',
    'temperature',
    'power_factor',
  ];
  for (let i = 0; states.length < topics; i++) {
    for (const name of names) {
      if (states.length === topics) break;
      registry.define(meta(`inverter_${i + 1}/${name}`));
      states.push(registry.get(`inverter_${i + 1}/${name}`)!);
    }
  }
  recorder.start();
  const values = states.map((_, i) => 1000 + i);
  await store.flush();
  const cpu0 = process.cpuUsage();
  for (let s = 1; s <= seconds; s++) {
    clock.advance(1000);
    for (let i = 0; i < states.length; i++) {
      values[i] = Math.round((values[i]! + ((i * 7919 + s * 104729) % 41) - 20) * 10) / 10;
      registry.publish(states[i]!, values[i]!);
    }
    registry.flush();
    if (s % 10 === 0) recorder.sample();
    if (s % (HISTORY.flushIntervalMs / 1000) === 0) await store.flush();
  }
  await store.flush();
  const cpu = process.cpuUsage(cpu0);
  recorder.stop();
  await store.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  return ((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100;
}

async function main(): Promise<void> {
  if (process.argv[2] === '--rss') return reportRssUnderLoad(process.argv[3]!, YEAR_END);
  await ingestAndQuery();
  console.log('\nrecording 500 topics at 1 Hz (registry publish, recorder, flushes every 5 s), CPU of this process');
  row(
    '60 s of simulated time',
    `${(await recordingCpu(500, 60, '2026-06-01T12:00:00Z')).toFixed(2)} % of one core`,
    '< 2 %',
  );
  row(
    'a whole hour, with its hour-end merge',
    `${(await recordingCpu(500, 3600, '2026-06-01T12:00:00Z')).toFixed(2)} % of one core`,
    '< 2 %',
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
