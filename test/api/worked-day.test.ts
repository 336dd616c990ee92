// The worked day: a time-of-use tariff (the bundled `fixed` plugin: import 0.15 from
// 00:00 to 07:00 and 0.30 otherwise, a standing charge of 0.45 a day, export 0.05 flat) and a
// day of grid readings (a fixture inverter recording Wednesday 2026-01-14 in Paris, one
// reading a minute, so each hour's kWh are known exactly) give the net cost worked out by hand
// below, through GET /api/v1/energy for the day and for its hours, on the real server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import type { EnergyResponse, GridResponse } from '@heliograph/core/api-types';
import { pollUntil } from '../helpers/deadline.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const H = 3_600_000;
/** Wednesday 2026-01-14 in Paris (UTC+1 in winter, no DST change) runs from 2026-01-13T23:00Z for 24 hours. */
const DAY = Date.parse('2026-01-13T23:00:00Z');

/** The day's kWh by local hour 00..23. */
const GRID_IN = [
  0.6, 0.5, 2.0, 2.0, 0.5, 0.4, 0.7, 0.8, 0.3, 0, 0, 0, 0, 0.1, 0.2, 0.3, 0.4, 0.6, 0.9, 0.7, 0.5, 0.4, 0.3, 0.2,
];
const GRID_OUT = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5, 1.2, 1.5, 1.0, 0.4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

const TARIFF = {
  provider: 'Worked day TOU',
  currency: 'EUR',
  importPeriods: [
    { start: '00:00', end: '07:00', price: 0.15 },
    { start: '07:00', end: '24:00', price: 0.3 },
  ],
  standingCharge: 0.45,
  exportPrice: 0.05,
};

const round = (x: number, decimals: number) => Math.round(x * 10 ** decimals) / 10 ** decimals;
const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);
const iso = (ms: number) => new Date(ms).toISOString();

async function energy(server: TestServer, period: 'hour' | 'day'): Promise<EnergyResponse> {
  const res = await server.api(`/api/v1/energy?period=${period}&from=${iso(DAY)}&to=${iso(DAY + 24 * H)}`);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as EnergyResponse;
}

