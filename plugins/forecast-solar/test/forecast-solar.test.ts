import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startTestHost, stopTestHosts, type TestHost } from '@heliograph/plugins-sdk/testing';
import { DateTime } from 'luxon';
import plugin from '../src/index.js';
import { startFakeForecastSolar, type FakeForecastSolar } from './fake-forecast-solar.js';

const ZONE = 'Europe/Berlin';
const Q = 15 * 60_000;
const NOW = Date.parse('2026-06-10T05:00:00Z');
const local = (iso: string) => DateTime.fromISO(iso, { zone: ZONE }).toMillis();

describe('forecast-solar plugin', () => {
  let fake: FakeForecastSolar;

  before(async () => (fake = await startFakeForecastSolar(NOW, ZONE)));
  after(() => stopTestHosts().then(() => fake.close()));
  beforeEach(() => {
    fake.requests.length = 0;
    fake.sent.length = 0;
    fake.canned.length = 0;
    // A fresh hour of quota for each test.
    fake.now += 2 * 3_600_000;
  });

  function start(
    config: Record<string, unknown>,
    options: { now?: number; store?: Record<string, unknown> } = {},
  ): Promise<TestHost> {
    return startTestHost({
      plugin,
      config: { baseUrl: fake.url, ...config },
      site: { timeZone: ZONE },
      now: options.now ?? fake.now,
      store: options.store,
      httpRetryDelayMs: 1,
    });
  }

  /** The watts the fake sent for `localTime` (e.g. `2026-06-10T10:00:00`). */
  const sentAt = (answer: number, localTime: string) =>
    fake.sent[answer]![
      DateTime.fromISO(localTime, { zone: ZONE }).toUTC().toISO({ suppressMilliseconds: true })!.replace('Z', '+00:00')
    ]!;
  const pointAt = (host: TestHost, localTime: string) =>
    host.forecasts.at(-1)!.series.pv_power_predicted!.find((p) => p[0] === local(localTime))![1]!;

  it('asks for the estimate of each array in UTC and resamples it to quarter hours', async () => {
    const host = await start({
      arrays: [
        { tilt: 30, azimuth: 0, kWp: 5 },
        { tilt: 15, azimuth: -90, kWp: 2.5 },
      ],
    });
    assert.equal(host.jobs.get('forecast')!.intervalMs, 30 * 60_000);
    await host.runJob('forecast');
    assert.deepEqual(
      fake.requests.map((r) => [r.apiKey, r.lat, r.lon, r.dec, r.az, r.kwp, Object.fromEntries(r.query)]),
      [
        [undefined, 52.52, 13.405, 30, 0, 5, { time: 'utc' }],
        [undefined, 52.52, 13.405, 15, -90, 2.5, { time: 'utc' }],
      ],
    );
    const run = host.forecasts[0]!;
    assert.deepEqual(Object.keys(run.series), ['pv_power_predicted']);
    const points = run.series.pv_power_predicted!;
    assert.equal(points.length, 2 * 96, 'today and tomorrow, whole local days');
    assert.equal(points[0]![0], local('2026-06-10T00:00:00'));
    for (let i = 1; i < points.length; i++) assert.equal(points[i]![0] - points[i - 1]![0], Q);

    // Between two hourly keys: the value at the quarter hour's middle.
    const both = (time: string) => sentAt(0, time) + sentAt(1, time);
    const [w10, w11] = [both('2026-06-10T10:00:00'), both('2026-06-10T11:00:00')];
    assert.ok(Math.abs(pointAt(host, '2026-06-10T10:00:00') - (w10 + ((w11 - w10) * 7.5) / 60)) < 1e-9);
    assert.ok(Math.abs(pointAt(host, '2026-06-10T10:45:00') - (w10 + ((w11 - w10) * 52.5) / 60)) < 1e-9);
    // Around sunrise (07:42:13 local, 0 W): dark before it, rising after it.
    assert.equal(pointAt(host, '2026-06-10T07:30:00'), 0);
    const sunrise = local('2026-06-10T07:42:13');
    const middle = local('2026-06-10T07:52:30');
    const expected = (both('2026-06-10T08:00:00') * (middle - sunrise)) / (local('2026-06-10T08:00:00') - sunrise);
    assert.ok(Math.abs(pointAt(host, '2026-06-10T07:45:00') - expected) < 1e-9);
    // After sunset (16:51:07 local) and in the night: nothing.
    assert.equal(pointAt(host, '2026-06-10T16:30:00') > 0, true);
    assert.equal(pointAt(host, '2026-06-10T17:00:00'), 0);
    assert.equal(pointAt(host, '2026-06-10T23:45:00'), 0);
  });

  it('never predicts more than an array AC limit', async () => {
    const host = await start({ arrays: [{ tilt: 30, azimuth: 0, kWp: 5, acLimitW: 3000 }] });
    await host.runJob('forecast');
    const values = host.forecasts[0]!.series.pv_power_predicted!.map((p) => p[1]!);
    assert.equal(Math.max(...values), 3000);
    assert.ok(Math.max(...Object.values(fake.sent[0]!)) > 3000, 'the fake curve goes above the limit');
  });

  for (const [day, quarterHours] of [
    ['2026-10-25', 100],
    ['2026-03-29', 92],
  ] as const) {
    it(`covers the daylight-saving change day ${day} with ${quarterHours} quarter hours`, async () => {
      const now = local(`${day}T06:00:00`);
      fake.now = now;
      const host = await start({ arrays: [{ tilt: 30, azimuth: 0, kWp: 5 }] }, { now });
      await host.runJob('forecast');
      const points = host.forecasts[0]!.series.pv_power_predicted!;
      const dayEnd = DateTime.fromISO(day, { zone: ZONE }).plus({ days: 1 }).toMillis();
      assert.equal(points.filter(([t]) => t < dayEnd).length, quarterHours);
      assert.equal(points.length, quarterHours + 96);
      const [w12, w13] = [sentAt(0, `${day}T12:00:00`), sentAt(0, `${day}T13:00:00`)];
      assert.ok(Math.abs(pointAt(host, `${day}T12:30:00`) - (w12 + ((w13 - w12) * 37.5) / 60)) < 1e-9);
    });
  }

  it('spaces fetches to stay within the free plan, and not with an API key', async () => {
    const four = Array.from({ length: 4 }, (_, i) => ({ tilt: 30, azimuth: -90 + 60 * i, kWp: 2 }));
    assert.equal((await start({ arrays: four })).jobs.get('forecast')!.intervalMs, 40 * 60_000);
    const keyed = await start({ arrays: four, apiKey: 'abc123' });
    assert.equal(keyed.jobs.get('forecast')!.intervalMs, 30 * 60_000);
    await keyed.runJob('forecast');
    assert.deepEqual(
      fake.requests.map((r) => r.apiKey),
      ['abc123', 'abc123', 'abc123', 'abc123'],
    );
  });

  it('on HTTP 429 waits until retry-at, keeping the last forecast, then fetches again', async () => {
    const host = await start({
      arrays: [
        { tilt: 30, azimuth: 0, kWp: 5 },
        { tilt: 30, azimuth: 90, kWp: 3 },
      ],
    });
    for (let i = 0; i < 6; i++) await host.runJob('forecast');
    assert.equal(host.forecasts.length, 6);
    const retryAt = fake.now + 3_600_000;
    await assert.rejects(host.runJob('forecast'), (err: Error) => {
      assert.match(err.message, /rate limit is reached \(12 calls per hour on the free plan\): no call before/);
      assert.ok(err.message.includes(new Date(retryAt).toISOString()), err.message);
      return true;
    });
    assert.equal(host.forecasts.length, 6, 'nothing published');
    assert.equal(host.store.get('retryAt'), retryAt);

    const asked = fake.requests.length;
    host.advance(30 * 60_000);
    await assert.rejects(host.runJob('forecast'), /no call before/);
    assert.equal(fake.requests.length, asked, 'no call before retry-at');

    fake.now = retryAt + 1;
    host.setTime(retryAt + 1);
    await host.runJob('forecast');
    assert.equal(host.forecasts.length, 7);
    assert.equal(host.store.has('retryAt'), false);
  });

  it('remembers retry-at across a restart', async () => {
    const host = await start(
      { arrays: [{ tilt: 30, azimuth: 0, kWp: 5 }] },
      { store: { retryAt: fake.now + 600_000 } },
    );
    await assert.rejects(host.runJob('forecast'), /no call before/);
    assert.equal(fake.requests.length, 0);
  });

  for (const [status, body, expected] of [
    [
      503,
      '{"result":null,"message":{"code":503,"type":"error","text":"Service temporarily unavailable"}}',
      /Forecast.Solar is unavailable \(HTTP 503\): Service temporarily unavailable; the last forecast stays/,
    ],
    [
      500,
      '<html><body>Internal Server Error</body></html>',
      /Forecast.Solar is unavailable \(HTTP 500\); the last forecast stays/,
    ],
    [
      422,
      '{"result":null,"message":{"code":422,"type":"error","text":"Invalid longitude, must be between -180 and 180"}}',
      /refused the request \(HTTP 422\): Invalid longitude.*check latitude/,
    ],
    [200, '{"result":{"watts":{"2026-06-10T05:42:13+00:00":0,', /not JSON/],
    [
      200,
      '{"result":{"watts":{"2026-06-10T05:42:13+00:00":0,"2026-06-10T06:00:00+00:00":"270"}},"message":{"code":0,"type":"success"}}',
      /Forecast.Solar answer: result\.watts\["2026-06-10T06:00:00\+00:00"\]: .*number/,
    ],
    [
      200,
      '{"result":{"watts":{"tomorrow 7am":270}},"message":{"code":0,"type":"success"}}',
      /Forecast.Solar answer: result\.watts\["tomorrow 7am"\]: the key is not a time/,
    ],
    [200, '{"result":"ok","message":{"code":0,"type":"success"}}', /Forecast.Solar answer: result: .*object/],
  ] as const) {
    it(`keeps the last forecast on HTTP ${status} (${body.slice(0, 40)}...)`, async () => {
      const host = await start({ arrays: [{ tilt: 30, azimuth: 0, kWp: 5 }] });
      await host.runJob('forecast');
      // As in the server, ctx.http tries a GET three times on a 5xx answer (twice more after the first).
      for (let attempt = 0; attempt < (status >= 500 ? 3 : 1); attempt++) fake.canned.push({ status, body });
      await assert.rejects(host.runJob('forecast'), expected);
      assert.equal(host.forecasts.length, 1, 'nothing published');
    });
  }
});
