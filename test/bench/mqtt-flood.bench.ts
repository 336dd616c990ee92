/**
 * `npm run bench:mqtt-flood`: 20 000 writes published to the MQTT bridge's `/set` topics as
 * fast as a client can, while a REST client asks `GET /api/v1/metrics?topic=total/*` (through
 * koa, not the snapshot's fast lane) back to back. The service runs under `nice -n 10`, so
 * the flood's publisher and broker have the machine first, as on a loaded device. Prints
 * REST latency before and during the flood (the prober and the flood's publisher are
 * separate processes, so neither's work shows in the other's figures) (target: p99 under 250 ms), how long the bridge
 * took to answer every write, and how the answers split (taken, refused by a topic's write
 * budget, too large, refused by the service).
 *
 * The broker is a real Mosquitto when /usr/sbin/mosquitto is installed, else aedes in
 * this process.
 */
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import mqtt from 'mqtt';
import { probeRest, reportFloodVerdict, reportRest } from './rest-probe.js';
import { row, startServerProcess } from './support.js';

const MESSAGES = Number(process.env.BENCH_FLOOD_MESSAGES ?? 20_000);
const NICE = Number(process.env.BENCH_FLOOD_NICE ?? 10);
const PASSWORD = 'flood-bench-password';
const TARGET_P99_MS = 250;

const MOSQUITTO = '/usr/sbin/mosquitto';

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function broker(): Promise<{ url: string; name: string; stop(): Promise<void> }> {
  const port = await freePort();
  if (!existsSync(MOSQUITTO)) {
    // Loaded only without Mosquitto: the test helpers bring node:test along.
    const { startAedes } = await import('../helpers/mqtt-brokers.js');
    const aedes = await startAedes();
    return { url: aedes.url, name: 'aedes (in the benchmark process)', stop: () => aedes.stop() };
  }
  const child = spawn(MOSQUITTO, ['-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  for (let i = 0; ; i++) {
    const connected = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { reconnectPeriod: 0 }).catch(() => null);
    if (connected) {
      await connected.endAsync();
      break;
    }
    if (i > 100) throw new Error('mosquitto did not start within 5 s');
    await delay(50);
  }
  return {
    url: `mqtt://127.0.0.1:${port}`,
    name: 'mosquitto',
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

const METRICS = ['/api/v1/metrics?topic=total/*'];
const probe = (url: string, until: Promise<unknown>) => probeRest(url, PASSWORD, METRICS, until);

const mq = await broker();
const server = await startServerProcess({
  password: PASSWORD,
  nice: NICE,
  plugins: {
    plugins: [
      { id: 'sim', plugin: 'simulator', devices: ['inverter_1', 'battery_1'], config: { pollIntervalMs: 1000 } },
      { id: 'mqtt', plugin: 'mqtt', config: { url: mq.url } },
    ],
  },
});
const watcher = await mqtt.connectAsync(mq.url, { clientId: 'flood-watcher' });
let online = false;
watcher.on('message', (_topic, payload) => (online = payload.toString() === 'online'));
await watcher.subscribeAsync('heliograph/availability', { qos: 0 });
for (let i = 0; !online; i++) {
  if (i > 300) throw new Error('the MQTT bridge did not say online within 30 s');
  await delay(100);
}
await watcher.endAsync();

const publisher = fork(
  fileURLToPath(new URL('./mqtt-flood-publisher.js', import.meta.url)),
  [mq.url, String(MESSAGES)],
  {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  },
);
await once(publisher, 'message');

console.log(
  `bench:mqtt-flood: ${MESSAGES} writes to /set through ${mq.name}, service under nice -n ${NICE}, ` +
    `REST GET /api/v1/metrics?topic=total/* back to back from another process`,
);
await probe(server.url, delay(1000)); // the first answer checks the password; later ones are remembered
reportRest('before the flood', await probe(server.url, delay(5000)));

const done = once(publisher, 'message') as Promise<
  [{ answers: number; kinds: Record<string, number>; seconds: number }]
>;
publisher.send('go');
const flood = await probe(server.url, done);
const [result] = await done;
const p99 = reportRest('during the flood', flood);
row('writes answered on set_response', `${result.answers} of ${MESSAGES} in ${result.seconds.toFixed(1)} s`);
for (const [kind, n] of Object.entries(result.kinds)) row(`  ${kind}`, String(n));
reportFloodVerdict(p99, TARGET_P99_MS);

await server.stop();
await mq.stop();
process.exit(0);
