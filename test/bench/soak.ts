/**
 * `npm run soak [-- MINUTES]`: the service under steady load for a long time, to see that it
 * stays flat. 1 000 GET /api/v1/metrics a second plus 200 WebSocket clients joined to the
 * metrics channel, a few of which leave and are replaced every second (churn). Every minute
 * it prints the server's RSS, open file descriptors, and the p99 of HTTP answers and of
 * WebSocket joins; at the end, how RSS and descriptors moved after the first minute.
 *
 * Loopback only; stops by itself after the duration (default 30 min). Settings by
 * environment: SOAK_MINUTES (or the first argument), SOAK_RPS, SOAK_WS_CLIENTS,
 * SOAK_CHURN_PER_S, SOAK_REPORT_S (seconds between report lines, default 60).
 */
import { readdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { WebSocket } from 'ws';
import { basicAuth, rssOf, startServerProcess } from './support.js';
import { Window } from './soak-window.js';

const PASSWORD = 'soak-password';
const MINUTES = Number(process.argv[2] ?? process.env.SOAK_MINUTES ?? 30);
const RPS = Number(process.env.SOAK_RPS ?? 1000);
const WS_CLIENTS = Number(process.env.SOAK_WS_CLIENTS ?? 200);
const CHURN_PER_S = Number(process.env.SOAK_CHURN_PER_S ?? 2);
const REPORT_S = Number(process.env.SOAK_REPORT_S ?? 60);
/** Requests in flight beyond which the load generator skips (and counts) a request instead of queueing it. */
const MAX_IN_FLIGHT = 256;
const TICK_MS = 10;
/** What each client subscribes to, in turn: everything, a device, the totals. */
const FILTERS = ['*', 'inverter_1/*', 'total/*'];

const plugins = {
  plugins: [
    {
      id: 'sim',
      plugin: 'simulator',
      devices: ['inverter_1', 'inverter_2', 'inverter_3', 'inverter_4', 'battery_1'],
      config: { pollIntervalMs: 1000 },
    },
  ],
};

interface Client {
  ws: WebSocket;
  joined: boolean;
}

async function main(): Promise<void> {
  for (const [name, value] of Object.entries({ MINUTES, RPS, WS_CLIENTS, CHURN_PER_S, REPORT_S })) {
    if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got ${value}`);
  }
  const server = await startServerProcess({ plugins, password: PASSWORD });
  const pid = server.child.pid!;
  const { port } = new URL(server.url);
  const window = new Window();
  const rssPerReport: number[] = [];
  const fdsPerReport: number[] = [];

  // HTTP: RPS spread over 10-ms ticks on keep-alive sockets.
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const headers = { authorization: basicAuth(PASSWORD) };
  let inFlight = 0;
  let owed = 0;
  const fire = () => {
    if (inFlight >= MAX_IN_FLIGHT) return void window.httpSkipped++;
    inFlight++;
    const t0 = performance.now();
    const req = request(`${server.url}/api/v1/metrics`, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        inFlight--;
        if (res.statusCode === 200) window.http.push(performance.now() - t0);
        else window.httpErrors++;
      });
    });
    req.on('error', () => {
      inFlight--;
      window.httpErrors++;
    });
    req.end();
  };
  let lastTick = performance.now();
  const httpTimer = setInterval(() => {
    const now = performance.now();
    owed += (RPS * (now - lastTick)) / 1000;
    lastTick = now;
    for (; owed >= 1; owed--) fire();
  }, TICK_MS);

  // WebSocket: WS_CLIENTS joined clients, CHURN_PER_S of them replaced every second.
  const clients = new Set<Client>();
  let serial = 0;
  const connect = () => {
    const filter = FILTERS[serial++ % FILTERS.length]!;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/websocket?password=${PASSWORD}&vsn=2.0.0`, {
      perMessageDeflate: false,
    });
    const client: Client = { ws, joined: false };
    clients.add(client);
    const t0 = performance.now();
    ws.on('open', () => ws.send(JSON.stringify(['1', '1', 'metrics', 'phx_join', { topics: [{ topic: filter }] }])));
    ws.on('message', (data: Buffer) => {
      window.wsMessages++;
      if (!client.joined && data.includes('"phx_reply"') && data.includes('"ok"')) {
        client.joined = true;
        window.joins.push(performance.now() - t0);
      }
    });
    ws.on('error', () => window.wsErrors++);
    ws.on('close', () => clients.delete(client));
  };
  for (let i = 0; i < WS_CLIENTS; i++) connect();
  let churnTurn = 0;
  const churnTimer = setInterval(() => {
    const joined = [...clients].filter((c) => c.joined);
    for (let i = 0; i < CHURN_PER_S && joined.length > 0; i++) {
      const victim = joined.splice((churnTurn * 7919) % joined.length, 1)[0]!;
      // Half leave politely, half vanish (a phone losing Wi-Fi): both must be cleaned up.
      if (churnTurn++ % 2 === 0) victim.ws.close(1000);
      else victim.ws.terminate();
    }
    for (let missing = WS_CLIENTS - clients.size; missing > 0; missing--) connect();
  }, 1000);
  const heartbeat = setInterval(() => {
    for (const { ws } of clients) if (ws.readyState === WebSocket.OPEN) ws.send('[null,"hb","phoenix","heartbeat",{}]');
  }, 30_000);

  console.log(
    `soak: ${MINUTES} min against ${server.url}: ${RPS} GET /api/v1/metrics per s, ${WS_CLIENTS} WebSocket clients, ${CHURN_PER_S} replaced per s; a line every ${REPORT_S} s`,
  );
  console.log(Window.HEADER);
  const started = performance.now();
  const reports = Math.max(1, Math.round((MINUTES * 60) / REPORT_S));
  for (let n = 1; n <= reports; n++) {
    await new Promise((resolve) => setTimeout(resolve, started + n * REPORT_S * 1000 - performance.now()));
    const rss = rssOf(pid);
    const fds = readdirSync(`/proc/${pid}/fd`).length;
    rssPerReport.push(rss);
    fdsPerReport.push(fds);
    console.log(
      window.line((performance.now() - started) / 60_000, rss, fds, [...clients].filter((c) => c.joined).length),
    );
    window.reset();
  }

  clearInterval(httpTimer);
  clearInterval(churnTimer);
  clearInterval(heartbeat);
  for (const { ws } of clients) ws.terminate();
  agent.destroy();
  await server.stop();
  summarize(rssPerReport, fdsPerReport);
}

