// npm run bench:history: one year of 10-s readings of 5 topics (./gen-year.ts, generated in
// this process, deterministic; BENCH_HISTORY_SERIES=a,b,... picks other series) loaded
// through the recorder's folding path into a fresh store; ingest rate, bytes per reading on
// disk, the median of 7 runs of four queries over HTTP, the CPU time of recording 500 topics
// at 1 Hz, and the real service's memory while 32 clients query history.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createApp,
  historyRoutes,
  HistoryStore,
  listen,
  openDatabase,
  Recorder,
  TopicRegistry,
  type Authenticator,
  type TopicState,
} from '@heliograph/core/testing';
import { ManualClock } from '@heliograph/core/clock';
import { YEAR_TOPICS, type YearSeries } from './gen-year.js';
import { buildYearDb, HISTORY, meta, YEAR_END } from './year-db.js';
import { historyLoad } from './history-load.js';
import { basicAuth, median, row, startServerProcess } from './support.js';

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
  const { db, store, registry, clock, readings, storeMs, generateMs, loadedBytes, bytes } = await buildYearDb(
    dir,
    SERIES,
  );
  const series = SERIES.map((name) => [name, YEAR_TOPICS[name]] as const);
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
 * Resident memory of the real service (`heliograph serve` as `npm start` runs it, in a process
 * of its own, on the year's database) while 32 clients query history at once (history-load.ts).
 */
async function reportRssUnderLoad(dataDir: string, end: number): Promise<void> {
  const password = 'bench bench bench';
  const server = await startServerProcess({ plugins: { plugins: [] }, password, data: dataDir });
  const load = await historyLoad(
    server,
    basicAuth(password),
    SERIES.map((name) => YEAR_TOPICS[name]),
    end,
  );
  await server.stop();
  const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;
  console.log(
    `\nthe service (heliograph serve, npm start's flags) under history load: 32 clients, ${load.requests} requests in ${load.seconds.toFixed(1)} s`,
  );
  row('RSS idle, after start', mb(load.idle));
  row('peak RSS (VmHWM) during the load', mb(load.peak), '<= 150 MB');
  row('RSS after the load', mb(load.after));
  if (load.failed > 0) row('requests that failed', `${load.failed} (first: ${load.firstError})`);
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
