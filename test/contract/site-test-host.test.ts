// ctx.site on the SDK's test host, with the real simulator as a companion: what a planner's
// own tests do (read the inverter, prices and forecast; write a setting; see it audited).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { definePlugin, z, type SiteWrite } from '@heliograph/plugins-sdk';
import { startTestHost, stopTestHosts } from '@heliograph/plugins-sdk/testing';
import simulator from '@heliograph/plugin-simulator';

after(() => stopTestHosts());

const NOW = Date.parse('2026-11-20T11:00:00Z');

/** Sets the simulator's charge current from the cheapest price, and shows what it did on planner_1. */
const planner = definePlugin({
  id: 'planner',
  configSchema: z.object({}),
  setup(ctx) {
    const [device] = ctx.devices;
    ctx.topics.declare({
      device: device!.id,
      metrics: [{ name: 'cheapest_rank_now', displayName: 'Rank of the current slot' }],
    });
    ctx.scheduler.every({
      name: 'plan',
      intervalMs: 15 * 60_000,
      run: async () => {
        const { slots } = await ctx.site.prices();
        const current = slots.find((s) => s.start <= ctx.now() && ctx.now() < s.end);
        if (!current) throw new Error('no price for now');
        ctx.topics.publish({ device: device!.id, values: { cheapest_rank_now: current.importRank } });
        await ctx.site.write({ topic: 'inverter_1/max_charge_current', value: current.importRank <= 8 ? 120 : 10 });
      },
    });
  },
});

test('a planner reads the simulator through ctx.site on the test host and writes one of its settings', async () => {
  const host = await startTestHost({
    plugin: planner,
    now: NOW,
    devices: ['planner_1'],
    manifest: { devices: { kinds: ['planner'], min: 1, max: 1 } },
    companions: [{ plugin: simulator, devices: ['inverter_1', 'battery_1'], instanceId: 'sim' }],
  });
  const writes: SiteWrite[] = [];
  host.ctx.site.onWrite({ filter: 'inverter_1/*', handler: (w) => writes.push(w) });
  await host.runJob('sim:poll');
  await host.runJob('sim:prices');
  await host.runJob('sim:forecast');

  assert.equal(typeof (await host.ctx.site.values({ filter: 'inverter_1/pv_power' }))['inverter_1/pv_power'], 'number');
  const prices = await host.ctx.site.prices();
  assert.equal(prices.provider, 'Simulator');
  assert.ok(prices.slots.length >= 24, `a day of demo prices, got ${prices.slots.length}`);
  assert.ok((await host.ctx.site.forecast()).length > 0, 'the demo forecast');

  await host.runJob('plan');
  const rank = host.value('planner_1/cheapest_rank_now');
  assert.equal(typeof rank, 'number');
  const expected = (rank as number) <= 8 ? 120 : 10;
  assert.equal(host.value('inverter_1/max_charge_current'), expected);
  assert.deepEqual(
    writes.map((w) => [w.topic, w.value, w.via, w.who, w.result]),
    [['inverter_1/max_charge_current', String(expected), 'planner', 'plugin:planner', 'ok']],
  );
  assert.deepEqual([...host.values.keys()], ['planner_1/cheapest_rank_now'], "host.values holds the plugin's own");
  assert.deepEqual(host.prices.schedules, [], "the companion's prices are not the plugin's");
});
