// A tariff as an owner has it (the `fixed` plugin with a time-of-use import price, a standing
// charge and a flat export price) reaches GET /api/v1/grid through the price book like a
// dynamic provider's prices, and the past day's slots and standing charge are kept in the
// history across a restart and a change of tariff, from a plugin in a worker process too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import type { GridResponse, ImportExportSlot } from '@heliograph/core/api-types';
import { pollUntil } from '../helpers/deadline.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const H = 3_600_000;
/** Wednesday 2026-01-14 in Paris (UTC+1 in winter) runs from 2026-01-13T23:00Z. */
const DAY = Date.parse('2026-01-13T23:00:00Z');

/** Off-peak 00:00-07:00, peak otherwise; the tariff of the worked day in the contract. */
const tariff = (offPeak: number, peak: number, standingCharge: number) => ({
  provider: 'Example TOU',
  currency: 'EUR',
  importPeriods: [
    { start: '00:00', end: '07:00', price: offPeak },
    { start: '07:00', end: '24:00', price: peak },
  ],
  standingCharge,
  exportPrice: 0.05,
});

const start = (
  clock: ManualClock,
  dataDir: string,
  config: ReturnType<typeof tariff>,
  options: { isolation?: 'worker'; prices?: { multiplier: number; offset: number } } = {},
) =>
  startTestServer({
    bundled: ['fixed'],
    plugins: [
      { id: 'tariff', plugin: 'fixed', config, ...(options.isolation ? { isolation: options.isolation } : {}) },
    ],
    clock,
    dataDir,
    config: { site: { timeZone: 'Europe/Paris' }, ...(options.prices ? { prices: options.prices } : {}) },
  });

async function grid(server: TestServer, query = ''): Promise<GridResponse> {
  const res = await server.api(`/api/v1/grid${query}`);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as GridResponse;
}

const slotsOf = (body: GridResponse) => (body.pricing?.slots ?? []) as ImportExportSlot[];
const range = (from: number, to: number) => `?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;

test('a time-of-use tariff with a standing charge and a flat export price, today and kept for past days', async () => {
  const dataDir = tempDir();
  const clock = new ManualClock(DAY + 12 * H);
  const first = await start(clock, dataDir, tariff(0.15, 0.3, 0.45));

  const today = await grid(first);
  assert.equal(today.provider, 'Example TOU');
  assert.equal(today.schedule_type, 'import_export_pricing');
  assert.deepEqual(today.standing_charge, { currency: 'EUR', per_day: 0.45 });
  const slots = slotsOf(today);
  assert.equal(slots.length, 72, 'hourly slots for today and the next two days');
  assert.equal(slots[0]!.from, '2026-01-13T23:00:00Z', 'from local midnight');
  assert.deepEqual(
    slots.slice(0, 24).map((s) => s.import_price),
    [...Array<number>(7).fill(0.15), ...Array<number>(17).fill(0.3)],
    'off-peak until 07:00 local, peak after',
  );
  assert.ok(slots.every((s) => s.export_price === 0.05));
  assert.equal(slots[0]!.import_rank, 1, 'the night is the cheapest');
  await first.close();

  // Three days on, a new tariff (and the site's multiplier and offset).
  clock.set(DAY + 3 * 24 * H + 9 * H);
  const server = await start(clock, dataDir, tariff(0.16, 0.32, 0.5), { prices: { multiplier: 2, offset: 0.01 } });
  const now = await grid(server);
  assert.deepEqual(now.standing_charge, { currency: 'EUR', per_day: 0.5 }, 'the standing charge is not adjusted');
  assert.equal(slotsOf(now)[0]!.import_price, 0.33, '0.16 × 2 + 0.01');
  assert.equal(slotsOf(now)[0]!.export_price, 0.11, '0.05 × 2 + 0.01');

  // The past day from the history: its own tariff, its own standing charge.
  const past = await grid(server, range(DAY, DAY + 24 * H));
  assert.deepEqual(past.standing_charge, { currency: 'EUR', per_day: 0.45 });
  const pastSlots = slotsOf(past);
  assert.equal(pastSlots.length, 24);
  assert.equal(pastSlots[0]!.from, '2026-01-13T23:00:00Z');
  assert.deepEqual(
    [...new Set(pastSlots.slice(0, 7).map((s) => s.import_price))],
    [0.31],
    'off-peak 0.15, adjusted with the multiplier and offset of now',
  );
  assert.deepEqual([...new Set(pastSlots.slice(7).map((s) => s.import_price))], [0.61]);
  assert.ok(pastSlots.every((s) => s.export_price === 0.11));
});

test('the standing charge reaches the price book from a plugin in a worker process', async () => {
  // A worker's ctx.now() is the real clock (a manual clock stays in the server), so this
  // server runs on it too; the plugin publishes after the server has started.
  const server = await startTestServer({
    bundled: ['fixed'],
    plugins: [{ id: 'tariff', plugin: 'fixed', config: tariff(0.15, 0.3, 0.45), isolation: 'worker' }],
    config: { site: { timeZone: 'Europe/Paris' } },
  });
  await pollUntil(async () => {
    const body = await grid(server);
    return { done: slotsOf(body).length > 0 && body.standing_charge !== undefined, seen: body.standing_charge };
  }, 'the fixed plugin in a worker publishes its prices and standing charge');
  const body = await grid(server);
  assert.deepEqual(body.standing_charge, { currency: 'EUR', per_day: 0.45 });
  assert.equal(body.schedule_type, 'import_export_pricing');
  assert.ok(slotsOf(body).every((s) => s.export_price === 0.05));
});
