import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startTestHost, stopTestHosts, type TestHost } from '@heliograph/plugins-sdk/testing';
import plugin from '../src/index.js';
import { startFakeOpenMeteo, type FakeOpenMeteo } from './fake-open-meteo.js';

const Q = 15 * 60_000;
const NOW = Date.parse('2026-06-10T09:20:00Z');

const south = { tilt: 30, azimuth: 0, kWp: 6, acLimitW: 4000 };
const west = { tilt: 20, azimuth: 90, kWp: 3 };

/** The PVWatts-style expectation, written out independently of the plugin. */
function expectedPower(kWp: number, gti: number, airC: number, acLimitW = Infinity): number {
  const cell = airC + gti * 0.0342;
  const p = kWp * 1000 * (gti / 1000) * (1 + -0.004 * (cell - 25)) * 0.85;
  return Math.min(Math.max(p, 0), acLimitW);
}

describe('open-meteo plugin', () => {
  let fake: FakeOpenMeteo;

  before(async () => (fake = await startFakeOpenMeteo(NOW)));
  after(() => stopTestHosts().then(() => fake.close()));
  beforeEach(() => {
    fake.requests.length = 0;
    fake.sent.length = 0;
    fake.canned.length = 0;
    fake.nullAt.clear();
    fake.now = NOW;
  });

  function start(config: Record<string, unknown>, site: Record<string, unknown> = {}, now = NOW): Promise<TestHost> {
    return startTestHost({
      plugin,
      config: { baseUrl: fake.url, ...config },
      site: { timeZone: 'Europe/Berlin', ...site },
      now,
      httpRetryDelayMs: 1,
    });
  }

  it('asks for every array with the documented parameters and publishes all seven topics', async () => {
    const host = await start({ arrays: [south, west] });
    assert.equal(host.jobs.get('forecast')!.intervalMs, 30 * 60_000);
    await host.runJob('forecast');

    assert.equal(fake.requests.length, 2, 'one request per array orientation');
    for (const [query, array] of [
      [fake.requests[0]!, south],
      [fake.requests[1]!, west],
    ] as const) {
      assert.deepEqual(Object.fromEntries(query), {
        latitude: '52.52',
        longitude: '13.405',
        minutely_15: 'temperature_2m,weather_code,is_day,cloud_cover,wind_speed_10m,global_tilted_irradiance',
        tilt: String(array.tilt),
        azimuth: String(array.azimuth),
        temperature_unit: 'celsius',
        wind_speed_unit: 'kmh',
        timezone: 'GMT',
        timeformat: 'unixtime',
        past_days: '2',
        forecast_days: '3',
      });
    }

    assert.equal(host.forecasts.length, 1);
    const run = host.forecasts[0]!;
    assert.equal(run.fetchedAt, NOW);
    assert.deepEqual(Object.keys(run.series).sort(), [
      'cloud_cover',
      'global_tilted_irradiance',
      'is_day',
      'outside_temperature',
      'pv_power_predicted',
      'weather_code',
      'wind_speed',
    ]);
    const [a, b] = fake.sent.map((s) => s.minutely15);
    const times = a!.time as number[];
    assert.equal(times.length, 5 * 96, 'two past days and three ahead');

    // Radiation is stamped at the end of its quarter hour: the point at T - 15 min carries it.
    const pv = new Map(run.series.pv_power_predicted);
    const gti = new Map(run.series.global_tilted_irradiance);
    let clamped = 0;
    times.forEach((t, i) => {
      const airC = a!.temperature_2m![i]!;
      const expected =
        expectedPower(6, a!.global_tilted_irradiance![i]!, airC, 4000) +
        expectedPower(3, b!.global_tilted_irradiance![i]!, airC);
      if (expectedPower(6, a!.global_tilted_irradiance![i]!, airC) > 4000) clamped++;
      assert.ok(Math.abs(pv.get(t * 1000 - Q)! - expected) < 1e-9, `pv at ${t}`);
      const meanGti = (6 * a!.global_tilted_irradiance![i]! + 3 * b!.global_tilted_irradiance![i]!) / 9;
      assert.ok(Math.abs(gti.get(t * 1000 - Q)! - meanGti) < 1e-9);
    });
    assert.ok(clamped > 0, 'the south array reaches its AC limit around noon');
    assert.ok(
      [...pv.values()].some((p) => p === 0),
      'nights predict zero',
    );
    assert.deepEqual(run.series.outside_temperature![10], [times[10]! * 1000, a!.temperature_2m![10]]);
    assert.deepEqual(run.series.wind_speed![3], [times[3]! * 1000, a!.wind_speed_10m![3]]);
    assert.deepEqual(
      run.series.weather_code!.map((p) => p[1]),
      a!.weather_code,
    );
  });

  it('publishes °F when the site says F, and still derates PV from °C', async () => {
    const celsius = await start({ arrays: [south] });
    await celsius.runJob('forecast');
    const host = await start({ arrays: [south], latitude: 47.1, longitude: 8.5 }, { temperatureUnit: 'F' });
    await host.runJob('forecast');
    const query = fake.requests.at(-1)!;
    assert.equal(query.get('temperature_unit'), 'fahrenheit');
    assert.equal(query.get('latitude'), '47.1');
    assert.equal(query.get('longitude'), '8.5');
    const [c, f] = [celsius.forecasts[0]!, host.forecasts[0]!];
    const noon = Date.parse('2026-06-10T12:00:00Z');
    const tempAt = (run: typeof c, t: number) => run.series.outside_temperature!.find((p) => p[0] === t)![1]!;
    assert.ok(Math.abs(tempAt(f, noon) - (tempAt(c, noon) * 9) / 5 - 32) <= 0.06, 'the temperature topic is in °F');
    const pvAt = (run: typeof c, t: number) => run.series.pv_power_predicted!.find((p) => p[0] === t)![1]!;
    for (const hour of [7, 9, 15, 17]) {
      const t = Date.parse(`2026-06-10T${String(hour).padStart(2, '0')}:00:00Z`);
      // °F on the wire has one decimal, so °C read back can be off by 0.03 K: at -0.4 %/K
      // that is at most 0.012 % of the power.
      assert.ok(pvAt(c, t) > 0);
      assert.ok(
        Math.abs(pvAt(f, t) - pvAt(c, t)) <= pvAt(c, t) * 0.00012,
        `PV at ${hour}h does not depend on the display unit`,
      );
    }
  });

  it('leaves a quarter hour without irradiance unknown, and derates nothing without a temperature', async () => {
    const host = await start({ arrays: [west] });
    const gap = Date.parse('2026-06-10T11:00:00Z') / 1000;
    fake.nullAt.add(gap);
    await host.runJob('forecast');
    const run = host.forecasts[0]!;
    const at = (topic: 'pv_power_predicted' | 'outside_temperature' | 'global_tilted_irradiance', t: number) =>
      run.series[topic]!.find((p) => p[0] === t)![1];
    assert.equal(at('pv_power_predicted', gap * 1000 - Q), null);
    assert.equal(at('global_tilted_irradiance', gap * 1000 - Q), null);
    assert.equal(at('outside_temperature', gap * 1000), null);
    assert.ok((at('pv_power_predicted', gap * 1000) as number) > 0, 'the next quarter hour is there');
  });

  it('covers a daylight-saving change day with 100 contiguous quarter hours', async () => {
    const now = Date.parse('2026-10-25T08:00:00Z');
    fake.now = now;
    const host = await start({ arrays: [south] }, {}, now);
    await host.runJob('forecast');
    const points = host.forecasts[0]!.series.pv_power_predicted!;
    for (let i = 1; i < points.length; i++) assert.equal(points[i]![0] - points[i - 1]![0], Q);
    // Berlin's 2026-10-25 runs from 22:00Z on the 24th to 23:00Z on the 25th: 25 hours.
    const inDay = points.filter(
      ([t]) => t >= Date.parse('2026-10-24T22:00:00Z') && t < Date.parse('2026-10-25T23:00:00Z'),
    );
    assert.equal(inDay.length, 100);
  });

  for (const [status, body, expected] of [
    [
      429,
      '{"error":true,"reason":"Minutely API request limit exceeded. Please try again in one minute."}',
      /Open-Meteo answered HTTP 429 .*\("Minutely API request limit exceeded.*"\): .*rate limit was reached; the last forecast stays/,
    ],
    [
      503,
      '<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>',
      /Open-Meteo answered HTTP 503 .*: the service has a problem on its side; the last forecast stays/,
    ],
    [
      500,
      '{"error":true,"reason":"Internal Server Error"}',
      /Open-Meteo answered HTTP 500 .*\("Internal Server Error"\): the service has a problem on its side/,
    ],
    [
      400,
      '{"error":true,"reason":"Latitude must be in range of -90 to 90°. Given: 100.0."}',
      /Open-Meteo answered HTTP 400 .*\("Latitude must be in range.*"\): the service refused the request; check the plugin settings/,
    ],
    [200, '{"latitude":52.52,"minutely_15":{"time":[1780272000]', /not JSON/],
  ] as const) {
    it(`keeps the last good forecast on HTTP ${status}${status === 200 ? ' with a cut-off body' : ''}`, async () => {
      const host = await start({ arrays: [south, west] });
      await host.runJob('forecast');
      const contentType = body.startsWith('<') ? 'text/html' : 'application/json';
      // As in the server, ctx.http tries a GET three times on a 5xx answer (twice more after the first).
      for (let attempt = 0; attempt < (status >= 500 ? 3 : 1); attempt++)
        fake.canned.push({ status, body, contentType });
      await assert.rejects(host.runJob('forecast'), expected);
      assert.equal(host.forecasts.length, 1, 'nothing published: the last good forecast stays');
    });
  }

  it('names the field of a malformed answer and publishes nothing', async () => {
    const host = await start({ arrays: [south] });
    const good = JSON.stringify({
      minutely_15: {
        time: [1780272000, 1780272900],
        temperature_2m: [15.2, 15],
        weather_code: [3, 3],
        is_day: [0, 0],
        cloud_cover: [88, 90],
        wind_speed_10m: [7.9, 8.3],
        global_tilted_irradiance: [0, 0],
      },
    });
    fake.canned.push({
      status: 200,
      body: good.replace('"global_tilted_irradiance":[0,0]', '"global_tilted_irradiance":[0,"n/a"]'),
    });
    await assert.rejects(
      host.runJob('forecast'),
      /Open-Meteo answer: minutely_15\.global_tilted_irradiance\[1\]: .*number/,
    );
    fake.canned.push({ status: 200, body: good.replace('"cloud_cover":[88,90]', '"cloud_cover":[88]') });
    await assert.rejects(host.runJob('forecast'), /minutely_15\.cloud_cover: has 1 values for 2 times/);
    fake.canned.push({ status: 200, body: good.replace('"minutely_15"', '"hourly"') });
    await assert.rejects(host.runJob('forecast'), /minutely_15: .*object/);
    assert.equal(host.forecasts.length, 0);
  });

  it('refuses a config without panel arrays, naming what is missing', async () => {
    await assert.rejects(startTestHost({ plugin, config: { arrays: [] } }), /at least one panel array/);
    await assert.rejects(startTestHost({ plugin, config: { arrays: [{ tilt: 95, azimuth: 0, kWp: 5 }] } }), /arrays/);
  });
});
