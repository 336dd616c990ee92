/**
 * `npm run bench:ws`: 500 WebSocket clients, each joined to all 120 topics, which change
 * once a second. Prints p50/p99 latency from publish to receipt, the server's CPU (% of
 * one core) and its RSS growth per client, for each of BENCH_WS_RUNS (3) runs of
 * BENCH_WS_SECONDS (65, so at least 60 ticks decide the p99), then 2 000 clients on a quiet
 * site (nothing changes: the server's CPU is what idle clients cost).
 *
 * The server runs in a child process (ws-bench-server.ts: the real app and WebSocket endpoint
 * with `npm start`'s node flags; a registry of its own, because the latency needs the publish
 * time in the first topic) so its CPU and memory are its own; the clients are raw `ws`
 * sockets in this process, speaking the v2 serializer. With taskset the server runs on one
 * core and the clients on the other.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { tableRow } from './shipped.js';
import { percentile } from './soak-window.js';
import { LOAD_CORE, NODE_FLAGS, pinProcess, SERVER_CORE, shippedEnv } from './support.js';
import { BENCH_PASSWORD, TIMESTAMP_TOPIC, TOPIC_COUNT, type BenchReply, type BenchRequest } from './ws-bench-shared.js';

const CLIENTS = Number(process.env.BENCH_WS_CLIENTS ?? 500);
const QUIET_CLIENTS = Number(process.env.BENCH_WS_QUIET_CLIENTS ?? 2000);
const RUNS = Number(process.env.BENCH_WS_RUNS ?? 3);
const MEASURE_S = Number(process.env.BENCH_WS_SECONDS ?? 65);
const WARMUP_S = 3;
const SETTLE_S = 5;
const CONNECT_BATCH = 50;

const TARGETS = { p99Ms: 20, cpuPercent: 2, kbPerClient: 15 };

/** `{"topic":"bench/published_at","value":` - the timestamp is the first metric of each data frame. */
const MARK = Buffer.from(`{"topic":${JSON.stringify(TIMESTAMP_TOPIC)},"value":`);

