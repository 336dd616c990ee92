import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/api/app.js';
import { gridRoutes } from '../../src/api/grid/route.js';
import type { GridResponse } from '../../src/contract/types.js';
import { ManualClock } from '../../src/clock.js';
import { PriceBook } from '../../src/grid/book.js';
import { getJson, listenRoutes } from '../helpers/routes-server.js';

const H = 3_600_000;

describe('GET /api/v1/grid', () => {
  const clock = new ManualClock(Date.parse('2026-06-01T09:30:00Z'));
  const book = new PriceBook({ clock, timeZone: 'Europe/Berlin', multiplier: 1, offset: 0.05 });
  let server: RunningServer;

  before(async () => {
    server = await listenRoutes([gridRoutes({ book })]);
  });
  after(() => server.close());

  const get = () => getJson<GridResponse>(`${server.url}/api/v1/grid`);

  it('answers provider "none" and pricing null while no price plugin is configured', async () => {
    const { status, type, body } = await get();
    assert.equal(status, 200);
    assert.match(type, /^application\/json/);
    assert.deepEqual(body, { provider: 'none', schedule_type: 'pricing', pricing: null });
  });

  it('answers an empty slot list before the first prices, then the slots with rank and premium', async () => {
    book.declare('awattar', { provider: 'aWATTar', currency: 'EUR', scheduleType: 'pricing' });
    assert.deepEqual((await get()).body, {
      provider: 'aWATTar',
      source: 'awattar',
      schedule_type: 'pricing',
      pricing: { currency: 'EUR', unit: 'EUR/kWh', slots: [] },
      status: { state: 'stale', message: 'no prices from aWATTar yet', last_data: null },
    });

    // Berlin's 2026-06-01 runs from 2026-05-31T22:00Z; the first two hours of it plus one of the day before.
    const dayStart = Date.parse('2026-05-31T22:00:00Z');
    book.publish('awattar', {
      import: [
        { start: dayStart - H, end: dayStart, price: 0.3 },
        { start: dayStart, end: dayStart + H, price: 0.2 },
        { start: dayStart + H, end: dayStart + 2 * H, price: 0.1 },
      ],
    });
    const { body } = await get();
    assert.deepEqual(body.pricing?.slots, [
      { from: '2026-05-31T22:00:00Z', to: '2026-05-31T23:00:00Z', price: 0.25, rank: 2, premium: 0.05 },
      { from: '2026-05-31T23:00:00Z', to: '2026-06-01T00:00:00Z', price: 0.15, rank: 1, premium: -0.05 },
    ]);
  });
});