test('a time-of-use tariff with a standing charge and a flat export price: the net cost of a day worked out by hand', async () => {
  // Noon of the day: the fixed plugin publishes today's prices (kept in the price history).
  const clock = new ManualClock(DAY + 12 * H);
  const server = await startTestServer({
    clock,
    bundled: ['fixed'],
    fixtures: ['worked-day'],
    // Weekly (the default, written out): no reset of the counters at the day's start. Under a
    // daily reset the minute before it (the fixture's first reading, carrying hour 00's power)
    // is the day before's, as it should be, and hour 00 would read 0.59 kWh.
    config: { site: { timeZone: 'Europe/Paris' }, energy: { resetPeriod: 'weekly' } },
    plugins: [
      { id: 'tariff', plugin: 'fixed', config: TARIFF },
      {
        id: 'meter',
        plugin: 'worked-day',
        devices: ['inverter_1'],
        config: { dayStart: iso(DAY), gridIn: GRID_IN, gridOut: GRID_OUT },
      },
    ],
  });
  const grid = (await (await server.api('/api/v1/grid')).json()) as GridResponse;
  assert.equal(grid.schedule_type, 'import_export_pricing', JSON.stringify(grid).slice(0, 300));
  assert.deepEqual(grid.standing_charge, { currency: 'EUR', per_day: 0.45 });

  // Past the day's end (the standing charge counts up to now): the fixture records the day.
  clock.set(DAY + 24 * H + 30 * 60_000);
  await pollUntil(
    async () => {
      const { buckets } = await energy(server, 'hour');
      return { done: buckets.every((b) => b.energy !== null), seen: buckets.map((b) => b.energy?.grid_in ?? null) };
    },
    "the fixture's recorded readings in every hour of 2026-01-14 (Paris)",
    { ms: 30_000, everyMs: 100 },
  );

  // By hand. Off-peak (00:00-07:00) imports 0.6 + 0.5 + 2.0 + 2.0 + 0.5 + 0.4 + 0.7 = 6.7 kWh;
  // peak imports the other 12.4 - 6.7 = 5.7 kWh; 0.5 + 1.2 + 1.5 + 1.0 + 0.4 = 4.6 kWh sold.
  assert.equal(round(sum(GRID_IN), 3), 12.4);
  assert.equal(round(sum(GRID_IN.slice(0, 7)), 3), 6.7);
  assert.equal(round(sum(GRID_IN.slice(7)), 3), 5.7);
  assert.equal(round(sum(GRID_OUT), 3), 4.6);
  const importCost = 6.7 * 0.15 + 5.7 * 0.3; // 1.005 + 1.71 = 2.715
  const exportRevenue = 4.6 * 0.05; // 0.23
  const standingCharge = 0.45; // one whole day
  const netCost = importCost - exportRevenue + standingCharge; // 2.715 - 0.23 + 0.45 = 2.935
  assert.equal(round(importCost, 4), 2.715);
  assert.equal(round(exportRevenue, 4), 0.23);
  assert.equal(round(netCost, 4), 2.935);

  const day = await energy(server, 'day');
  assert.equal(day.currency, 'EUR');
  assert.equal(day.buckets.length, 1);
  const [bucket] = day.buckets;
  assert.deepEqual(
    [bucket!.from, bucket!.to, bucket!.time_zone],
    ['2026-01-14T00:00:00+01:00', '2026-01-15T00:00:00+01:00', 'Europe/Paris'],
  );
  assert.equal(bucket!.energy?.grid_in, 12.4, JSON.stringify(bucket!.energy));
  assert.equal(bucket!.energy?.grid_out, 4.6, JSON.stringify(bucket!.energy));
  const { savings: _, ...money } = bucket!.money!;
  assert.deepEqual(money, {
    import_cost: round(importCost, 4),
    export_revenue: round(exportRevenue, 4),
    standing_charge: standingCharge,
    net_cost: round(netCost, 4),
    priced_hours: 24,
    unpriced_hours: 0,
  });

  // The day's hours: each hour's kWh as recorded, and the money of two of them by hand.
  const hours = await energy(server, 'hour');
  assert.equal(hours.buckets.length, 24);
  assert.deepEqual(
    hours.buckets.map((b) => b.from),
    Array.from({ length: 24 }, (_, h) => `2026-01-14T${String(h).padStart(2, '0')}:00:00+01:00`),
  );
  assert.deepEqual(
    hours.buckets.map((b) => b.energy!.grid_in),
    GRID_IN,
    'grid_in by hour',
  );
  assert.deepEqual(
    hours.buckets.map((b) => b.energy!.grid_out),
    GRID_OUT,
    'grid_out by hour',
  );
  const hourStanding = 0.45 / 24; // 0.01875: an hour's share of the day's charge
  // An hour's standing charge and net cost have 5 decimals, a tie at the answer's 4 (0.31875: 0.3187 or 0.3188 by
  // the last bit of the floating-point sum), so it is checked to within that rounding.
  const near = (actual: number, expected: number, what: string) =>
    assert.ok(Math.abs(actual - expected) <= 0.00005 + 1e-12, `${what}: ${actual}, by hand ${expected}`);
  // 03:00, off-peak: 2.0 kWh x 0.15 = 0.3; nothing sold; 0.3 + 0.01875 = 0.31875.
  const three = hours.buckets[3]!.money!;
  assert.deepEqual([three.import_cost, three.export_revenue, three.priced_hours], [0.3, 0, 1]);
  near(three.standing_charge, hourStanding, 'standing charge at 03:00');
  near(three.net_cost, 2.0 * 0.15 + hourStanding, 'net cost at 03:00');
  // 13:00, peak, half an hour each way: 0.1 kWh x 0.30 = 0.03 bought, 0.4 kWh x 0.05 = 0.02
  // sold; 0.03 - 0.02 + 0.01875 = 0.02875.
  const thirteen = hours.buckets[13]!.money!;
  assert.deepEqual(
    [thirteen.import_cost, thirteen.export_revenue, thirteen.priced_hours],
    [round(0.1 * 0.3, 4), round(0.4 * 0.05, 4), 1],
  );
  near(thirteen.net_cost, 0.1 * 0.3 - 0.4 * 0.05 + hourStanding, 'net cost at 13:00');
  // The hours add up to the day.
  assert.equal(round(sum(hours.buckets.map((b) => b.money!.import_cost)), 4), round(importCost, 4));
  assert.equal(round(sum(hours.buckets.map((b) => b.money!.export_revenue)), 4), round(exportRevenue, 4));
});