class ServerChild {
  private readonly child: ChildProcess;
  constructor(quiet: boolean) {
    const script = fileURLToPath(new URL('./ws-bench-server.js', import.meta.url));
    // The Node flags and allocator settings of `npm start`, so the server's memory behaves as in service.
    this.child = fork(script, [], {
      execArgv: [...NODE_FLAGS, '--expose-gc'],
      env: shippedEnv({ HELIOGRAPH_LOG_LEVEL: 'warn', ...(quiet ? { BENCH_WS_QUIET: '1' } : {}) }),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    pinProcess(this.child.pid!, SERVER_CORE);
  }

  async next<T extends BenchReply['type']>(type: T): Promise<Extract<BenchReply, { type: T }>> {
    for (;;) {
      const [message] = (await once(this.child, 'message')) as [BenchReply];
      if (message.type === type) return message as Extract<BenchReply, { type: T }>;
    }
  }

  async ask<T extends BenchRequest['type'] & BenchReply['type']>(type: T): Promise<Extract<BenchReply, { type: T }>> {
    const reply = this.next(type);
    this.child.send({ type } satisfies BenchRequest);
    return reply;
  }

  async stop(): Promise<void> {
    const exited = once(this.child, 'exit');
    this.child.send({ type: 'stop' } satisfies BenchRequest);
    await exited;
  }
}

interface Stats {
  measuring: boolean;
  latencies: number[];
  dataMessages: number;
  closedEarly: number;
  finished: boolean;
}

/** Connects one client, joins all topics and resolves on its first data message. */
function connectClient(port: number, stats: Stats): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api/websocket?password=${BENCH_PASSWORD}&vsn=2.0.0`, {
    perMessageDeflate: false,
    skipUTF8Validation: true,
  });
  return new Promise((resolve, reject) => {
    let joined = false;
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify(['1', '1', 'metrics', 'phx_join', { topics: [{ topic: '*' }] }])));
    ws.on('close', () => {
      if (!stats.finished) stats.closedEarly++;
    });
    ws.on('message', (data: Buffer) => {
      const received = performance.timeOrigin + performance.now();
      const at = data.indexOf(MARK);
      if (at < 0) return;
      if (!joined) {
        joined = true;
        resolve(ws);
        return;
      }
      if (!stats.measuring) return;
      const start = at + MARK.length;
      const end = data.indexOf(0x7d /* } */, start);
      stats.latencies.push(received - Number(data.toString('latin1', start, end)));
      stats.dataMessages++;
    });
  });
}

function line(label: string, figure: string, target: string, ok: boolean): string {
  return `  ${label.padEnd(30)} ${figure.padEnd(26)} target ${target.padEnd(10)} ${ok ? 'ok' : 'MISSED'}`;
}

async function runOnce(clientCount: number, quiet: boolean) {
  const server = new ServerChild(quiet);
  const { port } = await server.next('ready');
  const stats: Stats = { measuring: false, latencies: [], dataMessages: 0, closedEarly: 0, finished: false };
  await sleep(SETTLE_S * 1000); // start-up garbage collected, a few ticks published
  const before = await server.ask('memory');

  const clients: WebSocket[] = [];
  const connectStarted = performance.now();
  for (let i = 0; i < clientCount; i += CONNECT_BATCH) {
    const batch = Math.min(CONNECT_BATCH, clientCount - i);
    clients.push(...(await Promise.all(Array.from({ length: batch }, () => connectClient(port, stats)))));
  }
  const connectMs = performance.now() - connectStarted;
  // Phoenix clients heartbeat every 30 s; so do these, or the server closes them as idle.
  const heartbeat = setInterval(() => {
    for (const ws of clients) ws.send('[null,"hb","phoenix","heartbeat",{}]');
  }, 30_000);

  await sleep(WARMUP_S * 1000);
  await server.ask('cpu'); // starts the CPU window
  stats.measuring = true;
  await sleep(MEASURE_S * 1000);
  stats.measuring = false;
  const cpu = await server.ask('cpu');
  // Memory last, in steady state: right after the connect burst V8's young generation is
  // still at the size the burst grew it to.
  const after = await server.ask('memory');

  clearInterval(heartbeat);
  stats.finished = true;
  for (const ws of clients) ws.terminate();
  await server.stop();
  return report({ stats, cpu, before, after, connectMs, clientCount, quiet });
}

async function main(): Promise<void> {
  pinProcess(process.pid, LOAD_CORE);
  const runs: Array<Awaited<ReturnType<typeof runOnce>>> = [];
  for (let run = 0; run < RUNS; run++) runs.push(await runOnce(CLIENTS, false));
  const quiet = await runOnce(QUIET_CLIENTS, true);
  const list = (key: 'p99' | 'cpuPercent', digits: number) => runs.map((r) => r[key].toFixed(digits)).join(' / ');
  tableRow({
    figure: `stream, ${CLIENTS} clients: p99 (${RUNS} runs)`,
    value: `${list('p99', 1)} ms`,
    anchor: `fan-out per tick p50 ${runs.map((r) => r.fanOutP50.toFixed(1)).join(' / ')} ms`,
    target: `< ${TARGETS.p99Ms} ms each`,
    met: runs.every((r) => r.p99 < TARGETS.p99Ms),
  });
  tableRow({
    figure: `stream, ${CLIENTS} clients: server CPU`,
    value: `${list('cpuPercent', 2)} % of a core`,
    anchor: '',
    target: `< ${TARGETS.cpuPercent} % each`,
    met: runs.every((r) => r.cpuPercent < TARGETS.cpuPercent),
  });
  tableRow({
    figure: `stream, ${QUIET_CLIENTS} clients, quiet site: server CPU`,
    value: `${quiet.cpuPercent.toFixed(2)} % of a core`,
    anchor: `${CLIENTS} clients, 120 topics at 1 Hz: ${runs[0]!.cpuPercent.toFixed(2)} %`,
    target: 'flat (heartbeat replies only)',
  });
}

type Memory = Extract<BenchReply, { type: 'memory' }>;

function report(run: {
  stats: Stats;
  cpu: Extract<BenchReply, { type: 'cpu' }>;
  before: Memory;
  after: Memory;
  connectMs: number;
  clientCount: number;
  quiet: boolean;
}) {
  const CLIENTS = run.clientCount;
  const { stats, cpu, before, after } = run;
  const sorted = stats.latencies.sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  const p99 = percentile(sorted, 99);
  const cpuPercent = (cpu.cpuMicros * 1000 * 100) / Number(cpu.wallNanos);
  const perClientKb = (bytes: number) => bytes / 1024 / CLIENTS;
  const rssKb = perClientKb(after.rss - before.rss);
  const youngMb = (after.newSpace - before.newSpace) / 1048576;
  const rssExYoungKb = perClientKb(after.rss - after.newSpace - (before.rss - before.newSpace));
  const heapKb = perClientKb(after.heapUsed - before.heapUsed);
  const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

  console.log(
    `\nWebSocket benchmark: ${CLIENTS} clients x ${TOPIC_COUNT} topics ${run.quiet ? 'on a quiet site (no changes)' : 'at 1 Hz'}, every client joined to all topics (vsn 2.0.0)`,
  );
  console.log(
    `  ${CLIENTS} clients connected and joined in ${(run.connectMs / 1000).toFixed(1)} s; measured ${MEASURE_S} s: ${cpu.ticks} ticks, ` +
      `${stats.dataMessages} of ${cpu.ticks * CLIENTS} data messages received, ${stats.closedEarly} sockets closed early`,
  );
  if (!run.quiet)
    console.log(
      line(
        'latency publish -> receipt',
        `p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`,
        `p99 < ${TARGETS.p99Ms} ms`,
        p99 < TARGETS.p99Ms,
      ),
    );
  const fanOut = [...cpu.fanOutMs].sort((a, b) => a - b);
  if (fanOut.length > 0)
    console.log(
      `  server side of it: publish + fan-out to ${CLIENTS} sockets p50 ${percentile(fanOut, 50).toFixed(1)} ms, max ${fanOut.at(-1)!.toFixed(1)} ms per tick`,
    );
  console.log(
    line(
      'server CPU',
      `${cpuPercent.toFixed(2)} % of one core`,
      `< ${TARGETS.cpuPercent} %`,
      cpuPercent < TARGETS.cpuPercent,
    ),
  );
  console.log(
    line(
      'server RSS growth per client',
      `${rssKb.toFixed(1)} KB (JS heap ${heapKb.toFixed(1)} KB)`,
      `< ${TARGETS.kbPerClient} KB`,
      rssKb < TARGETS.kbPerClient,
    ),
  );
  // V8 sizes its young generation by allocation rate (up to 16 MB per semi-space) and shrinks
  // it when idle; a change there is not memory the clients hold, so it is shown apart.
  console.log(
    `  server RSS ${mb(before.rss)} without clients, ${mb(after.rss)} with ${after.clients}; V8's young generation changed by ` +
      `${youngMb.toFixed(1)} MB of that (${rssExYoungKb.toFixed(1)} KB per client without it)`,
  );
  return { p50, p99, cpuPercent, fanOutP50: fanOut.length > 0 ? percentile(fanOut, 50) : NaN };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

await main();
