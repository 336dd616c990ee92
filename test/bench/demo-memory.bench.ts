// npm run bench:memory: the demo as a user first meets it. `heliograph serve` as `npm start`
// runs it with the checkout's own plugins.json (the simulator with its 7-day backfill), and
// beside it, in the same run and on the same core, the same devices without backfill (started
// first, so the two starts do not share the core) and a bare node:http process (the floor of any node service). Prints RSS 60 s after start (and its
// private part), the CPU each used after its first answer, and start to first answer.
// BENCH_MEMORY_S sets the 60 s.
import { readFileSync } from 'node:fs';
import { startBare, tableRow } from './shipped.js';
import {
  basicAuth,
  cpuMsOf,
  REPO_ROOT,
  row,
  rssOf,
  SHIPPED_NODE,
  startServerProcess,
  type ServerProcess,
} from './support.js';
import { join } from 'node:path';

const PASSWORD = 'bench-password';
const AFTER_S = Number(process.env.BENCH_MEMORY_S ?? 60);

interface PluginsFile {
  plugins: Array<{ plugin?: string; config?: Record<string, unknown> }>;
}

async function firstAnswer(server: ServerProcess): Promise<{ ms: number; cpuMs: number }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${server.url}/api/v1/metrics`, { headers: { authorization: basicAuth(PASSWORD) } });
    await res.arrayBuffer();
    if (res.ok) return { ms: performance.now() - server.startedAt, cpuMs: cpuMsOf(server.child.pid!) };
    if (Date.now() > deadline) throw new Error(`no answer from ${server.url} within 30 s: ${res.status}`);
  }
}

const anonOf = (pid: number) =>
  Number(/RssAnon:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

async function main(): Promise<void> {
  const demo = JSON.parse(readFileSync(join(REPO_ROOT, 'plugins.json'), 'utf8')) as PluginsFile;
  const plain: PluginsFile = {
    // Only the plugins that backfill take the option (the planner's config refuses unknown keys).
    plugins: demo.plugins.map((p) =>
      p.config && 'backfill_days' in p.config ? { ...p, config: { ...p.config, backfill_days: 0 } } : p,
    ),
  };
  // One after the other, so neither start shares the core with the other's backfill; each
  // is sampled AFTER_S after its own start.
  const without = await startServerProcess({ plugins: plain, password: PASSWORD });
  const firstPlain = await firstAnswer(without);
  const withBackfill = await startServerProcess({ plugins: demo, password: PASSWORD });
  const first = await firstAnswer(withBackfill);
  const bare = await startBare({}, 'cached');
  const sample = async (s: ServerProcess) => {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, s.startedAt + AFTER_S * 1000 - performance.now())));
    return { rss: rssOf(s.child.pid!), anon: anonOf(s.child.pid!), cpuAfterFirst: cpuMsOf(s.child.pid!) };
  };
  const b = await sample(without);
  const a = await sample(withBackfill);
  const bareRss = rssOf(bare.child.pid!);
  await Promise.all([withBackfill.stop(), without.stop(), bare.stop()]);
  const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;
  console.log(`\nthe demo (checkout's plugins.json), ${AFTER_S} s after start; ${SHIPPED_NODE}`);
  row('RSS with the 7-day backfill', `${mb(a.rss)} (private ${mb(a.anon)})`, '<= 70 MB');
  row('RSS without backfill', `${mb(b.rss)} (private ${mb(b.anon)})`);
  row('difference', mb(a.rss - b.rss), '<= 3 MB');
  row('bare node:http process', mb(bareRss));
  row(
    'CPU after first answer, with / without backfill',
    `${((a.cpuAfterFirst - first.cpuMs) / 1000).toFixed(1)} s / ${((b.cpuAfterFirst - firstPlain.cpuMs) / 1000).toFixed(1)} s`,
  );
  row(
    'start to first answer, with / without backfill',
    `${first.ms.toFixed(0)} ms / ${firstPlain.ms.toFixed(0)} ms`,
    '< 500 ms',
  );
  tableRow({
    figure: `demo RSS ${AFTER_S} s after start, 7-day backfill`,
    value: `${mb(a.rss)}, ${mb(a.rss - b.rss)} above no backfill`,
    anchor: `no backfill ${mb(b.rss)}, bare node:http ${mb(bareRss)}`,
    target: '<= 70 MB, <= 3 MB above',
    met: a.rss <= 70 * 1048576 && a.rss - b.rss <= 3 * 1048576,
  });
  tableRow({
    figure: 'demo start to first answer',
    value: `${first.ms.toFixed(0)} ms`,
    anchor: `no backfill ${firstPlain.ms.toFixed(0)} ms`,
    target: '< 500 ms',
    met: first.ms < 500,
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
