// What isolating plugins in worker processes costs: the time until N isolated instances run,
// and the resident memory of the server and of each worker process. The plugin is the
// `ticker` fixture loaded as a plugin under development, so it runs isolated by default.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { basicAuth, REPO_ROOT, row, rssOf, startServerProcess } from './support.js';

const INSTANCES = 4;
const PASSWORD = 'bench-password-long';

/** The pids of the processes whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((candidate) => {
      try {
        const fields = readFileSync(`/proc/${candidate}/stat`, 'utf8').split(') ')[1]!.split(' ');
        return Number(fields[1]) === pid;
      } catch {
        return false;
      }
    });
}

const plugins = {
  plugins: Array.from({ length: INSTANCES }, (_, i) => ({
    id: `ticker-${i + 1}`,
    plugin: 'ticker',
    devices: [`inverter_${i + 1}`],
    config: { intervalMs: 1000 },
  })),
};
const server = await startServerProcess({
  plugins,
  password: PASSWORD,
  env: { HELIOGRAPH_PLUGIN_DIR: join(REPO_ROOT, 'test', 'fixtures', 'plugins', 'ticker') },
});
try {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await fetch(`${server.url}/api/v1/plugins`, { headers: { authorization: basicAuth(PASSWORD) } });
    const list = ((await answer.json()) as Array<{ plugin: string; state: string; isolation: string }>).filter(
      (p) => p.plugin === 'ticker',
    );
    if (list.length === INSTANCES && list.every((p) => p.state === 'running' && p.isolation === 'worker')) break;
    if (Date.now() > deadline) throw new Error(`instances not running after 60 s: ${JSON.stringify(list)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const runningAfterMs = performance.now() - server.startedAt;
  const workers = childrenOf(server.child.pid!);
  const workerRss = workers.map(rssOf);
  row('server listening after', `${Math.round(server.listeningAfterMs)} ms`);
  row(`${INSTANCES} isolated instances running after`, `${Math.round(runningAfterMs)} ms`);
  row('server RSS', `${(rssOf(server.child.pid!) / 2 ** 20).toFixed(1)} MB`);
  row('worker processes', String(workers.length));
  row(
    'RSS per worker process (mean)',
    `${(workerRss.reduce((a, b) => a + b, 0) / workerRss.length / 2 ** 20).toFixed(1)} MB`,
  );
} finally {
  await server.stop();
}
