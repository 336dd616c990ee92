// npm run bench: GET /api/v1/metrics throughput against a bare node:http server building the
// same JSON per request, RSS after start, and time from start to first answer.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { basicAuth, row, rssOf, startServerProcess } from './support.js';

const PASSWORD = 'bench-password';
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);

// 8 inverters and 2 batteries: about 120 topics with totals and the demo forecast.
const plugins = {
  plugins: [
    {
      id: 'sim',
      plugin: 'simulator',
      devices: ['inverter_1', 'inverter_2', 'inverter_3', 'inverter_4', 'inverter_5', 'inverter_6', 'inverter_7', 'inverter_8', 'battery_1', 'battery_2'],
      config: { pollIntervalMs: 1000 },
    },
  ],
};

async function load(url: string, headers: Record<string, string>): Promise<number> {
  const result = await autocannon({ url, connections: 10, duration: DURATION_S, headers });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.average;
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

  const snapshotFile = join(mkdtempSync(join(tmpdir(), 'heliograph-bench-')), 'snapshot.json');
  writeFileSync(snapshotFile, JSON.stringify(snapshot));
  const bare = spawn(process.execPath, [fileURLToPath(new URL('./bare-server.js', import.meta.url)), snapshotFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const bareUrl = await new Promise<string>((resolve) => {
    createInterface({ input: bare.stdout! }).on('line', (line) => {
      const match = /^listening on (\S+)$/.exec(line);
      if (match) resolve(`${match[1]}/api/v1/metrics`);
    });
  });

  const bareRps = await load(bareUrl, {});
  const heliographRps = await load(`${server.url}/api/v1/metrics`, auth);
  bare.kill('SIGTERM');
  await server.stop();

  console.log(`\nGET /api/v1/metrics, ${snapshot.length} topics, authenticated, ${DURATION_S} s each, 10 connections`);
  row('bare node:http (JSON per request) req/s', bareRps.toFixed(0));
  row('Heliograph req/s', heliographRps.toFixed(0));
  row('ratio Heliograph / bare', (heliographRps / bareRps).toFixed(2) + 'x', '>= 1.5x');
  row('RSS after start', (rss / 1024 / 1024).toFixed(1) + ' MB', '< 80 MB');
  row('start to listening line', server.listeningAfterMs.toFixed(0) + ' ms');
  row('start to first answer', firstAnswerMs.toFixed(0) + ' ms', '< 1000 ms');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
