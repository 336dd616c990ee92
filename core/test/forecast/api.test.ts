import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ForecastPoints } from '@heliograph/plugins-sdk';
import type { ErrorCode, ErrorResponse } from '../../src/contract/types.js';
import { topicMeta } from '../helpers/topics.js';
import { assertErrorAnswer, assertSeriesHead } from '../helpers/routes-server.js';
import { forecastApi } from './support.js';

const Q = 15 * 60_000;
const H = 3_600_000;
// 10:07:33.250 UTC: inside the 10:00 quarter hour, with milliseconds the answer must drop.
const NOW = Date.parse('2026-10-24T10:07:33.250Z');
const SLOT = Date.parse('2026-10-24T10:00:00Z');

function quarterHours(from: number, to: number, value: (t: number) => number): ForecastPoints {
  const points: ForecastPoints = [];
  for (let t = from; t < to; t += Q) points.push([t, value(t)]);
  return points;
}

describe('GET /api/v1/forecast', () => {
  const { store, get } = forecastApi(NOW, (registry) =>
    registry.define(topicMeta('total/pv_power', { name: 'PV power' })),
  );
  const expectError = async (query: string, status: number, message: RegExp, code?: ErrorCode) =>
    assertErrorAnswer(query, await get<ErrorResponse>(query), { status, message, code });

  it('answers 404 saying no forecast plugin is configured before one registers', async () => {
    await expectError('?topic=weather/pv_power_predicted', 404, /no forecast plugin is configured/);
  });

  it('answers 404 until the first forecast is fetched', async () => {
    store.register('open-meteo');
    await expectError('?topic=weather/pv_power_predicted', 404, /no forecast fetched yet/, 'FORECAST_NOT_FETCHED');
  });

  it('answers the default range (now to 4 days ahead) at 15-minute spacing', async () => {
    const fetchedAt = NOW - 2 * 60_000 + 400;
    store.publish('open-meteo', {
      fetchedAt,
      series: {
        pv_power_predicted: quarterHours(SLOT - 48 * H, SLOT + 5 * 24 * H, (t) => ((t / Q) % 40) * 100.5),
        outside_temperature: quarterHours(SLOT - 48 * H, SLOT + 3 * 24 * H, (t) => 0.1 * ((t / Q) % 7) + 0.2),
      },
    });
    const { status, body } = await get('?topic=weather/pv_power_predicted');
    assert.equal(status, 200);
    assertSeriesHead(
      body,
      {
        topic: 'weather/pv_power_predicted',
        device: 'weather',
        number: null,
        group: 'Status',
        name: 'PV power predicted',
        unit: 'W',
      },
      ['last_updated', 'source', 'from', 'to', 'points'],
    );
    assert.equal(body.last_updated, '2026-10-24T10:05:33Z');
    assert.equal(body.from, '2026-10-24T10:07:33Z');
    assert.equal(body.to, '2026-10-28T10:07:33Z');
    assert.equal(body.points[0]![0], '2026-10-24T10:00:00Z', 'the first point is the quarter hour holding from');
    assert.equal(body.points.at(-1)![0], '2026-10-28T10:00:00Z', 'the last point starts before to');
    assert.equal(body.points.length, 4 * 96 + 1);
    for (let i = 1; i < body.points.length; i++)
      assert.equal(Date.parse(body.points[i]![0]) - Date.parse(body.points[i - 1]![0]), Q);
    for (const [time, value] of body.points) assert.equal(value, ((Date.parse(time) / Q) % 40) * 100.5);
  });

  it('answers an explicit range given with any offset, in UTC, including past points', async () => {
    const { status, body } = await get(
      `?topic=weather/outside_temperature&from=${encodeURIComponent('2026-10-23T00:00:00+02:00')}&to=${encodeURIComponent('2026-10-23T01:00:00.5+02:00')}`,
    );
    assert.equal(status, 200);
    assert.equal(body.unit, '°C');
    assert.equal(body.from, '2026-10-22T22:00:00Z');
    assert.equal(body.to, '2026-10-22T23:00:00Z');
    assert.deepEqual(
      body.points.map((p) => p[0]),
      [
        '2026-10-22T22:00:00Z',
        '2026-10-22T22:15:00Z',
        '2026-10-22T22:30:00Z',
        '2026-10-22T22:45:00Z',
        '2026-10-22T23:00:00Z',
      ],
    );
    for (const [, value] of body.points) assert.equal(String(value).length <= 4, true, `no float noise in ${value}`);
  });

  it('answers an empty list for a range without forecast', async () => {
    const { status, body } = await get(
      '?topic=weather/pv_power_predicted&from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z',
    );
    assert.equal(status, 200);
    assert.deepEqual(body.points, []);
  });

  it('answers 400 for a bad parameter', async () => {
    await expectError('', 400, /topic is required/);
    await expectError('?topic=weather/*', 400, /globs/);
    await expectError('?topic=weather/pv_power_predicte%3F', 400, /globs/);
    await expectError('?topic=weather/pv_power_predicted&from=yesterday', 400, /from must be an RFC 3339 time/);
    await expectError('?topic=weather/pv_power_predicted&to=2026-02-31T00:00:00Z', 400, /to must be an RFC 3339 time/);
    await expectError(
      '?topic=weather/pv_power_predicted&from=2026-10-24T10:00:00',
      400,
      /from must be an RFC 3339 time/,
    );
    await expectError(
      '?topic=weather/pv_power_predicted&from=2026-10-25T00:00:00Z&to=2026-10-25T00:00:00Z',
      400,
      /from must be before to/,
    );
    await expectError(
      '?topic=weather/pv_power_predicted&to=2026-10-24T00:00:00Z',
      400,
      /from must be before to \(from defaults to now\)/,
    );
    await expectError(
      '?topic=weather/pv_power_predicted&from=2026-11-24T00:00:00Z',
      400,
      /to defaults to 4 days after now/,
    );
    await expectError('?topic=weather/pv_power_predicted&topic=weather/is_day', 400, /more than once/);
  });

  it('answers 404 for an unknown topic, a topic without forecast, and one the plugin does not provide', async () => {
    await expectError('?topic=weather/rain', 404, /unknown topic "weather\/rain"/);
    await expectError('?topic=inverter_9/pv_power', 404, /unknown topic/);
    await expectError(
      '?topic=total/pv_power',
      404,
      /total\/pv_power has no forecast; forecast topics are weather\/pv_power_predicted/,
    );
    await expectError(
      '?topic=weather/cloud_cover',
      404,
      /does not provide it \(it provides weather\/outside_temperature, weather\/pv_power_predicted\)/,
      'FORECAST_NOT_PROVIDED',
    );
  });
});
