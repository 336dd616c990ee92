/**
 * `npm run bench:bridge`: 500 topics changing once a second, bridged to an MQTT broker
 * (aedes, in this process) and mirrored to a remote-write receiver (a fake one that decodes
 * every request, in this process), through `heliograph serve` as `npm start` runs it (its
 * node flags; the plugins found through HELIOGRAPH_PLUGIN_ROOT, as an installation's are).
 * Prints the service's CPU (% of one core) and RSS, and how many state messages and mirrored
 * readings arrived per second, beside the anchor from the same run: the same service and
 * topics without the bridge and the mirror, so the difference is what the two cost. With
 * taskset the service runs on one core, this process (broker, receiver) on the other. No
 * REST client is involved: the figures are the service's cost and what the broker and the
 * receiver get.
 */
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { FakeReceiver } from '../helpers/mirror-targets.js';
import { Observer, startAedes } from '../helpers/mqtt-brokers.js';
import { loadAverage, tableRow } from './shipped.js';
import {
  cpuMsOf,
  LOAD_CORE,
  PINNED,
  pinProcess,
  REPO_ROOT,
  rssOf,
  SHIPPED_NODE,
  startServerProcess,
} from './support.js';

const TOPICS = Number(process.env.BENCH_BRIDGE_TOPICS ?? 500);
const MEASURE_S = Number(process.env.BENCH_BRIDGE_SECONDS ?? 30);
const WARMUP_S = 10;
const PASSWORD = 'bench-password';

/** An installation folder whose plugins/ holds the bridge, the mirror and the 500-topic inverter. */
function pluginRoot(): string {
  const root = join(mkdtempSync(join(tmpdir(), 'heliograph-bench-bridge-')), 'root');
  mkdirSync(join(root, 'plugins'), { recursive: true });
  for (const name of ['mqtt', 'history-mirror'])
    symlinkSync(join(REPO_ROOT, 'plugins', name), join(root, 'plugins', name));
  symlinkSync(join(REPO_ROOT, 'test', 'fixtures', 'plugins', 'many-topics'), join(root, 'plugins', 'many-topics'));
  return root;
}

interface Measured {
  cpuPercent: number;
  rss: number;
  rssGrowth: number;
  seconds: number;
}

/** Starts the service with `plugins`, warms up, then measures its CPU and RSS over MEASURE_S. */
async function measure(root: string, plugins: unknown[], during: () => () => void): Promise<Measured> {
  const server = await startServerProcess({
    plugins: { plugins },
    password: PASSWORD,
    env: { HELIOGRAPH_PLUGIN_ROOT: root },
  });
  const pid = server.child.pid!;
  await delay(WARMUP_S * 1000);
  const rssBefore = rssOf(pid);
  const cpuBefore = cpuMsOf(pid);
  const started = performance.now();
  const done = during();
  await delay(MEASURE_S * 1000);
  done();
  const seconds = (performance.now() - started) / 1000;
  const cpuPercent = ((cpuMsOf(pid) - cpuBefore) / (seconds * 1000)) * 100;
  const rss = rssOf(pid);
  await server.stop();
  return { cpuPercent, rss, rssGrowth: rss - rssBefore, seconds };
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

async function main(): Promise<void> {
  pinProcess(process.pid, LOAD_CORE);
  const root = pluginRoot();
  const broker = await startAedes();
  const receiver = await FakeReceiver.start();
  const observer = await Observer.connect(broker.url, ['heliograph/inverter_1/+/state']);
  const load = { id: 'load', plugin: 'many-topics', devices: ['inverter_1'], config: { count: TOPICS } };
  console.log(
    `bench:bridge: ${TOPICS} topics at 1 Hz, warming up ${WARMUP_S} s, measuring ${MEASURE_S} s; ` +
      `${SHIPPED_NODE}; ${PINNED ? 'service on core 0, broker and receiver on core 1' : 'NOT pinned (no taskset)'}; ` +
      `load average ${loadAverage()}`,
  );

  const anchor = await measure(root, [load], () => () => undefined);
  let states = 0;
  let mirrored = 0;
  const bridged = await measure(
    root,
    [
      load,
      { id: 'mqtt', plugin: 'mqtt', config: { url: broker.url } },
      {
        id: 'mirror',
        plugin: 'history-mirror',
        config: { target: 'prometheus-remote-write', url: `${receiver.url}/api/v1/write`, flushIntervalMs: 5000 },
      },
    ],
    () => {
      const statesBefore = observer.all.length;
      const mirroredBefore = receiver.received.length;
      return () => {
        states = observer.all.length - statesBefore;
        mirrored = receiver.received.length - mirroredBefore;
      };
    },
  );

  const line = (label: string, value: string, anchorValue: string) =>
    console.log(`${label.padEnd(22)} ${value.padEnd(40)} ${anchorValue}`);
  const without = 'anchor, without bridge and mirror:';
  line(
    'service CPU:',
    `${bridged.cpuPercent.toFixed(1)} % of one core`,
    `${without} ${anchor.cpuPercent.toFixed(1)} %`,
  );
  line(
    'service RSS:',
    `${mb(bridged.rss)} (${mb(bridged.rssGrowth)} growth while measuring)`,
    `${without} ${mb(anchor.rss)} (${mb(anchor.rssGrowth)} growth)`,
  );
  const statesPerS = states / bridged.seconds;
  const mirroredPerS = mirrored / bridged.seconds;
  line(
    'MQTT state messages:',
    `${statesPerS.toFixed(0)} per second`,
    `expected ${TOPICS} (topics changing per second)`,
  );
  line('mirrored readings:', `${mirroredPerS.toFixed(0)} per second`, `expected ${TOPICS}`);
  tableRow({
    figure: `bridge+mirror, ${TOPICS} topics: service CPU, RSS`,
    value: `${bridged.cpuPercent.toFixed(1)} %, ${mb(bridged.rss)}; ${statesPerS.toFixed(0)} MQTT/s, ${mirroredPerS.toFixed(0)} mirrored/s`,
    anchor: `without them ${anchor.cpuPercent.toFixed(1)} %, ${mb(anchor.rss)}; ${TOPICS}/s change`,
    target: '-',
  });
  console.log(`load average ${loadAverage()}`);

  await observer.close();
  await receiver.close();
  await broker.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
