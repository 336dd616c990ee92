// ctx.site in-process, through the plugin harness (the core's PluginHost, registry, write
// service, price book and forecast store) with a companion plugin standing for the site.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { definePlugin, DeviceRefusedError, z, type MetricValue, type SiteWrite } from '@heliograph/plugins-sdk';
import { startPluginHarness } from '../../src/plugins/harness/index.js';

const NOW = Date.parse('2026-11-20T10:00:00Z');
const QUARTER = 15 * 60_000;

/** The rest of the site: an inverter with a range setting, prices and a PV forecast. */
const site = definePlugin({
  id: 'site',
  configSchema: z.object({}),
  setup(ctx) {
    ctx.topics.declare({
      device: 'inverter_1',
      metrics: [{ name: 'pv_power', displayName: 'PV power', unit: 'W' }],
      settings: [
        {
          name: 'max_charge_current',
          displayName: 'Max charge current',
          unit: 'A',
          min: 10,
          max: 120,
          step: 10,
          initial: 60,
          write: ({ value }) => {
            if (value === 110) return Promise.reject(new DeviceRefusedError({ answer: '(NAK' }));
            return Promise.resolve();
          },
        },
      ],
    });
    ctx.prices.declare({ provider: 'Test tariff', currency: 'EUR', scheduleType: 'import_export_pricing' });
    ctx.scheduler.every({
      name: 'poll',
      intervalMs: 5000,
      run: () => {
        const now = ctx.now();
        ctx.topics.publish({ device: 'inverter_1', values: { pv_power: 1000 + (now - NOW) / 1000 } });
      },
    });
    ctx.prices.publish({
      import: [0, 1, 2, 3].map((i) => ({
        start: NOW + i * QUARTER,
        end: NOW + (i + 1) * QUARTER,
        price: 0.3 - i * 0.05,
      })),
      export: [{ start: NOW, end: NOW + 4 * QUARTER, price: 0.07 }],
    });
    ctx.forecast.publish({
      series: { pv_power_predicted: [0, 1, 2].map((i) => [NOW + i * QUARTER, 500 * (i + 1)] as [number, number]) },
    });
  },
});

/** The plugin under test: reads and writes only through ctx.site. */
const reader = definePlugin({ id: 'reader', configSchema: z.object({}), setup() {} });

async function start() {
  const host = await startPluginHarness({
    plugin: reader,
    instanceId: 'reader-1',
    now: NOW,
    companions: [{ plugin: site, devices: ['inverter_1'], manifest: { kind: 'inverter' } }],
  });
  await host.runJob('site:poll');
  return host;
}

const hosts: Array<Awaited<ReturnType<typeof start>>> = [];
after(async () => {
  for (const host of hosts) await host.stop();
});

test('ctx.site reads topic definitions, values, prices and the forecast of the site', async () => {
  const host = await start();
  hosts.push(host);
  const { site: s } = host.ctx;
  assert.equal(s.timeZone, 'UTC');

  const definitions = await s.definitions();
  const setting = definitions.find((d) => d.topic === 'inverter_1/max_charge_current');
  assert.deepEqual(setting?.writable, { min: 10, max: 120, step: 10 });
  assert.equal(setting?.discovery.platform, 'number');

  assert.deepEqual(await s.values({ filter: 'inverter_1/*' }), {
    'inverter_1/max_charge_current': 60,
    'inverter_1/pv_power': 1000,
  });
  assert.deepEqual(Object.keys(await s.values({ filter: ['*/pv_power', 'weather/*'] })).sort(), [
    'inverter_1/pv_power',
    'weather/pv_power_predicted',
  ]);

  const prices = await s.prices();
  assert.equal(prices.provider, 'Test tariff');
  assert.equal(prices.currency, 'EUR');
  assert.deepEqual(prices.slots[0], {
    start: NOW,
    end: NOW + QUARTER,
    importPrice: 0.3,
    importRank: 4,
    importPremium: prices.slots[0]!.importPremium,
    exportPrice: 0.07,
    exportRank: 1,
    exportPremium: prices.slots[0]!.exportPremium,
  });
  assert.deepEqual(
    prices.slots.map((slot) => slot.importRank),
    [4, 3, 2, 1],
  );

  assert.deepEqual(await s.forecast(), [
    { time: NOW, value: 500 },
    { time: NOW + QUARTER, value: 1000 },
    { time: NOW + 2 * QUARTER, value: 1500 },
  ]);
  assert.deepEqual(await s.forecast({ fromMs: NOW + QUARTER, toMs: NOW + 2 * QUARTER }), [
    { time: NOW + QUARTER, value: 1000 },
  ]);
  await assert.rejects(s.forecast({ topic: 'total/pv_power' }), /total\/pv_power is not a forecast topic/);
});

