// npm run bench:http: peak RSS of a process fetching one 200 MB provider answer with
// `.text()`, through ctx.http (answers capped at 10 MiB) and through plain got as plugins
// had it before. Each case runs in a fresh child process so the peaks do not mix.
//
// Not through `serve`: the figure is what one plugin call (ctx.http, an in-process function)
// can make a process hold, which no API client sees. The children run as the service would
// hold that call, with `npm start`'s node flags (they set how the heap grows) on the service's
// core; the provider (this process) on the other core when taskset is present. The anchor,
// in the same run: the same child with the same flags draining the answer without keeping it
// (what receiving the bytes costs at all).
import { spawn } from 'node:child_process';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadAverage, tableRow } from './shipped.js';
import { LOAD_CORE, NODE_FLAGS, pinned, PINNED, pinProcess, SERVER_CORE, SHIPPED_NODE, shippedEnv } from './support.js';

const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_ANSWER_MB ?? 200) * MiB;

/** Receives the whole answer with node:http and keeps none of it; resolves with its length. */
function drain(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let length = 0;
      res.on('data', (chunk: Buffer) => (length += chunk.length));
      res.on('end', () => resolve(length));
      res.on('error', reject);
    }).on('error', reject);
  });
}

if (process.argv[2] === 'child') {
  const [, , , mode, url] = process.argv;
  const signal = new AbortController().signal;
  const { createBoundedHttp } = await import('@heliograph/core/testing');
  const { default: got } = await import('got');
  const http =
    mode === 'bounded' ? createBoundedHttp({ signal }) : got.extend({ timeout: { request: 60_000 }, signal });
  const startMb = Math.round(process.memoryUsage.rss() / MiB);
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  let outcome: string;
  try {
    const length = mode === 'drained' ? await drain(url!) : (await http.get(url!).text()).length;
    outcome = `${mode === 'drained' ? 'drained' : 'read'} ${Math.round(length / MiB)} MB`;
  } catch (err) {
    outcome = `refused: ${(err as Error).message.slice(0, 60)}...`;
  }
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  process.stdout.write(JSON.stringify({ peakMb: Math.round(peak / MiB), startMb, outcome }) + '\n');
  process.exit(0);
}

pinProcess(process.pid, LOAD_CORE);
const upstream = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(MiB, 0x20);
  let sent = 0;
  const pump = () => {
    while (sent < SIZE && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
});
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/answer`;

function run(mode: 'bounded' | 'unbounded' | 'drained'): Promise<{ peakMb: number; startMb: number; outcome: string }> {
  return new Promise((resolve, reject) => {
    const [command, args] = pinned(SERVER_CORE, [
      process.execPath,
      ...NODE_FLAGS,
      fileURLToPath(import.meta.url),
      'child',
      mode,
      url,
    ]);
    const child = spawn(command, args, { env: shippedEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as { peakMb: number; startMb: number; outcome: string })
        : reject(new Error(`${mode} child exited with ${code}`)),
    );
  });
}

console.log(
  `one ${SIZE / MiB} MB answer, .text(); ${SHIPPED_NODE}; ` +
    `${PINNED ? 'fetching process on core 0, provider on core 1' : 'NOT pinned (no taskset)'}; load average ${loadAverage()}`,
);
const LABELS = {
  bounded: 'ctx.http (10 MiB cap)',
  unbounded: 'plain got',
  drained: 'anchor: node:http, drained, nothing kept',
};
const peaks: Record<string, number> = {};
for (const mode of ['bounded', 'unbounded', 'drained'] as const) {
  const { peakMb, startMb, outcome } = await run(mode);
  peaks[mode] = peakMb;
  console.log(
    `  ${LABELS[mode].padEnd(40)}  peak RSS ${String(peakMb).padStart(4)} MB (${startMb} MB before the fetch)  ${outcome}`,
  );
}
tableRow({
  figure: `${SIZE / MiB} MB provider answer: peak RSS, ctx.http`,
  value: `${peaks.bounded} MB (refused at 10 MiB)`,
  anchor: `drained, nothing kept ${peaks.drained} MB; plain got ${peaks.unbounded} MB`,
  target: '-',
});
upstream.close();
