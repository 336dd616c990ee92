/**
 * `npm run bench:slow-readers`: REST latency of `heliograph serve` as `npm start` runs it
 * (its node flags, Host checks, auth; a simulated site of about 120 topics polled once a
 * second) while 50 WebSocket clients joined to every topic stop reading (such clients once
 * raised REST latency to 1.6 s). A probe asks GET /api/v1/metrics every 20 ms with the
 * password (Basic) and with a read token (Bearer), and in the same round a bare node:http
 * server on the service's core serving the same bytes from one Buffer (the anchor: what the
 * machine itself adds). Prints p50/p99/max of each, with and without the stalled clients,
 * and how many stalled clients the server closed. With taskset the service and the anchor
 * run on one core, the probe and the stalled clients on the other. BENCH_SECONDS (30) is the
 * stalled phase; the phase without stalled clients lasts a third of it.
 */
import { once } from 'node:events';
import { WebSocket } from 'ws';
import { loadAverage, makeClients, simulatorSite, startBare, tableRow } from './shipped.js';
import { basicAuth, LOAD_CORE, PINNED, pinProcess, row, SHIPPED_NODE, startServerProcess } from './support.js';

const STALLED = Number(process.env.BENCH_STALLED ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const PASSWORD = 'bench-password';

interface Probed {
  basic: number[];
  token: number[];
  bare: number[];
}

async function timedGet(url: string, headers: Record<string, string>): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return performance.now() - started;
}

/** One round every 20 ms for `seconds`: the service with each client, then the anchor. */
async function probe(
  seconds: number,
  url: string,
  bareUrl: string,
  clients: Awaited<ReturnType<typeof makeClients>>,
): Promise<Probed> {
  const times: Probed = { basic: [], token: [], bare: [] };
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    times.basic.push(await timedGet(url, clients.basic));
    times.token.push(await timedGet(url, clients.token));
    times.bare.push(await timedGet(bareUrl, {}));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const list of [times.basic, times.token, times.bare]) list.sort((a, b) => a - b);
  return times;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const three = (times: number[]) =>
  `${pct(times, 0.5).toFixed(1)} / ${pct(times, 0.99).toFixed(1)} / ${times[times.length - 1]!.toFixed(1)} ms`;
function show(label: string, probed: Probed): void {
  row(`REST p50/p99/max, ${label}: password`, three(probed.basic));
  row(`REST p50/p99/max, ${label}: token`, three(probed.token));
  row(`  anchor: bare node:http, same bytes`, three(probed.bare));
}

async function main(): Promise<void> {
  // The probe and the stalled clients live here: on the core the service does not use.
  pinProcess(process.pid, LOAD_CORE);
  const server = await startServerProcess({ plugins: simulatorSite(), password: PASSWORD });
  const url = `${server.url}/api/v1/metrics`;
  let first: Response;
  for (;;) {
    first = await fetch(url, { headers: { authorization: basicAuth(PASSWORD) } });
    if (first.ok) break;
  }
  const bare = await startBare(await first.json(), 'cached');
  const clients = await makeClients(server.url, PASSWORD);
  console.log(
    `${SHIPPED_NODE}; ${PINNED ? 'service on core 0, probe on core 1' : 'NOT pinned (no taskset)'}; ` +
      `load average ${loadAverage()}`,
  );

  const calm = await probe(SECONDS / 3, url, bare.url, clients);
  show('0 stalled', calm);

  let closedByServer = 0;
  const stalled: WebSocket[] = [];
  const wsUrl = `${server.url.replace(/^http/, 'ws')}/api/websocket?vsn=2.0.0&password=${encodeURIComponent(PASSWORD)}`;
  for (let i = 0; i < STALLED; i++) {
    const ws = new WebSocket(wsUrl);
    await once(ws, 'open');
    ws.on('close', (code) => code === 4008 && closedByServer++);
    ws.send(JSON.stringify(['1', '1', 'metrics', 'phx_join', { topics: [{ topic: '*' }] }]));
    stalled.push(ws);
  }
  // Stop reading: the kernel buffers fill, then the server's send queue for each socket.
  for (const ws of stalled) (ws as unknown as { _socket: { pause(): void } })._socket.pause();
  const stalledProbe = await probe(SECONDS, url, bare.url, clients);
  show(`${STALLED} stalled`, stalledProbe);
  row('stalled clients closed as too slow (4008)', String(closedByServer));
  const p99 = (times: number[]) => `${pct(times, 0.99).toFixed(1)} ms`;
  tableRow({
    figure: `REST p99, ${STALLED} WebSocket clients not reading`,
    value: `password ${p99(stalledProbe.basic)}, token ${p99(stalledProbe.token)}`,
    anchor: `bare ${p99(stalledProbe.bare)}; none stalled: token ${p99(calm.token)}`,
    target: '-',
  });
  console.log(`load average ${loadAverage()}`);
  for (const ws of stalled) ws.terminate();
  await bare.stop();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
