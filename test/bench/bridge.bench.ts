/**
 * `npm run bench:bridge`: 500 topics changing once a second, bridged to an MQTT broker
 * (aedes, in this process) and mirrored to a remote-write receiver (a fake one that decodes
 * every request, in this process). Prints the service's CPU (% of one core) and RSS, and
 * how many state messages and mirrored readings arrived per second.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { FakeReceiver } from '../helpers/mirror-targets.js';
import { Observer, startAedes } from '../helpers/mqtt-brokers.js';
import { NODE_FLAGS } from './support.js';

const TOPICS = Number(process.env.BENCH_BRIDGE_TOPICS ?? 500);
const MEASURE_S = Number(process.env.BENCH_BRIDGE_SECONDS ?? 30);
const WARMUP_S = 10;

interface Usage {
  cpu: NodeJS.CpuUsage;
  rss: number;
}

const broker = await startAedes();
const receiver = await FakeReceiver.start();
const observer = await Observer.connect(broker.url, ['heliograph/inverter_1/+/state']);
const child = fork(
  fileURLToPath(new URL('./bridge-server.js', import.meta.url)),
  [broker.url, receiver.url, String(TOPICS)],
  {
    execArgv: NODE_FLAGS,
    env: { ...process.env, HELIOGRAPH_LOG_LEVEL: 'warn', HELIOGRAPH_MDNS: '0' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  },
);
await once(child, 'message');
const usage = async (): Promise<Usage> => {
  child.send('usage');
  const [reply] = (await once(child, 'message')) as [Usage];
  return reply;
};

console.log(`bench:bridge: ${TOPICS} topics at 1 Hz, warming up ${WARMUP_S} s, measuring ${MEASURE_S} s`);
await delay(WARMUP_S * 1000);
const before = await usage();
const statesBefore = observer.all.length;
const mirroredBefore = receiver.received.length;
const start = performance.now();
await delay(MEASURE_S * 1000);
const after = await usage();
const seconds = (performance.now() - start) / 1000;
const cpuMs = (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1000;

console.log(`service CPU: ${((cpuMs / (seconds * 1000)) * 100).toFixed(1)} % of one core`);
console.log(
  `service RSS: ${(after.rss / 1048576).toFixed(1)} MB (${((after.rss - before.rss) / 1048576).toFixed(1)} MB growth while measuring)`,
);
console.log(`MQTT state messages: ${((observer.all.length - statesBefore) / seconds).toFixed(0)} per second`);
console.log(`mirrored readings: ${((receiver.received.length - mirroredBefore) / seconds).toFixed(0)} per second`);

child.send('stop');
await once(child, 'exit');
await observer.close();
await receiver.close();
await broker.stop();
