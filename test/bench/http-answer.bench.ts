// npm run bench:http: peak RSS of a process fetching one 200 MB provider answer with
// `.text()`, through ctx.http (answers capped at 10 MiB) and through plain got as plugins
// had it before. Each case runs in a fresh child process so the peaks do not mix.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_ANSWER_MB ?? 200) * MiB;

if (process.argv[2] === 'child') {
  const [, , , mode, url] = process.argv;
  const signal = new AbortController().signal;
  const { createBoundedHttp } = await import('@heliograph/core/plugins/context/bounded-got');
  const { default: got } = await import('got');
  const http =
    mode === 'bounded' ? createBoundedHttp({ signal }) : got.extend({ timeout: { request: 60_000 }, signal });
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  let outcome: string;
  try {
    const body = await http.get(url!).text();
    outcome = `read ${Math.round(body.length / MiB)} MB`;
  } catch (err) {
    outcome = `refused: ${(err as Error).message.slice(0, 60)}...`;
  }
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  process.stdout.write(JSON.stringify({ peakMb: Math.round(peak / MiB), outcome }) + '\n');
  process.exit(0);
}

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

function run(mode: 'bounded' | 'unbounded'): Promise<{ peakMb: number; outcome: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'child', mode, url], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as { peakMb: number; outcome: string })
        : reject(new Error(`${mode} child exited with ${code}`)),
    );
  });
}

console.log(`one ${SIZE / MiB} MB answer, .text():`);
for (const mode of ['bounded', 'unbounded'] as const) {
  const { peakMb, outcome } = await run(mode);
  console.log(
    `  ${mode === 'bounded' ? 'ctx.http (10 MiB cap)' : 'plain got           '}  peak RSS ${String(peakMb).padStart(4)} MB  ${outcome}`,
  );
}
upstream.close();
