/**
 * The server side of `npm run bench:ws`, run as a child process so its CPU time and RSS are
 * measured alone: the real koa app and WebSocket endpoint on 127.0.0.1, a registry of 120
 * topics that all change once a second in one tick. The first topic carries the publish
 * time, so clients can measure latency from publish to receipt.
 */
import { performance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { getHeapSpaceStatistics } from 'node:v8';
import {
  attachWebsocket,
  AuditLog,
  auditMigrations,
  createApp,
  DbWriter,
  listen,
  migrate,
  openDatabase,
  SystemInfo,
  TopicRegistry,
  WriteService,
  type Authenticator,
  type TopicState,
} from '@heliograph/core/testing';
import { systemClock } from '@heliograph/core/clock';
import { topicMeta } from '@heliograph/core/test/helpers/topics';
import { BENCH_PASSWORD, TIMESTAMP_TOPIC, TOPIC_COUNT, type BenchReply, type BenchRequest } from './ws-bench-shared.js';

const gc = (globalThis as { gc?: () => void }).gc;

async function main(): Promise<void> {
  const registry = new TopicRegistry(systemClock);
  const states: TopicState[] = [];
  const define = (topic: string) => {
    registry.define(topicMeta(topic, { name: topic.split('/')[1]! }));
    states.push(registry.get(topic)!);
  };
  define(TIMESTAMP_TOPIC);
  for (let i = 1; i < TOPIC_COUNT; i++) {
    const device = (i % 4) + 1;
    define(`inverter_${device}/metric_${String(i).padStart(3, '0')}`);
  }

  const auth: Authenticator = {
    authenticate: (credentials) =>
      Promise.resolve(
        credentials?.secret === BENCH_PASSWORD
          ? { ok: true as const, who: 'admin', scope: 'admin' as const }
          : { ok: false as const, status: 401 as const, message: 'wrong password' },
      ),
  };
  const db = await openDatabase(':memory:');
  await migrate(db, auditMigrations);
  const writes = new WriteService(registry, new AuditLog(db, systemClock, new DbWriter()), systemClock);
  const system = new SystemInfo({
    clock: systemClock,
    siteId: 1,
    version: 'bench',
    dataDir: tmpdir(),
    startedAt: Date.now(),
  });
  const app = createApp({ auth, realm: 'Heliograph', routers: [] });
  const running = await listen(app, '127.0.0.1', 0);
  const endpoint = attachWebsocket({
    app,
    server: running.server,
    registry,
    auth,
    realm: 'Heliograph',
    writes,
    system,
  });

  let ticks = 0;
  const values = states.map(() => 1000 + Math.random() * 1000);
  let fanOutMs: number[] = [];
  const publishAll = () => {
    ticks++;
    const started = performance.now();
    registry.publish(states[0]!, Math.round((performance.timeOrigin + started) * 1000) / 1000);
    for (let i = 1; i < states.length; i++) {
      values[i] = Math.round((values[i]! + (Math.random() - 0.5) * 20) * 10) / 10;
      registry.publish(states[i]!, values[i]!);
    }
    registry.flush(); // what the registry's microtask would do; flushing here lets it be timed
    fanOutMs.push(performance.now() - started);
  };
  // BENCH_WS_QUIET: a quiet site, nothing changes; what the server spends is the clients' own.
  if (process.env.BENCH_WS_QUIET) publishAll();
  const timer = setInterval(process.env.BENCH_WS_QUIET ? () => ticks++ : publishAll, 1000);

  let cpuStart = process.cpuUsage();
  let wallStart = process.hrtime.bigint();
  let ticksStart = 0;
  const reply = (message: BenchReply) => process.send!(message);
  process.on('message', (request: BenchRequest) => {
    if (request.type === 'memory') {
      gc?.();
      const memory = process.memoryUsage();
      const newSpace =
        getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.physical_space_size ?? 0;
      reply({ type: 'memory', rss: memory.rss, heapUsed: memory.heapUsed, newSpace, clients: endpoint.clientCount });
    } else if (request.type === 'cpu') {
      // Each call reports the CPU time since the previous one.
      const cpu = process.cpuUsage(cpuStart);
      const wall = process.hrtime.bigint() - wallStart;
      reply({
        type: 'cpu',
        cpuMicros: cpu.user + cpu.system,
        wallNanos: String(wall),
        ticks: ticks - ticksStart,
        fanOutMs,
      });
      fanOutMs = [];
      cpuStart = process.cpuUsage();
      wallStart = process.hrtime.bigint();
      ticksStart = ticks;
    } else if (request.type === 'quiet') {
      // Values hold still from now on: what clients get is the stream's refresh.
      clearInterval(timer);
      reply({ type: 'quiet' });
    } else if (request.type === 'stop') {
      clearInterval(timer);
      void endpoint
        .close()
        .then(() => running.close())
        .then(() => process.exit(0));
    }
  });
  reply({ type: 'ready', port: running.port });
}

void main();
