/*
 * What the walk of docs/plugins.md writes over the files `heliograph plugin new acme-planner
 * --kind integration` made: a planner that reads the site's prices through `ctx.site`, shows
 * the price it read on a device of its own kind, writes the driver's setting through
 * `ctx.site.write`, and has a setting that aborts its process (to see what a native crash
 * does). Kept word for word in docs/plugins.md.
 */

/** The `heliograph` field's addition: the planner's own device. */
export const PLANNER_DEVICES = { kinds: ['planner'], min: 1, max: 1 };

export const PLANNER_SOURCE = `/**
 * Acme planner: reads the site's prices and sets the inverter's charge current, \`chargeCurrent\`
 * while the current price is at most \`cheapBelow\` and 0 otherwise; shows the price it read.
 */
import { definePlugin, z } from '@heliograph/plugins-sdk';

export default definePlugin({
  id: 'acme-planner',
  configSchema: z.strictObject({
    setting: z.string().default('inverter_1/max_charge_current'),
    cheapBelow: z.number().default(0.25),
    chargeCurrent: z.number().int().min(0).default(60),
    intervalMs: z.number().int().min(10_000).default(900_000),
  }),
  setup(ctx, config) {
    const [planner] = ctx.devices;
    ctx.topics.declare({
      device: planner.id,
      metrics: [{ name: 'import_price', displayName: 'Import price', unit: 'EUR/kWh' }],
      settings: [
        // To see what a crash in a native module does: the process dies, the server does not.
        { kind: 'switch', name: 'abort', displayName: 'Abort', write: async () => process.abort() },
      ],
    });
    ctx.scheduler.every({
      name: 'plan',
      intervalMs: config.intervalMs,
      run: async () => {
        const { slots } = await ctx.site.prices();
        const now = slots.find((s) => s.start <= ctx.now() && ctx.now() < s.end);
        if (now === undefined) throw new Error('no price for now yet');
        ctx.topics.publish({ device: planner.id, values: { import_price: now.importPrice } });
        const value = now.importPrice <= config.cheapBelow ? config.chargeCurrent : 0;
        await ctx.site.write({ topic: config.setting, value });
      },
    });
  },
});
`;

export const PLANNER_TEST = `import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { definePlugin, z } from '@heliograph/plugins-sdk';
import { startTestHost, stopTestHosts } from '@heliograph/plugins-sdk/testing';
import plugin from '../src/index.js';

after(() => stopTestHosts());

const now = Date.parse('2026-11-20T12:30:00Z');
const tariff = definePlugin({
  id: 'tariff',
  configSchema: z.object({}),
  setup(ctx) {
    ctx.prices.declare({ provider: 'Tariff', currency: 'EUR', scheduleType: 'pricing' });
    ctx.prices.publish({ import: [{ start: now - 1_800_000, end: now + 1_800_000, price: 0.2 }] });
  },
});
const written: number[] = [];
const inverter = definePlugin({
  id: 'inverter',
  configSchema: z.object({}),
  setup(ctx) {
    ctx.topics.declare({
      device: 'inverter_1',
      metrics: [],
      settings: [
        {
          name: 'max_charge_current',
          displayName: 'Max charge current',
          unit: 'A',
          min: 0,
          max: 100,
          step: 1,
          write: async ({ value }) => void written.push(value),
        },
      ],
    });
  },
});

test('sets the charge current at a cheap price, through the site', async () => {
  const host = await startTestHost({
    plugin,
    now,
    devices: ['planner_1'],
    manifest: { devices: { kinds: ['planner'], min: 1, max: 1 } },
    companions: [
      { plugin: tariff, manifest: { kind: 'prices' } },
      {
        plugin: inverter,
        devices: ['inverter_1'],
        manifest: { kind: 'inverter', devices: { kinds: ['inverter'], min: 1, max: 1 } },
      },
    ],
  });
  await host.runJob('plan');
  assert.deepEqual(written.slice(-1), [60]);
  assert.equal(host.value('planner_1/import_price'), 0.2);
  assert.equal(host.status.state, 'running', String(host.status.last_error));
});
`;
