// 32 clients querying history at once through a running service: every topic given, fine and
// coarse bucket sizes, random ranges over the year, following `next` up to 5 pages. Reports
// the service's RSS before, its peak (the kernel's high-water mark, VmHWM, so nothing is
// missed) and after. One history request must not hold more than its page in memory.
import { readFileSync } from 'node:fs';
import type { ServerProcess } from './support.js';

export interface HistoryLoadResult {
  idle: number;
  peak: number;
  after: number;
  requests: number;
  seconds: number;
  failed: number;
  firstError: string;
}

export async function historyLoad(
  server: ServerProcess,
  authorization: string,
  topics: readonly string[],
  end: number,
  clients = 32,
): Promise<HistoryLoadResult> {
  const pid = server.child.pid!;
  const status = (field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
  const DAY = 86_400_000;
  const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
  const shapes: Array<[string, number]> = [
    ['10s', 2],
    ['50s', 30],
    ['90m', 365],
    ['1h', 365],
    ['1d', 365],
  ];
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const idle = status('VmRSS');
  let requests = 0;
  let failed = 0;
  let firstError = '';
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = 0; i < 10; i++) {
        const [groupBy, days] = shapes[Math.floor(rnd() * shapes.length)]!;
        const from = end - Math.floor(rnd() * (365 - days) + days) * DAY;
        let next: string | undefined =
          `${server.url}/api/v1/history?topic=${topics[Math.floor(rnd() * topics.length)]}&from=${iso(from)}&to=${iso(Math.min(end, from + days * DAY))}&group_by=${groupBy}&agg=max`;
        for (let pages = 0; next && pages < 5; pages++) {
          requests++;
          try {
            const res: Response = await fetch(next, { headers: { authorization } });
            const text = await res.text();
            if (res.status !== 200) throw new Error(`${res.status} ${text.slice(0, 200)}`);
            const body = JSON.parse(text) as { next?: string };
            next = body.next ? next.replace(/from=[^&]+/, `from=${body.next}`) : undefined;
          } catch (err) {
            failed++;
            firstError ||= `${next}: ${err instanceof Error ? err.message : String(err)}`;
            next = undefined;
          }
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { idle, peak: status('VmHWM'), after: status('VmRSS'), requests, seconds, failed, firstError };
}
