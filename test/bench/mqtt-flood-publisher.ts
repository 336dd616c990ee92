/**
 * The flood of `npm run bench:mqtt-flood`, in a process of its own so that its work (20 000
 * publishes, 20 000 answers parsed) does not slow the REST prober it is measured against.
 * argv: broker URL, message count. Sends `{ answers, kinds, seconds }` over IPC when every
 * write was answered (or after two minutes).
 */
import { setTimeout as delay } from 'node:timers/promises';
import mqtt from 'mqtt';

const [url, count] = process.argv.slice(2) as [string, string];
const MESSAGES = Number(count);
const TOPICS = [
  'heliograph/inverter_1/output_source_priority/set',
  'heliograph/inverter_1/max_charge_current/set',
  'heliograph/inverter_1/no_such_setting/set',
];

const client = await mqtt.connectAsync(url, { clientId: 'flood' });
let answers = 0;
const kinds: Record<string, number> = {};
client.on('message', (_topic, payload) => {
  answers++;
  const answer = JSON.parse(payload.toString()) as { ok: boolean; message?: string };
  const message = answer.message ?? '';
  const kind = answer.ok
    ? 'taken'
    : /too many writes/.test(message)
      ? 'refused: write budget'
      : /too large/.test(message)
        ? 'refused: too large'
        : 'refused by the service';
  kinds[kind] = (kinds[kind] ?? 0) + 1;
});
await client.subscribeAsync('heliograph/set_response', { qos: 0 });
process.send!('ready');
await new Promise((resolve) => process.once('message', resolve));

const started = performance.now();
// Mostly one topic (the flood), every tenth message to the others, a 64 KiB value now and then.
for (let i = 0; i < MESSAGES; i++) {
  const topic = i % 10 === 0 ? TOPICS[(i / 10) % TOPICS.length]! : TOPICS[0]!;
  const value = i % 1000 === 0 ? 'x'.repeat(64 * 1024) : i % 2 === 0 ? 'Utility first' : '60';
  client.publish(topic, value, { qos: 0 });
  if (i % 500 === 0) await delay(0);
}
const deadline = performance.now() + 120_000;
while (answers < MESSAGES && performance.now() < deadline) await delay(20);
process.send!({ answers, kinds, seconds: (performance.now() - started) / 1000 });
await client.endAsync();
process.exit(0);
