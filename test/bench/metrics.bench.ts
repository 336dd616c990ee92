// npm run bench: GET /api/v1/metrics throughput against a bare node:http server building the
// same JSON per request, RSS after start, and time from start to first answer. A third server,
// the ceiling, sends the same bytes as one cached Buffer from a bare node:http handler: no
// server can do better on this machine, so ceiling / bare bounds the ratio reachable here
// (the load generator shares the cores). The CPU share of each server under load says which
// side is saturated: a server below 100 % of a core is waiting for the load generator.
// BENCH_RUNS (default 3) alternates the two loads that many times and reports the medians, as
// a busy machine makes single runs vary; BENCH_DURATION_S sets the length of each load.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { basicAuth, cpuMsOf, median, row, rssOf, startServerProcess } from './support.js';
import { readFileSync } from 'node:fs';

const PASSWORD = 'bench-password';
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

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

async function load(url: string, headers: Record<string, string>, durationS = DURATION_S): Promise<number> {
  const result = await autocannon({ url, connections: 10, duration: durationS, headers });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.average;
}

/** Requests per second and the server's CPU share of one core (%) during one load. */
async function measured(pid: number, url: string, headers: Record<string, string>) {
  const cpuBefore = cpuMsOf(pid);
  const wallBefore = performance.now();
  const rps = await load(url, headers);
  const cpu = (100 * (cpuMsOf(pid) - cpuBefore)) / (performance.now() - wallBefore);
  return { rps, cpu };
}

/** Starts bare-server.js (`cached` for the ceiling) on the snapshot file; resolves its URL. */
async function startBare(snapshotFile: string, mode: 'json' | 'cached') {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('./bare-server.js', import.meta.url)), snapshotFile, mode],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /^listening on (\S+)$/.exec(line);
      if (match) resolve(`${match[1]}/api/v1/metrics`);
    });
  });
  return { child, url };
}

async function main(): Promise<void> {
  const server = await startServerProcess({ plugins, password: PASSWORD });
  const auth = { authorization: basicAuth(PASSWORD) };
  let first: Response;
  for (;;) {
    first = await fetch(`${server.url}/api/v1/metrics`, { headers: auth });
    if (first.ok) break;
  }
  const firstAnswerMs = performance.now() - server.startedAt;
  const snapshot = (await first.json()) as unknown[];
  const rss = rssOf(server.child.pid!);
  // Resident memory is mostly the node binary's own pages (shared, clean, dropped first
  // under memory pressure) plus this process's private (anonymous) memory: shown apart.
  const status = readFileSync(`/proc/${server.child.pid!}/status`, 'utf8');
  const kbOf = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]);

  const snapshotFile = join(mkdtempSync(join(tmpdir(), 'heliograph-bench-')), 'snapshot.json');
  writeFileSync(snapshotFile, JSON.stringify(snapshot));
  const bare = await startBare(snapshotFile, 'json');
  const ceiling = await startBare(snapshotFile, 'cached');
  const heliographUrl = `${server.url}/api/v1/metrics`;

  // The servers warm up (JIT, caches) before anything counts: the first seconds of load
  // measured the compiler more than the server.
  await load(bare.url, {}, 2);
  await load(ceiling.url, {}, 2);
  await load(heliographUrl, auth, 2);
  const bareRuns: number[] = [];
  const ceilingRuns: number[] = [];
  const heliographRuns: number[] = [];
  const ceilingCpu: number[] = [];
  const heliographCpu: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    bareRuns.push(await load(bare.url, {}));
    const top = await measured(ceiling.child.pid!, ceiling.url, {});
    ceilingRuns.push(top.rps);
    ceilingCpu.push(top.cpu);
    const ours = await measured(server.child.pid!, heliographUrl, auth);
    heliographRuns.push(ours.rps);
    heliographCpu.push(ours.cpu);
  }
  const bareRps = median(bareRuns);
  const heliographRps = median(heliographRuns);
  const ratios = bareRuns.map((bareRun, i) => heliographRuns[i]! / bareRun);
  const ceilingRatios = bareRuns.map((bareRun, i) => ceilingRuns[i]! / bareRun);
  bare.child.kill('SIGTERM');
  ceiling.child.kill('SIGTERM');
  await server.stop();

  const each = (values: number[], digits: number) => values.map((v) => v.toFixed(digits)).join(' ');
  console.log(
    `\nGET /api/v1/metrics, ${snapshot.length} topics, authenticated, ${DURATION_S} s each, 10 connections, median of ${RUNS} runs`,
  );
  row('bare node:http (JSON per request) req/s', bareRps.toFixed(0));
  row('Heliograph req/s', heliographRps.toFixed(0));
  row('ratio Heliograph / bare (median of paired runs)', median(ratios).toFixed(2) + 'x', '>= 2.5x');
  console.log(`  runs: bare ${each(bareRuns, 0)}; Heliograph ${each(heliographRuns, 0)}; ratios ${each(ratios, 2)}`);
  row('ceiling (cached Buffer, bare node:http) req/s', median(ceilingRuns).toFixed(0));
  row('ratio ceiling / bare: the most reachable here', median(ceilingRatios).toFixed(2) + 'x');
  row('Heliograph / ceiling', (heliographRps / median(ceilingRuns)).toFixed(2));
  row('CPU of one core under load: Heliograph', median(heliographCpu).toFixed(0) + ' %');
  row('CPU of one core under load: ceiling', median(ceilingCpu).toFixed(0) + ' %');
  row('RSS after start', (rss / 1024 / 1024).toFixed(1) + ' MB', '< 64 MB');
  console.log(
    `  of which private (RssAnon) ${(kbOf('RssAnon') / 1024).toFixed(1)} MB, file-backed (RssFile: the node binary, libraries) ${(kbOf('RssFile') / 1024).toFixed(1)} MB`,
  );
  row('start to listening line', server.listeningAfterMs.toFixed(0) + ' ms');
  row('start to first answer', firstAnswerMs.toFixed(0) + ' ms', '< 1000 ms');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
