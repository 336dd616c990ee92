// Past grid prices outlive the day and a restart: they are kept in the database file, and
// GET /api/v1/grid?from=&to= answers them, so the cost of a past day can be worked out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '@heliograph/core/clock';
import type { GridResponse, PriceSlot } from '@heliograph/core/api-types';
import { startTestServer, tempDir } from '../helpers/server.js';

const H = 3_600_000;
/** Berlin's 2026-06-01 runs from 2026-05-31T22:00Z (summer time). */
const YESTERDAY = Date.parse('2026-05-31T22:00:00Z');
const TODAY = YESTERDAY + 24 * H;
const config = { site: { timeZone: 'Europe/Berlin' } };

const start = (clock: ManualClock, dataDir: string, price: number) =>
  startTestServer({
    fixtures: ['day-prices'],
    plugins: [{ id: 'prices', plugin: 'day-prices', config: { provider: 'Day', price } }],
    clock,
    dataDir,
    config,
  });

const slotsOf = (body: GridResponse) => (body.pricing?.slots ?? []) as PriceSlot[];

test("yesterday's prices are kept across a restart and answered for a past range", async () => {
  const dataDir = tempDir();
  const clock = new ManualClock(YESTERDAY + 12 * H);
  const first = await start(clock, dataDir, 0.2);
  assert.equal(slotsOf((await (await first.api('/api/v1/grid')).json()) as GridResponse).length, 24);
  await first.close();

  clock.set(TODAY + 9 * H);
  const server = await start(clock, dataDir, 0.3);
  // Without a range the answer is as it always was: today onwards, from memory.
  const today = slotsOf((await (await server.api('/api/v1/grid')).json()) as GridResponse);
  assert.equal(today.length, 24);
  assert.ok(today.every((s) => s.price === 0.3 && Date.parse(s.from) >= TODAY));

  const range = `from=${new Date(YESTERDAY).toISOString()}&to=${new Date(TODAY + 24 * H).toISOString()}`;
  const res = await server.api(`/api/v1/grid?${range}`);
  assert.equal(res.status, 200, await res.clone().text());
  const body = (await res.json()) as GridResponse;
  assert.equal(body.provider, 'Day');
  const slots = slotsOf(body);
  assert.equal(slots.length, 48);
  assert.equal(slots[0]!.from, '2026-05-31T22:00:00Z');
  assert.deepEqual(
    [...new Set(slots.slice(0, 24).map((s) => s.price))],
    [0.2],
    "yesterday's slots at yesterday's price",
  );
  assert.deepEqual([...new Set(slots.slice(24).map((s) => s.price))], [0.3]);
  // Ranks are per local day among the slots answered: a flat day ranks in time order.
  assert.deepEqual(
    slots.slice(0, 3).map((s) => s.rank),
    [1, 2, 3],
  );

  // Only the hours asked for; a range wholly before the first price answers no slots.
  const hour = `from=${new Date(YESTERDAY + 5 * H).toISOString()}&to=${new Date(YESTERDAY + 7 * H).toISOString()}`;
  assert.equal(slotsOf((await (await server.api(`/api/v1/grid?${hour}`)).json()) as GridResponse).length, 2);
  const before = `from=2026-05-01T00:00:00Z&to=2026-05-02T00:00:00Z`;
  assert.equal(slotsOf((await (await server.api(`/api/v1/grid?${before}`)).json()) as GridResponse).length, 0);

  for (const [query, message] of [
    ['from=2026-05-31T22:00:00Z', /from and to go together/],
    ['from=2026-06-01T00:00:00Z&to=2026-05-31T00:00:00Z', /from must be before to/],
    ['from=2025-01-01T00:00:00Z&to=2026-06-01T00:00:00Z', /at most 367 days/],
    ['from=yesterday&to=2026-06-01T00:00:00Z', /RFC 3339/],
  ] as const) {
    const refused = await server.api(`/api/v1/grid?${query}`);
    assert.equal(refused.status, 400, query);
    assert.match(((await refused.json()) as { error: string }).error, message);
  }
});
