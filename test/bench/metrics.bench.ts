// npm run bench: GET /api/v1/metrics through `heliograph serve` as `npm start` runs it (its
// node flags, Host checks, auth), for a password client (Basic) and a read-token client
// (Bearer), beside two anchors serving the same bytes from a bare node:http server in the same
// run: the JSON built per request, and one cached Buffer (the ceiling: no server does better
// on this machine). With taskset the servers run on one core and the load generator
// (autocannon, its own process) on the other, so the figure is the server's, not the
// generator's. BENCH_RUNS (default 3) alternates the four loads that many times and reports
// medians; BENCH_DURATION_S sets the length of each load.
import { readFileSync } from 'node:fs';
import { load, makeClients, startBare, tableRow } from './shipped.js';
import { basicAuth, cpuMsOf, median, PINNED, row, rssOf, SHIPPED_NODE, startServerProcess } from './support.js';

const PASSWORD = 'bench-password';
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 4);

// 8 inverters and 2 batteries: about 120 topics with totals and the demo forecast.
const plugins = {
  plugins: [
    {
      id: 'sim',
      plugin: 'simulator',
      devices: [
        'inverter_1',
        'inverter_2',
        'inverter_3',
        'inverter_4',
        'inverter_5',
        'inverter_6',
        'inverter_7',
        'inverter_8',
        'battery_1',
        'battery_2',
      ],
      config: { pollIntervalMs: 1000 },
    },
  ],
};

/** Requests per second, p99 and the server's CPU share of one core (%) during one load. */
async function measured(pid: number, url: string, headers: Record<string, string>) {
  const cpuBefore = cpuMsOf(pid);
  const wallBefore = performance.now();
  const result = await load(url, headers, DURATION_S);
  const cpu = (100 * (cpuMsOf(pid) - cpuBefore)) / (performance.now() - wallBefore);
  return { ...result, cpu };
}

async function main(): Promise<void> {
  const server = await startServerProcess({ plugins, password: PASSWORD });
  let first: Response;
  for (;;) {
    first = await fetch(`${server.url}/api/v1/metrics`, { headers: { authorization: basicAuth(PASSWORD) } });
    if (first.ok) break;
  }
  const firstAnswerMs = performance.now() - server.startedAt;
  const clients = await makeClients(server.url, PASSWORD);
  const snapshot = (await first.json()) as unknown[];
  const rss = rssOf(server.child.pid!);
  const status = readFileSync(`/proc/${server.child.pid!}/status`, 'utf8');
  const kbOf = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]);

  const bare = await startBare(snapshot, 'json');
  const ceiling = await startBare(snapshot, 'cached');
  const url = `${server.url}/api/v1/metrics`;
  const loads = {
    bare: { pid: bare.child.pid!, url: `${bare.url}/api/v1/metrics`, headers: {} },
    ceiling: { pid: ceiling.child.pid!, url: `${ceiling.url}/api/v1/metrics`, headers: {} },
    basic: { pid: server.child.pid!, url, headers: clients.basic },
    token: { pid: server.child.pid!, url, headers: clients.token },
  };
  type Name = keyof typeof loads;
  const names = Object.keys(loads) as Name[];
  // Warm-up (JIT, caches) before anything counts.
  for (const name of names) await load(loads[name].url, loads[name].headers, 2);
  const runs = Object.fromEntries(names.map((n) => [n, [] as Array<Awaited<ReturnType<typeof measured>>>])) as Record<
    Name,
    Array<Awaited<ReturnType<typeof measured>>>
  >;
  // The order turns with each run, so no load always comes first or last on a machine whose
  // other work comes and goes.
  for (let run = 0; run < RUNS; run++)
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + run) % names.length]!;
      runs[name].push(await measured(loads[name].pid, loads[name].url, loads[name].headers));
    }
  await bare.stop();
  await ceiling.stop();
  await server.stop();

  const med = (name: Name, key: 'rps' | 'p99' | 'cpu') => median(runs[name].map((r) => r[key]));
  const ratio = (a: Name, b: Name) => median(runs[a].map((r, i) => r.rps / runs[b][i]!.rps));
  console.log(
    `\nGET /api/v1/metrics, ${snapshot.length} topics, ${DURATION_S} s each, 10 connections, median of ${RUNS} runs; ` +
      `${SHIPPED_NODE}; ${PINNED ? 'server and load generator pinned to their own cores' : 'NOT pinned (no taskset)'}`,
  );
  for (const name of names)
    row(
      `${name.padEnd(8)} req/s, p99, CPU of its core`,
      `${med(name, 'rps').toFixed(0)}  ${med(name, 'p99').toFixed(0)} ms  ${med(name, 'cpu').toFixed(0)} %`,
    );
  const each = (name: Name) => runs[name].map((r) => r.rps.toFixed(0)).join(' ');
  console.log(`  runs: ${names.map((n) => `${n} ${each(n)}`).join('; ')}`);
  row('token / password (paired runs)', ratio('token', 'basic').toFixed(2) + 'x', '>= 0.95x');
  row('password / ceiling', ratio('basic', 'ceiling').toFixed(2) + 'x', '>= 0.6x');
  row('token / ceiling', ratio('token', 'ceiling').toFixed(2) + 'x', '>= 0.6x');
  row('token / bare (JSON per request)', ratio('token', 'bare').toFixed(2) + 'x');
  row('RSS after start', (rss / 1024 / 1024).toFixed(1) + ' MB');
  console.log(
    `  of which private (RssAnon) ${(kbOf('RssAnon') / 1024).toFixed(1)} MB, file-backed (RssFile) ${(kbOf('RssFile') / 1024).toFixed(1)} MB`,
  );
  row('start to first answer', firstAnswerMs.toFixed(0) + ' ms', '< 500 ms');
  const anchor = `ceiling ${med('ceiling', 'rps').toFixed(0)}/s, bare ${med('bare', 'rps').toFixed(0)}/s`;
  tableRow({
    figure: 'snapshot, password: req/s (p99)',
    value: `${med('basic', 'rps').toFixed(0)} (${med('basic', 'p99').toFixed(0)} ms), ${ratio('basic', 'ceiling').toFixed(2)}x ceiling`,
    anchor,
    target: '>= 0.6x ceiling',
    met: ratio('basic', 'ceiling') >= 0.6,
  });
  tableRow({
    figure: 'snapshot, token: req/s (p99)',
    value: `${med('token', 'rps').toFixed(0)} (${med('token', 'p99').toFixed(0)} ms), ${ratio('token', 'basic').toFixed(2)}x password, ${ratio('token', 'ceiling').toFixed(2)}x ceiling`,
    anchor,
    target: '>= 0.95x password, >= 0.6x ceiling',
    met: ratio('token', 'basic') >= 0.95 && ratio('token', 'ceiling') >= 0.6,
  });
  tableRow({
    figure: 'snapshot service: start to first answer',
    value: `${firstAnswerMs.toFixed(0)} ms`,
    anchor: '',
    target: '< 500 ms',
    met: firstAnswerMs < 500,
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