/** RSS and descriptors after the first report (start-up and warm-up) to the last: flat is the target. */
function summarize(rss: number[], fds: number[]): void {
  const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;
  if (rss.length < 2) {
    console.log(`\nRSS ${mb(rss[0]!)}, ${fds[0]} file descriptors (one report only: run longer to see a trend)`);
    return;
  }
  const steady = rss.slice(1);
  // Least-squares slope over the steady reports, per hour, so noise in one minute does not decide.
  const n = steady.length;
  const meanX = (n - 1) / 2;
  const meanY = steady.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  steady.forEach((y, x) => ((num += (x - meanX) * (y - meanY)), (den += (x - meanX) ** 2)));
  const slopePerHour = (num / den) * (3600 / REPORT_S);
  // A line through two or three points says little: the trend is shown from five on.
  const trend =
    n >= 5
      ? `trend ${slopePerHour >= 0 ? '+' : ''}${(slopePerHour / 1048576).toFixed(1)} MB per hour`
      : 'too few reports for a trend';
  console.log(
    `\nRSS ${mb(rss[1]!)} after the first report, ${mb(rss.at(-1)!)} at the end (min ${mb(Math.min(...steady))}, max ${mb(Math.max(...steady))}); ${trend} (target: flat)`,
  );
  console.log(
    `file descriptors ${fds[1]} after the first report, ${fds.at(-1)} at the end (max ${Math.max(...fds.slice(1))})`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
