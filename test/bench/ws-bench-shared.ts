/** What the WebSocket benchmark's driver and its server child agree on. */
export const BENCH_PASSWORD = 'bench-password';
/** Published first in every tick, with the publish time (Unix ms, sub-ms precision) as value. */
export const TIMESTAMP_TOPIC = 'bench/published_at';
export const TOPIC_COUNT = 120;

export type BenchRequest = { type: 'memory' } | { type: 'cpu' } | { type: 'quiet' } | { type: 'stop' };
export type BenchReply =
  | { type: 'ready'; port: number }
  | { type: 'quiet' }
  | {
      type: 'memory';
      rss: number;
      heapUsed: number;
      /** Committed size of V8's young generation, which V8 sizes by allocation rate (up to 16 MB per semi-space) and shrinks when idle. */
      newSpace: number;
      clients: number;
    }
  | {
      type: 'cpu';
      cpuMicros: number;
      wallNanos: string;
      ticks: number;
      /** How long each tick's publish and fan-out to every socket took on the server, ms. */
      fanOutMs: number[];
    };
