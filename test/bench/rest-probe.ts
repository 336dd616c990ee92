// REST latency under load, as the flood benches (mqtt-flood, store-flood) measure it: a client
// asking back to back while the flood runs, and the row that reports what it saw.
import { cpus, loadavg } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { percentile } from './soak-window.js';
import { basicAuth, row } from './support.js';

/**
 * Asks `paths` in turn, back to back (10 ms apart), signed in with `password`, until `until`
 * resolves; returns each answer's latency in ms. An answer other than 200 ends the bench.
 */
export async function probeRest(
  url: string,
  password: string,
  paths: readonly string[],
  until: Promise<unknown>,
): Promise<number[]> {
  let done = false;
  void until.then(() => (done = true));
  const latencies: number[] = [];
  const headers = { authorization: basicAuth(password) };
  for (let i = 0; !done; i++) {
    const path = paths[i % paths.length]!;
    const started = performance.now();
    const res = await fetch(url + path, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    latencies.push(performance.now() - started);
    await delay(10);
  }
  return latencies;
}

/** Prints the latencies' p50, p99 and max as the row `REST <label>`; returns the p99. */
export function reportRest(label: string, latencies: readonly number[]): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  const p99 = percentile(sorted, 99);
  row(
    `REST ${label} (${sorted.length} requests)`,
    `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`,
  );
  return p99;
}

/**
 * Prints the flood's verdict: the REST p99 during it against `targetMs`, and the load the
 * machine was under (the figures move with what else it runs: a niced service waits for
 * every other process).
 */
export function reportFloodVerdict(p99: number, targetMs: number): void {
  row('REST p99 during the flood', `${p99.toFixed(1)} ms`, `< ${targetMs} ms ${p99 < targetMs ? 'ok' : 'MISSED'}`);
  row('load average (1 min) / CPUs', `${loadavg()[0]!.toFixed(1)} / ${cpus().length}`);
}