test('ctx.site.subscribe hands on the current values, then one call per tick', async () => {
  const host = await start();
  hosts.push(host);
  const calls: Array<{ values: Record<string, MetricValue>; time: number }> = [];
  const stop = host.ctx.site.subscribe({
    filter: 'inverter_1/pv_power',
    onValues: (values, { time }) => calls.push({ values, time }),
  });
  assert.deepEqual(calls, [{ values: { 'inverter_1/pv_power': 1000 }, time: NOW }]);
  host.advance(5000);
  await host.runJob('site:poll');
  assert.deepEqual(calls.at(-1), { values: { 'inverter_1/pv_power': 1005 }, time: NOW + 5000 });
  stop();
  host.advance(5000);
  await host.runJob('site:poll');
  assert.equal(calls.length, 2, 'no call after the subscription was disposed');
});

test("ctx.site.write goes through the write path with the plugin's id as via; refusals throw the API's message", async () => {
  const host = await start();
  hosts.push(host);
  const seen: SiteWrite[] = [];
  host.ctx.site.onWrite({ filter: 'inverter_1/*', handler: (write) => seen.push(write) });

  await host.ctx.site.write({ topic: 'inverter_1/max_charge_current', value: 80 });
  assert.equal(host.value('inverter_1/max_charge_current'), 80);
  await assert.rejects(
    host.ctx.site.write({ topic: 'inverter_1/max_charge_current', value: 200 }),
    /value "200" is not allowed/,
  );
  await assert.rejects(host.ctx.site.write({ topic: 'inverter_1/max_charge_current', value: 110 }), /refused/);
  await assert.rejects(host.ctx.site.write({ topic: 'inverter_1/pv_power', value: 1 }), /is not writable/);
  await host.write('inverter_1/max_charge_current', '90');

  assert.deepEqual(
    seen.map(({ topic, value, via, who, result, at }) => ({ topic, value, via, who, result, at })),
    [
      {
        topic: 'inverter_1/max_charge_current',
        value: '80',
        via: 'reader',
        who: 'plugin:reader-1',
        result: 'ok',
        at: NOW,
      },
      {
        topic: 'inverter_1/max_charge_current',
        value: '200',
        via: 'reader',
        who: 'plugin:reader-1',
        result: 'error',
        at: NOW,
      },
      {
        topic: 'inverter_1/max_charge_current',
        value: '110',
        via: 'reader',
        who: 'plugin:reader-1',
        result: 'error',
        at: NOW,
      },
      { topic: 'inverter_1/pv_power', value: '1', via: 'reader', who: 'plugin:reader-1', result: 'error', at: NOW },
      { topic: 'inverter_1/max_charge_current', value: '90', via: 'rest', who: 'test', result: 'ok', at: NOW },
    ],
  );
  assert.match(seen[2]!.message ?? '', /refused/);
});

test('ctx.site.history reads recorded readings in buckets and refuses what history does not record', async () => {
  const recorder = definePlugin({
    id: 'recorder',
    configSchema: z.object({}),
    async setup(ctx) {
      ctx.topics.declare({
        device: 'inverter_1',
        metrics: [
          { name: 'pv_power', displayName: 'PV power', unit: 'W' },
          { name: 'device_mode', displayName: 'Mode', type: 'string' },
        ],
      });
      await ctx.topics.record({
        device: 'inverter_1',
        readings: [0, 1, 2, 3].map((i) => ({ time: NOW - 3_600_000 + i * 900_000, values: { pv_power: 100 * i } })),
      });
    },
  });
  const host = await startPluginHarness({
    plugin: reader,
    now: NOW,
    companions: [{ plugin: recorder, devices: ['inverter_1'], manifest: { kind: 'inverter' } }],
  });
  hosts.push(host);
  const { site: s } = host.ctx;
  assert.deepEqual(
    await s.history({ topic: 'inverter_1/pv_power', fromMs: NOW - 3_600_000, toMs: NOW, groupBy: '30m', agg: 'sum' }),
    [
      { time: NOW - 3_600_000, value: 100 },
      { time: NOW - 1_800_000, value: 500 },
    ],
  );
  await assert.rejects(
    s.history({ topic: 'inverter_1/device_mode', fromMs: NOW - 3_600_000, toMs: NOW }),
    /inverter_1\/device_mode is not recorded in history: its values are text, not numbers/,
  );
  await assert.rejects(
    s.history({ topic: 'inverter_1/pv_power', fromMs: NOW - 3_600_000, toMs: NOW, groupBy: '7s' }),
    /groupBy must be at least 10s/,
  );
});

test('a companion that fails its setup stops the start with its error', async () => {
  const broken = definePlugin({
    id: 'broken',
    configSchema: z.object({}),
    setup() {
      throw new Error('no such device');
    },
  });
  await assert.rejects(
    startPluginHarness({ plugin: reader, companions: [{ plugin: broken }] }),
    /companion broken \(broken\) did not start: setup failed: no such device/,
  );
});
