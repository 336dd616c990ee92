import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { FakeReceiver, VICTORIA_METRICS, Victoria, type Received } from '../helpers/mirror-targets.js';
import { requireProgram } from '../helpers/programs.js';
import { startTestServer, statusWhen, type TestServer } from '../helpers/server.js';
import { pollUntil } from '../helpers/deadline.js';

const vmSkip = requireProgram({
  name: 'victoria-metrics',
  found: existsSync(VICTORIA_METRICS),
  install: 'apt-get install victoria-metrics',
});

function startMirrored(mirror: Record<string, unknown>, dataDir?: string): Promise<TestServer> {
  return startTestServer({
    plugins: [
      { id: 'inv', plugin: 'bridged', devices: ['inverter_1'] },
      { id: 'mirror', plugin: 'history-mirror', config: { flushIntervalMs: 200, ...mirror } },
    ],
    bundled: ['history-mirror'],
    fixtures: ['bridged'],
    ...(dataDir ? { dataDir } : {}),
  });
}

/** Publishes pv_power values, each in a tick of its own at a distinct millisecond. */
async function publishPv(server: TestServer, values: number[]): Promise<void> {
  const pv = server.registry.get('inverter_1/pv_power')!;
  for (const value of values) {
    server.registry.publish(pv, value);
    server.registry.flush();
    await delay(3); // distinct timestamps, so a target keeps every sample
  }
}

const pvValues = (received: Received[]) =>
  new Set(received.filter((r) => r.labels.topic === 'inverter_1/pv_power').map((r) => r.value));
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

for (const target of ['prometheus-remote-write', 'influx-line'] as const) {
  describe(`history mirror to a fake ${target} receiver`, () => {
    test('sends recorded readings in batches with their names and labels', async () => {
      const receiver = await FakeReceiver.start();
      after(() => receiver.close());
      const path = target === 'influx-line' ? '/write?db=solar' : '/api/v1/write';
      const server = await startMirrored({ target, url: receiver.url + path, batchSize: 4, token: 's3cret' });
      await publishPv(server, range(1, 10));
      await receiver.until((r) => range(1, 10).every((v) => pvValues(r).has(v)));
      const reading = receiver.received.find((r) => r.labels.topic === 'inverter_1/pv_power')!;
      assert.equal(reading.name, 'heliograph_pv_power');
      assert.deepEqual(reading.labels, {
        device: 'inverter_1',
        site: String(server.siteId),
        topic: 'inverter_1/pv_power',
      });
      assert.ok(Math.abs(reading.time - Date.now()) < 60_000, 'timestamps in Unix ms');
      assert.ok(
        receiver.batches.every((n) => n <= 4),
        `batches of at most 4: ${receiver.batches.join(',')}`,
      );
      assert.equal(receiver.requests[0]!.headers.authorization, 'Bearer s3cret');
      if (target === 'influx-line') assert.match(receiver.requests[0]!.url, /^\/write\?db=solar&precision=ms$/);
      else assert.equal(receiver.requests[0]!.headers['content-encoding'], 'snappy');
      await server.close();
    });
  });
}

describe('history mirror queue on disk', () => {
  test('an outage of the target loses nothing: the queue is sent when it is back', async () => {
    const receiver = await FakeReceiver.start();
    after(() => receiver.close());
    const server = await startMirrored({ target: 'prometheus-remote-write', url: `${receiver.url}/api/v1/write` });
    receiver.down = true;
    await publishPv(server, range(100, 20));
    await statusWhen(server, 'mirror', (s) => s.last_error !== null);
    assert.equal(pvValues(receiver.received).has(100), false);
    receiver.down = false;
    await receiver.until((r) => range(100, 20).every((v) => pvValues(r).has(v)));
    await server.close();
  });

  test('a restart of the service in the middle of the queue loses nothing', async () => {
    const receiver = await FakeReceiver.start();
    after(() => receiver.close());
    receiver.down = true;
    const first = await startMirrored({ target: 'prometheus-remote-write', url: `${receiver.url}/api/v1/write` });
    await publishPv(first, range(200, 10));
    // A failed send after the values were published: they are in the queue.
    const failed = receiver.requests.length;
    await statusWhen(first, 'mirror', () => receiver.requests.length > failed);
    await first.close();
    receiver.down = false;
    const second = await startMirrored(
      { target: 'prometheus-remote-write', url: `${receiver.url}/api/v1/write` },
      first.dataDir,
    );
    await receiver.until((r) => range(200, 10).every((v) => pvValues(r).has(v)));
    await second.close();
  });
});

