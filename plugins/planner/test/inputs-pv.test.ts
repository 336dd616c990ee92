import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PluginContext } from '@heliograph/plugins-sdk';
import type { PlannerConfig } from '../src/config.js';
import { readInputs } from '../src/inputs.js';

// What the planner reads of the PV forecast: from two days back, so that a day the provider
// left out is planned on the nearest day's (plan.ts `pvAt`), saying so; with nothing near,
// no plan.

const QUARTER = 15 * 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// 09:00 UTC on a June day; `site(days)`'s forecast has 3 kW at every quarter of those days (0: today).
const now = Date.UTC(2026, 5, 10, 9);
const today = Date.UTC(2026, 5, 10);

function site(forecastDays: number[]): { ctx: PluginContext; asked: Array<{ fromMs: number; toMs: number }> } {
  const asked: Array<{ fromMs: number; toMs: number }> = [];
  const points = forecastDays.flatMap((d) =>
    Array.from({ length: 96 }, (_, q) => ({ time: today + d * DAY + q * QUARTER, value: 3000 })),
  );
  const ctx = {
    devices: [{ id: 'planner_1' }],
    topics: { publish: () => undefined },
    site: {
      timeZone: 'UTC',
      values: () =>
        Promise.resolve({
          'inverter_1/battery_control_mode': 'Normal',
          'inverter_1/battery_capacity': 10,
          'inverter_1/battery_max_charge_power': 5000,
          'inverter_1/battery_max_discharge_power': 5000,
          'inverter_1/battery_state_of_charge': 50,
        }),
      definitions: () => Promise.resolve([]),
      prices: () =>
        Promise.resolve({
          currency: 'EUR',
          slots: [{ start: today, end: today + 2 * DAY, importPrice: 0.3, exportPrice: 0.05 }],
        }),
      forecast: (q: { fromMs: number; toMs: number }) => {
        asked.push(q);
        return Promise.resolve(points.filter((p) => p.time >= q.fromMs && p.time < q.toMs));
      },
      history: () => Promise.resolve([]),
    },
  } as unknown as PluginContext;
  return { ctx, asked };
}

const config = { device: 'inverter_1', horizonHours: 48, exportPaid: true } as PlannerConfig;

test("a day the PV forecast leaves out is planned on the nearest day's, and the status says so", async () => {
  // Yesterday and tomorrow are forecast, today is not.
  const { ctx, asked } = site([-1, 1]);
  const read = await readInputs(ctx, config, now);
  assert.ok(read.ok, read.ok ? '' : read.why);
  assert.deepEqual(asked[0], { fromMs: now - 2 * DAY, toMs: now + 48 * HOUR }, 'read from two days back');
  assert.equal(read.inputs.pvW.get(today - DAY + 9 * HOUR), 3000, "yesterday's forecast is there to be taken");
  assert.equal(read.inputs.note, "; no PV forecast for the next hours: planned on the nearest day's");
});

test('with the next hours forecast there is no note; with no day near them, no plan', async () => {
  const covered = await readInputs(site([-1, 0, 1]).ctx, config, now);
  assert.ok(covered.ok);
  assert.equal(covered.inputs.note, undefined);
  // Only three days ago: further off than the plan looks for a day to take.
  const far = await readInputs(site([-3]).ctx, config, now);
  assert.deepEqual(far, { ok: false, device: 'inverter_1', why: 'no PV forecast for the next hours' });
});
