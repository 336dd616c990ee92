// `npm run bench:auth`: 1 000 parallel wrong-password requests from 1 000 loopback addresses
// (they once made correct logins take 7 s and RSS reach 304 MB), while a signed-in
// client and a token client keep asking. Prints their latency and the server's peak RSS.
import { Agent, request } from 'node:http';
import { basicAuth, median, row, rssOf, startServerProcess } from './support.js';

const PASSWORD = 'bench password 1';
const FLOOD = Number(process.env.FLOOD ?? 1000);

// The measured clients keep their connection open, as a dashboard does: new connections
// during a flood of 1 000 wait in the kernel's accept backlog (511), which says nothing
// about the service.
const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });

function get(url: string, auth: string, localAddress?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const agent = localAddress ? false : keepAlive;
    const req = request(
      `${url}/api/v1/metrics?topic=total/pv_power`,
      { headers: { authorization: auth }, localAddress, agent },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function timed(fn: () => Promise<number>): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const status = await fn();
  return { ms: performance.now() - started, status };
}

const server = await startServerProcess({ plugins: { plugins: [] }, password: PASSWORD });
try {
  const good = basicAuth(PASSWORD);
  await get(server.url, good);
  const created = await fetch(`${server.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { authorization: good, 'content-type': 'application/json' },
    body: '{"name":"bench","scope":"read"}',
  });
  const token = `Bearer ${((await created.json()) as { token: string }).token}`;
  await get(server.url, token);
  const baseRss = rssOf(server.child.pid!);

  let peakRss = baseRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssOf(server.child.pid!))), 20);
  const statuses = new Map<number, number>();
  const flood = Array.from({ length: FLOOD }, (_, i) =>
    get(server.url, basicAuth(`wrong ${i}`), `127.0.${1 + (i >> 8)}.${1 + (i & 255)}`).then(
      (status) => statuses.set(status, (statuses.get(status) ?? 0) + 1),
      () => statuses.set(0, (statuses.get(0) ?? 0) + 1),
    ),
  );
  const passwordTimes: number[] = [];
  const tokenTimes: number[] = [];
  for (let i = 0; i < 10; i++) {
    passwordTimes.push((await timed(() => get(server.url, good))).ms);
    tokenTimes.push((await timed(() => get(server.url, token))).ms);
  }
  await Promise.all(flood);
  if (process.env.BENCH_VERBOSE) console.log({ passwordTimes, tokenTimes });
  clearInterval(sampler);

  row(`flood answers (${FLOOD} wrong passwords)`, [...statuses].map(([s, n]) => `${s}x${n}`).join(' '));
  row('signed-in password request during flood, median', `${median(passwordTimes).toFixed(1)} ms`);
  row('signed-in password request during flood, max', `${Math.max(...passwordTimes).toFixed(1)} ms`);
  row('token request during flood, median', `${median(tokenTimes).toFixed(1)} ms`);
  row('token request during flood, max', `${Math.max(...tokenTimes).toFixed(1)} ms`);
  row('RSS before / peak', `${(baseRss / 2 ** 20).toFixed(0)} / ${(peakRss / 2 ** 20).toFixed(0)} MB`);
} finally {
  keepAlive.destroy();
  await server.stop();
}
