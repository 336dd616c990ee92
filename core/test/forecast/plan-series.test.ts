import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ErrorResponse, ForecastResponse } from '../../src/contract/types.js';
import { forecastApi } from './support.js';

const Q = 15 * 60_000;
const NOW = Date.parse('2026-10-24T10:07:00Z');
const SLOT = Date.parse('2026-10-24T10:00:00Z');

describe('GET /api/v1/forecast: plan series', () => {
  const { store, get } = forecastApi(NOW);

  it('serves a plugin plan as a forecast topic, replaced by each plan, without making weather available', async () => {
    const points = (n: number, v: number): Array<[number, number]> =>
      Array.from({ length: n }, (_, i) => [SLOT + i * Q, v + i]);
    store.publish('planner', {
      series: {},
      plan: [{ topic: 'planner/soc_planned', name: 'Planned state of charge', unit: '%', points: points(8, 40) }],
    });
    const answer = await get<ForecastResponse>('?topic=planner/soc_planned');
    assert.equal(answer.status, 200);
    assert.equal(answer.body.unit, '%');
    assert.equal(answer.body.name, 'Planned state of charge');
    assert.equal(answer.body.points.length, 8);
    assert.deepEqual(answer.body.points[0], ['2026-10-24T10:00:00Z', 40]);

    store.publish('planner', {
      series: {},
      plan: [{ topic: 'planner/soc_planned', name: 'Planned state of charge', unit: '%', points: points(3, 70) }],
    });
    assert.equal((await get<ForecastResponse>('?topic=planner/soc_planned')).body.points.length, 3, 'replaced whole');

    const weather = await get<ErrorResponse>('?topic=weather/pv_power_predicted');
    assert.equal(weather.status, 404);
    assert.match(JSON.stringify(weather.body), /no forecast plugin is configured/);

    store.publish('other', {
      series: {},
      plan: [{ topic: 'planner/soc_planned', name: 'x', unit: '%', points: points(1, 1) }],
    });
    assert.equal((await get<ForecastResponse>('?topic=planner/soc_planned')).body.points.length, 3, 'not taken over');

    // What a worker's plugin might send: ignored, never thrown into the host.
    store.publish('other', { series: {}, plan: [{ topic: 5 }, null] as never });
    store.publish('other', { series: {}, plan: 'x' as never });

    store.dropPlans('planner');
    assert.equal((await get<ErrorResponse>('?topic=planner/soc_planned')).status, 404, 'gone when the planner stops');
  });
});
