// npm run bench:memory: the demo as a user first meets it. `heliograph serve` as `npm start`
// runs it with the checkout's own plugins.json (the simulator with its 7-day backfill), and
// beside it, in the same run and on the same core, the same devices without backfill (started
// first, so the two starts do not share the core), a bare node:http process (the floor of
// any node service) and the packages the design names, each used once and nothing of the
// service's own code (packages-floor.ts: the floor of any service built on them). Prints RSS 60 s after start (its private and file-backed parts), the CPU
// each used after its first answer, and for the demo's first minute: when today's totals (the
// README's Quick start curl) are above 0 and when the backfill's progress (GET /api/v1/plugins)
// reached its end. Start to "listening on" and to first answer are measured before, by starts
// of their own as a restarted service makes them: the owner's password and a Home Assistant
// token made before, the first answer a token holder's (the password's first check adds one
// scrypt). BENCH_MEMORY_S sets the 60 s.
import { loadAverage, startBare, startPackagesFloor, tableRow } from './shipped.js';
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
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PASSWORD = 'bench-password';
const AFTER_S = Number(process.env.BENCH_MEMORY_S ?? 60);

interface PluginsFile {
  plugins: Array<{ plugin?: string; config?: Record<string, unknown> }>;
}

/**
 * The first 200 from GET /api/v1/metrics with `authorization`, polled from the "listening on"
 * line: ms from the start, and the service's CPU until then.
 */
async function firstAnswer(server: ServerProcess, authorization: string): Promise<{ ms: number; cpuMs: number }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${server.url}/api/v1/metrics`, { headers: { authorization } });
    await res.arrayBuffer();
    if (res.ok) return { ms: performance.now() - server.startedAt, cpuMs: cpuMsOf(server.child.pid!) };
    if (Date.now() > deadline) throw new Error(`no answer from ${server.url} within 30 s: ${res.status}`);
  }
}

/**
 * A data directory as an installed service has it before a start: the owner's password set
 * and a token made for Home Assistant, by a start of its own with no plugins (so the demo's
 * start that follows is still its first, with the whole backfill). Returns the token's header.
 */
async function preparedDataDir(data: string): Promise<string> {
  const setup = await startServerProcess({ plugins: { plugins: [] }, password: PASSWORD, data });
  const res = await fetch(`${setup.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { authorization: basicAuth(PASSWORD), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'home assistant', scope: 'read' }),
  });
  if (res.status !== 201) throw new Error(`POST /api/v1/tokens answered ${res.status}: ${await res.text()}`);
  const { token } = (await res.json()) as { token: string };
  await setup.stop();
  return `Bearer ${token}`;
}

/**
 * Watches the demo's first minute from outside, as a user would (a request every 250 ms):
 * ms from start until total/load_energy is above 0 and until the backfill's progress is done.
 */
