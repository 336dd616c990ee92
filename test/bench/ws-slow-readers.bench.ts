/**
 * `npm run bench:slow-readers`: REST latency on the server of `bench:ws` (120 topics changing
 * once a second) while 50 WebSocket clients joined to every topic stop reading (such
 * clients once raised REST latency to 1.6 s). Prints p50/p99/max of a REST probe every
 * 20 ms, with and without the stalled clients, and how many stalled clients the server closed.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { basicAuth, NODE_FLAGS, row } from './support.js';
import { BENCH_PASSWORD, type BenchReply } from './ws-bench-shared.js';

const STALLED = Number(process.env.BENCH_STALLED ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);

const child = fork(fileURLToPath(new URL('./ws-bench-server.js', import.meta.url)), [], {
  execArgv: NODE_FLAGS,
  env: { ...process.env, HELIOGRAPH_LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const [ready] = (await once(child, 'message')) as [Extract<BenchReply, { type: 'ready' }>];
const base = `127.0.0.1:${ready.port}`;
const auth = basicAuth(BENCH_PASSWORD);

async function probe(seconds: number): Promise<number[]> {
  const times: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const started = performance.now();
    const res = await fetch(`http://${base}/api/v1/none`, { headers: { authorization: auth } });
    await res.arrayBuffer();
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return times.sort((a, b) => a - b);
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const show = (label: string, times: number[]) =>
  row(
    label,
    `${pct(times, 0.5).toFixed(1)} / ${pct(times, 0.99).toFixed(1)} / ${times[times.length - 1]!.toFixed(1)} ms`,
  );

show('REST p50 / p99 / max, no stalled clients', await probe(SECONDS / 3));

let closedByServer = 0;
const stalled: WebSocket[] = [];
for (let i = 0; i < STALLED; i++) {
  const ws = new WebSocket(`ws://${base}/api/websocket?vsn=2.0.0&password=${BENCH_PASSWORD}`);
  await once(ws, 'open');
  ws.on('close', (code) => code === 4008 && closedByServer++);
  ws.send(JSON.stringify(['1', '1', 'metrics', 'phx_join', { topics: [{ topic: '*' }] }]));
  stalled.push(ws);
}
// Stop reading: the kernel buffers fill, then the server's send queue for each socket.
for (const ws of stalled) (ws as unknown as { _socket: { pause(): void } })._socket.pause();
show(`REST p50 / p99 / max, ${STALLED} stalled clients`, await probe(SECONDS));
row('stalled clients closed as too slow (4008)', String(closedByServer));
for (const ws of stalled) ws.terminate();
child.send({ type: 'stop' });
await once(child, 'exit');
