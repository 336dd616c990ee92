import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { definePlugin, z } from '../src/index.js';
import { startTestHost, stopTestHosts } from '../src/testing.js';

/** A price plugin that publishes what its config says, under the schedule type it declares. */
const pricePlugin = definePlugin({
  id: 'acme-prices',
  configSchema: z.object({ scheduleType: z.enum(['pricing', 'import_export_pricing']), withExport: z.boolean() }),
  setup(ctx, config) {
    ctx.prices.declare({ provider: 'Acme', currency: 'EUR', scheduleType: config.scheduleType });
    ctx.scheduler.every({
      name: 'refresh',
      intervalMs: 3_600_000,
      run: () => {
        const slot = { start: 0, end: 900_000, price: 0.2 };
        ctx.prices.publish({ import: [slot], ...(config.withExport ? { export: [slot] } : {}) });
      },
    });
  },
});

describe('startTestHost', () => {
  test('refuses export prices from a plugin that declared plain pricing, as the core does', async () => {
    const plain = await startTestHost({ plugin: pricePlugin, config: { scheduleType: 'pricing', withExport: true } });
    await assert.rejects(
      plain.runJob('refresh'),
      /export prices need scheduleType "import_export_pricing"; acme-prices declared "pricing"/,
    );
    assert.equal(plain.prices.schedules.length, 0);

    const both = await startTestHost({
      plugin: pricePlugin,
      config: { scheduleType: 'import_export_pricing', withExport: true },
    });
    await both.runJob('refresh');
    assert.equal(both.prices.schedules[0]?.export?.length, 1);
    await Promise.all([plain.stop(), both.stop()]);
  });

  test('stopTestHosts stops every host not stopped yet', async () => {
    const config = { scheduleType: 'pricing', withExport: false };
    const [first, second] = [
      await startTestHost({ plugin: pricePlugin, config }),
      await startTestHost({ plugin: pricePlugin, config }),
    ];
    await second.stop();
    await stopTestHosts();
    for (const host of [first, second]) {
      assert.equal(host.ctx.signal.aborted, true);
      assert.equal(host.prices.provider, undefined, 'the declaration is undone');
      assert.equal(host.jobs.size, 0);
    }
  });
});

test("the test host's ctx.http refuses deeply nested JSON as the server's does", async () => {
  const { sendJson, startFakeServer } = await import('../src/fake-server.js');
  const fake = await startFakeServer({
    handle: (_request, response) => sendJson(response, 200, JSON.parse('['.repeat(100) + ']'.repeat(100))),
  });
  const fetching = definePlugin({
    id: 'deep',
    configSchema: z.object({ url: z.string() }),
    setup(ctx, config) {
      ctx.scheduler.every({
        name: 'fetch',
        intervalMs: 60_000,
        run: async () => void (await ctx.http.get(config.url).json()),
      });
    },
  });
  const host = await startTestHost({ plugin: fetching, config: { url: fake.url } });
  await assert.rejects(host.runJob('fetch'), /the answer is nested more than 64 levels deep/);
  await host.stop();
  await fake.close();
});

describe('the test host bounds every wait', () => {
  /** A plugin whose job waits for an answer that never comes. */
  const stuck = definePlugin({
    id: 'stuck',
    configSchema: z.object({}),
    setup(ctx) {
      ctx.scheduler.every({ name: 'poll', intervalMs: 60_000, run: () => new Promise<void>(() => undefined) });
    },
  });

  test('a job that never settles fails after timeoutMs, naming the job', async () => {
    const host = await startTestHost({ plugin: stuck, timeoutMs: 100 });
    try {
      await assert.rejects(
        host.runJob('poll'),
        /^Error: test host: job poll did not finish within 100 ms \(TestHostOptions\.timeoutMs\)$/,
      );
    } finally {
      await host.stop();
    }
  });
});