describe('history mirror from the first slot', () => {
  test('a restart of the mirror and of the service: every reading at the target once, the first ones included', async () => {
    const receiver = await FakeReceiver.start();
    after(() => receiver.close());
    const url = `${receiver.url}/api/v1/write`;
    const first = await startMirrored({ target: 'prometheus-remote-write', url });
    // The fixture publishes pv_power 1000 as it starts, before the mirror listens.
    await receiver.until((r) => pvValues(r).has(1000));
    await publishPv(first, range(300, 5));
    // The mirror restarts (a config change) while readings are recorded.
    const restarted = first.plugins.reconfigure('mirror', { target: 'prometheus-remote-write', url, batchSize: 7 });
    await publishPv(first, range(310, 5));
    assert.equal((await restarted)?.ok, true);
    await publishPv(first, range(320, 5));
    await receiver.until((r) =>
      [...range(300, 5), ...range(310, 5), ...range(320, 5)].every((v) => pvValues(r).has(v)),
    );
    await first.close();
    const startedAgain = Date.now();
    const second = await startMirrored({ target: 'prometheus-remote-write', url, batchSize: 7 }, first.dataDir);
    // The second process's first reading (the fixture's 1000 again) arrives too.
    await receiver.until((r) => r.some((x) => x.labels.topic === 'inverter_1/pv_power' && x.time >= startedAgain));
    await publishPv(second, range(330, 5));
    await receiver.until((r) => range(330, 5).every((v) => pvValues(r).has(v)));
    await second.close();
    const seen = new Map<string, number>();
    for (const r of receiver.received) {
      const key = `${r.labels.topic} ${r.time}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    const twice = [...seen].filter(([, n]) => n > 1);
    assert.deepEqual(twice, [], 'no reading arrives twice');
    const firstOfSecond = receiver.received.find(
      (x) => x.labels.topic === 'inverter_1/pv_power' && x.time >= startedAgain,
    );
    assert.equal(firstOfSecond?.value, 1000, "the second start's first reading arrives first");
  });
});

describe('history mirror to VictoriaMetrics', { skip: vmSkip ?? false }, () => {
  for (const [target, path] of [
    ['prometheus-remote-write', '/api/v1/write'],
    ['influx-line', '/write'],
  ] as const) {
    test(`${target}: every reading arrives, also those sent during an outage`, async () => {
      const vm = await Victoria.start();
      after(() => vm.stop());
      const server = await startMirrored({ target, url: vm.url + path });
      const selector = `heliograph_pv_power{topic="inverter_1/pv_power",site="${server.siteId}"}`;
      const stored = (values: number[]) =>
        // VictoriaMetrics makes new samples searchable after a flush of its buffers.
        pollUntil(
          async () => {
            await fetch(`${vm.url}/internal/force_flush`);
            const have = new Set((await vm.export(selector)).map((s) => s.value));
            return { done: values.every((v) => have.has(v)), seen: [...have].sort((a, b) => a - b) };
          },
          `VictoriaMetrics holds the readings ${values[0]} to ${values.at(-1)}`,
        );
      await publishPv(server, range(1, 10));
      await stored(range(1, 10));

      await vm.stop();
      await publishPv(server, range(11, 10));
      await statusWhen(server, 'mirror', (s) => s.last_error !== null);
      await vm.start();
      await stored(range(1, 20));
      await server.close();
    });
  }
});
