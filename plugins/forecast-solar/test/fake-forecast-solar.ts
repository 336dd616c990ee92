/**
 * A local stand-in for api.forecast.solar: `/estimate/:lat/:lon/:dec/:az/:kwp` (and the
 * `/:apikey/estimate/...` form) answering today's and tomorrow's curve in its wire format,
 * with sunrise and sunset keys at irregular times, and the free plan's 12 calls per hour
 * enforced with its HTTP 429 answer.
 */
import { send, sendJson, startFakeServer } from '@heliograph/plugins-sdk/fake-server';
import { DateTime } from 'luxon';

export interface CannedAnswer {
  status: number;
  body: string;
}

export interface FakeRequest {
  apiKey?: string;
  lat: number;
  lon: number;
  dec: number;
  az: number;
  kwp: number;
  query: URLSearchParams;
}

export interface FakeForecastSolar {
  url: string;
  readonly requests: FakeRequest[];
  /** The `watts` maps sent, in order. */
  readonly sent: Array<Record<string, number>>;
  readonly canned: CannedAnswer[];
  /** The fake's clock (Unix ms): days and the rate limit count from it. */
  now: number;
  readonly timeZone: string;
  close(): Promise<void>;
}

const LIMIT = 12;

/** Power of the fake's curve at `t` for a day with the given sunrise and sunset. */
export function fakeWatts(t: number, sunrise: number, sunset: number, kwp: number, az: number): number {
  if (t <= sunrise || t >= sunset) return 0;
  return Math.round(kwp * 800 * Math.sin((Math.PI * (t - sunrise)) / (sunset - sunrise)) * (1 - Math.abs(az) / 400));
}

/** Local sunrise and sunset of a day: irregular times, a little later each day. */
export function sunTimes(day: DateTime, index: number): { sunrise: DateTime; sunset: DateTime } {
  return {
    sunrise: day.set({ hour: 7, minute: 42 + index, second: 13 }),
    sunset: day.set({ hour: 16, minute: 51 - index, second: 7 }),
  };
}

function estimate(request: FakeRequest, now: number, timeZone: string): Record<string, unknown> {
  const utc = request.query.get('time') === 'utc';
  const format = (t: DateTime) =>
    (utc ? t.toUTC() : t).toISO({ suppressMilliseconds: true, includeOffset: true })!.replace(/Z$/, '+00:00');
  const watts: Record<string, number> = {};
  const period: Record<string, number> = {};
  const cumulative: Record<string, number> = {};
  const perDay: Record<string, number> = {};
  const today = DateTime.fromMillis(now, { zone: timeZone }).startOf('day');
  for (let d = 0; d < 2; d++) {
    const day = today.plus({ days: d });
    const { sunrise, sunset } = sunTimes(day, d);
    const keys = [sunrise];
    for (let hour = sunrise.startOf('hour').plus({ hours: 1 }); hour < sunset; hour = hour.plus({ hours: 1 }))
      keys.push(hour);
    keys.push(sunset);
    let energy = 0;
    let previous = sunrise;
    for (const key of keys) {
      const w = fakeWatts(key.toMillis(), sunrise.toMillis(), sunset.toMillis(), request.kwp, request.az);
      const wh = Math.round((w * key.diff(previous, 'hours').hours) / 2);
      energy += wh;
      watts[format(key)] = w;
      period[format(key)] = wh;
      cumulative[format(key)] = energy;
      previous = key;
    }
    perDay[day.toISODate()!] = energy;
  }
  return { result: { watts, watt_hours_period: period, watt_hours: cumulative, watt_hours_day: perDay } };
}

export async function startFakeForecastSolar(now: number, timeZone = 'Europe/Berlin'): Promise<FakeForecastSolar> {
  const requests: FakeRequest[] = [];
  const sent: Array<Record<string, number>> = [];
  const canned: CannedAnswer[] = [];
  const calls: number[] = [];
  const fake = { requests, sent, canned, now, timeZone } as FakeForecastSolar;

  const server = await startFakeServer({
    handle: (req, res) => {
      const match = /^\/(?:([^/]+)\/)?estimate\/([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(req.path);
      if (!match) return sendJson(res, 404, { result: null, message: { code: 404, type: 'error', text: 'Not found' } });
      const [, apiKey, lat, lon, dec, az, kwp] = match;
      const request: FakeRequest = {
        apiKey,
        lat: Number(lat),
        lon: Number(lon),
        dec: Number(dec),
        az: Number(az),
        kwp: Number(kwp),
        query: req.query,
      };
      requests.push(request);

      // The quota counts the calls of the last hour (tests may also move the clock back).
      const recent = calls.filter((t) => t > fake.now - 3_600_000 && t <= fake.now);
      calls.splice(0, calls.length, ...recent);
      if (!apiKey && calls.length >= LIMIT) {
        const retryAt = DateTime.fromMillis(calls[0]! + 3_600_000, { zone: timeZone }).toISO({
          suppressMilliseconds: true,
        });
        return sendJson(res, 429, {
          result: 'Rate limit for API calls reached.',
          message: { code: 429, type: 'error', ratelimit: { period: 3600, limit: LIMIT, 'retry-at': retryAt } },
        });
      }
      calls.push(fake.now);
      const next = canned.shift();
      if (next) return send(res, next.status, 'application/json', next.body);
      const body = estimate(request, fake.now, timeZone);
      sent.push((body.result as { watts: Record<string, number> }).watts);
      sendJson(res, 200, {
        ...body,
        message: {
          code: 0,
          type: 'success',
          text: '',
          info: {
            latitude: request.lat,
            longitude: request.lon,
            distance: 0,
            place: 'Fake place',
            timezone: timeZone,
            time: DateTime.fromMillis(fake.now, { zone: timeZone }).toISO(),
            time_utc: new Date(fake.now).toISOString(),
          },
          ratelimit: { period: 3600, limit: LIMIT, remaining: LIMIT - calls.length },
        },
      });
    },
  });
  fake.url = server.url;
  fake.close = () => server.close();
  return fake;
}
