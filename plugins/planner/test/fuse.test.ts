import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PluginContext } from '@heliograph/plugins-sdk';
import type { PlannerConfig } from '../src/config.js';
import { fuse } from '../src/fuse.js';

// The fuse against the live grid power: a charge may take what the grid has left under the
// import limit, counting the charge already commanded as part of today's import.

const config = { gridPowerTopic: 'meter_1/grid_power', gridImportLimitW: 10_000 } as PlannerConfig;

/** A site whose live values hold `grid` on the grid power topic; `asked` records the filters read. */
function site(grid: unknown): { ctx: PluginContext; asked: string[] } {
  const asked: string[] = [];
  const ctx = {
    site: {
      values: ({ filter }: { filter: string }) => {
        asked.push(filter);
        return Promise.resolve(filter === 'meter_1/grid_power' && grid !== undefined ? { [filter]: grid } : {});
      },
    },
  } as unknown as PluginContext;
  return { ctx, asked };
}

const normal = { 'inverter_1/battery_control_mode': 'Normal', 'inverter_1/battery_control_power': 0 };
const charging = (powerW: unknown) => ({
  'inverter_1/battery_control_mode': 'Charge',
  'inverter_1/battery_control_power': powerW,
});

test('a charge that fits under the limit is left as planned; one that does not is lowered and says why', async () => {
  const { ctx, asked } = site(7_000);
  assert.equal(await fuse(ctx, config, { dev: 'inverter_1', plannedW: 3_000, values: normal }), null, 'exactly fits');
  assert.deepEqual(asked, ['meter_1/grid_power'], 'reads the configured grid power topic');
  assert.deepEqual(await fuse(ctx, config, { dev: 'inverter_1', plannedW: 3_001, values: normal }), {
    powerW: 3_000,
    note: 'charge lowered from 3001 W to 3000 W: the grid imports 7000 W, the limit is 10000 W',
  });
});

test('the charge already commanded is part of the live import, and is given back to the new command', async () => {
  // 9 kW imported, 4 kW of it the battery's own charge: the house takes 5 kW, 5 kW is left.
  const { ctx } = site(9_000.4);
  assert.equal(await fuse(ctx, config, { dev: 'inverter_1', plannedW: 4_000, values: charging(4_000) }), null);
  assert.deepEqual(await fuse(ctx, config, { dev: 'inverter_1', plannedW: 6_000, values: charging(4_000) }), {
    powerW: 4_999,
    note: 'charge lowered from 6000 W to 4999 W: the grid imports 9000 W, the limit is 10000 W',
  });
  // Another device's charge, a discharge, or a charge without a known power is not given back.
  const other = { 'inverter_2/battery_control_mode': 'Charge', 'inverter_2/battery_control_power': 4_000 };
  for (const values of [
    other,
    { ...charging(4_000), 'inverter_1/battery_control_mode': 'Discharge' },
    charging('4000'),
  ]) {
    assert.equal(
      (await fuse(ctx, config, { dev: 'inverter_1', plannedW: 4_000, values }))?.powerW,
      999,
      JSON.stringify(values),
    );
  }
});

test('over the limit already, the charge goes to 0 W, never below', async () => {
  const { ctx } = site(12_500);
  assert.deepEqual(await fuse(ctx, config, { dev: 'inverter_1', plannedW: 2_000, values: normal }), {
    powerW: 0,
    note: 'charge lowered from 2000 W to 0 W: the grid imports 12500 W, the limit is 10000 W',
  });
});

test('without a live grid power the plan is left as it is', async () => {
  for (const grid of [undefined, null, '7000', Number.NaN, Number.POSITIVE_INFINITY]) {
    const { ctx } = site(grid);
    assert.equal(
      await fuse(ctx, config, { dev: 'inverter_1', plannedW: 50_000, values: normal }),
      null,
      `grid power ${String(grid)}`,
    );
  }
});
