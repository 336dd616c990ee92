// A flat export (feed-in) price in the Site settings (`prices.exportPrice`) beside a provider
// of import prices only (a fixture publishing today's and tomorrow's hours, as Tibber or
// aWATTar do, with no export series), on the real server: GET /api/v1/grid answers
// `export_price` per slot, plugins read it through ctx.site.prices, a recorded day's money
// in GET /api/v1/energy earns it for the kWh sold, and a later change of the setting moves
// the slots still to come, never that past day's money.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import type { EnergyResponse, GridResponse, ImportExportSlot } from '@heliograph/core/api-types';
import { pollUntil } from '../helpers/deadline.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const H = 3_600_000;
/** Wednesday 2026-01-14 in Paris (UTC+1, no DST change) runs from 2026-01-13T23:00Z for 24 hours. */
const DAY = Date.parse('2026-01-13T23:00:00Z');

/** The day's kWh by local hour 00..23 (the worked-day fixture records them to the watt). */
const GRID_IN = [
  0.6, 0.5, 2.0, 2.0, 0.5, 0.4, 0.7, 0.8, 0.3, 0, 0, 0, 0, 0.1, 0.2, 0.3, 0.4, 0.6, 0.9, 0.7, 0.5, 0.4, 0.3, 0.2,
];
const GRID_OUT = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5, 1.2, 1.5, 1.0, 0.4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

const IMPORT_PRICE = 0.2;
const FEED_IN = 0.08;

const iso = (ms: number) => new Date(ms).toISOString();
const round = (x: number, decimals: number) => Math.round(x * 10 ** decimals) / 10 ** decimals;

async function grid(server: TestServer, query = ''): Promise<GridResponse> {
  const res = await server.api(`/api/v1/grid${query}`);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as GridResponse;
}

const exportPrices = (answer: GridResponse) =>
  (answer.pricing?.slots ?? []).map((s) => (s as Partial<ImportExportSlot>).export_price);

async function dayMoney(server: TestServer) {
  const res = await server.api(`/api/v1/energy?period=day&from=${iso(DAY)}&to=${iso(DAY + 24 * H)}`);
  assert.equal(res.status, 200, await res.clone().text());
  const { buckets } = (await res.json()) as EnergyResponse;
  assert.equal(buckets.length, 1);
  return buckets[0]!.money;
}

async function setExportPrice(server: TestServer, exportPrice: number | null): Promise<void> {
  const res = await server.api('/api/v1/config', {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prices: { exportPrice } }),
  });
  assert.equal(res.status, 200, await res.clone().text());
}

/** What the export-reader fixture was handed by ctx.site.prices for the slot in force. */
function pluginSees(server: TestServer, price: string) {
  return pollUntil(
    () => {
      const seen = server.registry.get('reader_1/export_price_now')?.value;
      return Promise.resolve({ done: seen === price, seen });
    },
    `ctx.site.prices handing the export-reader fixture an export price of ${price} for the slot in force`,
    { ms: 10_000, everyMs: 50 },
  );
}

test('a flat export price beside a provider of import prices only: /grid, ctx.site.prices and the money of a past day', async () => {
  // Local midnight: every slot the provider publishes is still to come.
  const clock = new ManualClock(DAY);
  const server = await startTestServer({
    clock,
    fixtures: ['two-day-prices', 'export-reader', 'worked-day'],
    config: {
      site: { timeZone: 'Europe/Paris' },
      energy: { resetPeriod: 'weekly' },
      prices: { exportPrice: FEED_IN },
    },
    plugins: [
      { id: 'spot', plugin: 'two-day-prices', config: { provider: 'Spot', price: IMPORT_PRICE } },
      { id: 'reader', plugin: 'export-reader', devices: ['reader_1'], config: {} },
      {
        id: 'meter',
        plugin: 'worked-day',
        devices: ['inverter_1'],
        config: { dayStart: iso(DAY), gridIn: GRID_IN, gridOut: GRID_OUT },
      },
    ],
  });

  // The provider publishes no export series; the answer has one, at the setting's price.
  const first = await grid(server);
  assert.equal(first.provider, 'Spot');
  assert.equal(first.schedule_type, 'import_export_pricing', JSON.stringify(first).slice(0, 300));
  assert.equal(first.pricing!.slots.length, 48);
  assert.deepEqual(new Set(exportPrices(first)), new Set([FEED_IN]));
  assert.deepEqual(
    new Set(first.pricing!.slots.map((s) => (s as ImportExportSlot).import_price)),
    new Set([IMPORT_PRICE]),
  );
  await pluginSees(server, String(FEED_IN));

  // Past the day's end: the fixture records the day's grid readings.
  clock.set(DAY + 24 * H + 30 * 60_000);
  await pollUntil(
    async () => {
      const res = await server.api(`/api/v1/energy?period=hour&from=${iso(DAY)}&to=${iso(DAY + 24 * H)}`);
      const { buckets } = (await res.json()) as EnergyResponse;
      return { done: buckets.every((b) => b.energy !== null), seen: buckets.map((b) => b.energy?.grid_out ?? null) };
    },
    "the worked-day fixture's readings in every hour of 2026-01-14 (Paris)",
    { ms: 30_000, everyMs: 100 },
  );

  // By hand: 12.4 kWh bought at 0.20 = 2.48; 4.6 kWh sold at 0.08 = 0.368; net 2.112.
  const before = await dayMoney(server);
  assert.deepEqual(
    [before?.import_cost, before?.export_revenue, before?.net_cost, before?.priced_hours],
    [round(12.4 * IMPORT_PRICE, 4), round(4.6 * FEED_IN, 4), round(12.4 * IMPORT_PRICE - 4.6 * FEED_IN, 4), 24],
    JSON.stringify(before),
  );

  // A new feed-in tariff at 00:30 of the next day: the slots not begun get it; the hour
  // begun and the past day keep 0.08, in /grid and in the day's money.
  await setExportPrice(server, 0.12);
  assert.deepEqual(exportPrices(await grid(server)), [FEED_IN, ...Array<number>(23).fill(0.12)]);
  assert.deepEqual(
    exportPrices(await grid(server, `?from=${iso(DAY)}&to=${iso(DAY + 24 * H)}`)),
    Array<number>(24).fill(FEED_IN),
  );
  assert.deepEqual(await dayMoney(server), before, 'the past day’s money after a new export price');
  clock.set(DAY + 25.5 * H);
  await pluginSees(server, '0.12');

  // No export price any more: the answer has none, and the past day still earns what it did.
  await setExportPrice(server, null);
  const none = await grid(server);
  assert.equal(none.schedule_type, 'pricing');
  await pluginSees(server, 'none');
  assert.deepEqual(await dayMoney(server), before, 'the past day’s money after the export price is removed');
});