async function watchFirstMinute(
  server: ServerProcess,
  untilMs: number,
): Promise<{ todayMs: number | null; backfilledMs: number | null }> {
  const headers = { authorization: basicAuth(PASSWORD) };
  let todayMs: number | null = null;
  let backfilledMs: number | null = null;
  while ((todayMs === null || backfilledMs === null) && performance.now() - server.startedAt < untilMs) {
    const since = () => performance.now() - server.startedAt;
    if (todayMs === null) {
      const metrics = (await (
        await fetch(`${server.url}/api/v1/metrics?topic=total/load_energy`, { headers })
      ).json()) as Array<{ value: unknown }>;
      if (typeof metrics[0]?.value === 'number' && metrics[0].value > 0) todayMs = since();
    }
    if (backfilledMs === null) {
      const plugins = (await (await fetch(`${server.url}/api/v1/plugins`, { headers })).json()) as Array<{
        progress?: { done: number; total: number } | null;
      }>;
      if (plugins.some((p) => p.progress && p.progress.done >= p.progress.total)) backfilledMs = since();
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { todayMs, backfilledMs };
}

/** A part of a process's RSS from /proc (RssAnon: private, RssFile: file-backed, the node binary's pages among them). */
const rssPartOf = (pid: number, part: 'RssAnon' | 'RssFile') =>
  Number(new RegExp(`${part}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

/** A process's RSS and its private and file-backed parts, bytes. */
const memoryOf = (pid: number) => ({
  rss: rssOf(pid),
  anon: rssPartOf(pid, 'RssAnon'),
  file: rssPartOf(pid, 'RssFile'),
});

async function main(): Promise<void> {
  const demo = JSON.parse(readFileSync(join(REPO_ROOT, 'plugins.json'), 'utf8')) as PluginsFile;
  const plain: PluginsFile = {
    // Only the plugins that backfill take the option (the planner's config refuses unknown keys).
    plugins: demo.plugins.map((p) =>
      p.config && 'backfill_days' in p.config ? { ...p, config: { ...p.config, backfill_days: 0 } } : p,
    ),
  };
  // The start as a restarted service makes it, one after the other: on a data directory with
  // the password and a token already made, the first answer a token holder's (Home
  // Assistant's poll); a caller with the password waits for one password check more, scrypt's
  // cost by design (auth/password-hash.ts), asked right after it. The server answers from its
  // "listening on" line (its plugins load after it): the CPU to that line is read as soon as
  // it is seen.
  const restarted = async (plugins: PluginsFile) => {
    const data = mkdtempSync(join(tmpdir(), 'heliograph-bench-data-'));
    const token = await preparedDataDir(data);
    const server = await startServerProcess({ plugins, data });
    const listenCpuMs = cpuMsOf(server.child.pid!);
    const byToken = await firstAnswer(server, token);
    const byPassword = await firstAnswer(server, basicAuth(PASSWORD));
    await server.stop();
    return { listenCpuMs, listenMs: server.listeningAfterMs, byToken, byPassword };
  };
  const startPlain = await restarted(plain);
  const start = await restarted(demo);
  // The demo as a user first meets it, on fresh data directories: one after the other, so
  // neither start shares the core with the other's backfill; each sampled AFTER_S after its
  // own start.
  const without = await startServerProcess({ plugins: plain, password: PASSWORD });
  const firstPlain = await firstAnswer(without, basicAuth(PASSWORD));
  const withBackfill = await startServerProcess({ plugins: demo, password: PASSWORD });
  const first = await firstAnswer(withBackfill, basicAuth(PASSWORD));
  const firstMinute = watchFirstMinute(withBackfill, AFTER_S * 1000 - 2000);
  const bare = await startBare({}, 'cached');
  const floor = await startPackagesFloor();
  const sample = async (s: ServerProcess) => {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, s.startedAt + AFTER_S * 1000 - performance.now())));
    const pid = s.child.pid!;
    return { ...memoryOf(pid), cpuAfterFirst: cpuMsOf(pid) };
  };
  const b = await sample(without);
  const a = await sample(withBackfill);
  const { todayMs, backfilledMs } = await firstMinute;
  const bareMemory = memoryOf(bare.child.pid!);
  const floorMemory = memoryOf(floor.child.pid!);
  await Promise.all([withBackfill.stop(), without.stop(), bare.stop(), floor.stop()]);
  const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;
  console.log(
    `\nthe demo (checkout's plugins.json), ${AFTER_S} s after start; ${SHIPPED_NODE}; load average ${loadAverage()}`,
  );
  const parts = (m: { anon: number; file: number }) => `(private ${mb(m.anon)}, file-backed ${mb(m.file)})`;
  row('RSS with the 7-day backfill', `${mb(a.rss)} ${parts(a)}`, '<= 80 MB');
  row('RSS without backfill', `${mb(b.rss)} ${parts(b)}`);
  row('difference', mb(a.rss - b.rss), '<= 3 MB');
  row('bare node:http process', `${mb(bareMemory.rss)} ${parts(bareMemory)}`);
  row('the named packages, each used once', `${mb(floorMemory.rss)} ${parts(floorMemory)}`);
  row(
    'CPU after first answer, with / without backfill',
    `${((a.cpuAfterFirst - first.cpuMs) / 1000).toFixed(1)} s / ${((b.cpuAfterFirst - firstPlain.cpuMs) / 1000).toFixed(1)} s`,
  );
  row(
    'start to first answer (a token), with / without backfill',
    `${start.byToken.ms.toFixed(0)} ms / ${startPlain.byToken.ms.toFixed(0)} ms`,
    '< 500 ms',
  );
  row(
    'start to the first answer to the password, with / without backfill',
    `${start.byPassword.ms.toFixed(0)} ms / ${startPlain.byPassword.ms.toFixed(0)} ms`,
  );
  // CPU time, unlike the wall clock, hardly moves with what else the machine runs: it is what
  // one quiet core would take to the first answer.
  row(
    'CPU to first answer (a token), with / without backfill',
    `${start.byToken.cpuMs} ms / ${startPlain.byToken.cpuMs} ms`,
  );
  row(
    'CPU to "listening on", with / without backfill',
    `${start.listenCpuMs} ms / ${startPlain.listenCpuMs} ms (${start.listenMs.toFixed(0)} / ${startPlain.listenMs.toFixed(0)} ms wall)`,
  );
  const seconds = (ms: number | null) => (ms === null ? `not within ${AFTER_S} s` : `${(ms / 1000).toFixed(1)} s`);
  row("today's totals above 0 (total/load_energy) after start", seconds(todayMs), '~1 s');
  row('backfill progress at its end after start', seconds(backfilledMs));
  tableRow({
    figure: `demo RSS ${AFTER_S} s after start, 7-day backfill`,
    value: `${mb(a.rss)}, ${mb(a.rss - b.rss)} above no backfill`,
    anchor: `no backfill ${mb(b.rss)}, bare node:http ${mb(bareMemory.rss)}, the named packages alone ${mb(floorMemory.rss)}`,
    target: '<= 80 MB, <= 3 MB above',
    met: a.rss <= 80 * 1048576 && a.rss - b.rss <= 3 * 1048576,
  });
  tableRow({
    figure: 'demo start to first answer',
    value: `${start.byToken.ms.toFixed(0)} ms`,
    anchor: `no backfill ${startPlain.byToken.ms.toFixed(0)} ms`,
    target: '< 500 ms',
    met: start.byToken.ms < 500,
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
