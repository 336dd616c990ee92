/**
 * A local stand-in for api.open-meteo.com/v1/forecast that answers in its wire format
 * (minutely_15, unixtime, GMT), computing plausible weather for whatever range and
 * orientation it is asked for, so tests can check both the request and the result.
 */
import { send, startFakeServer } from '@heliograph/plugins-sdk/fake-server';

export interface CannedAnswer {
  status: number;
  body: string;
  contentType?: string;
}

/** One answer the fake sent: its query and the minutely_15 block. */
export interface SentAnswer {
  query: URLSearchParams;
  minutely15: Record<string, Array<number | null>>;
}

export interface FakeOpenMeteo {
  url: string;
  /** Every request's query, in order. */
  readonly requests: URLSearchParams[];
  /** Every normal answer sent, in order. */
  readonly sent: SentAnswer[];
  /** Answers to give instead of the computed one, first in first out. */
  readonly canned: CannedAnswer[];
  /** Unix ms of "now" for the fake: past_days counts back from its UTC day. */
  now: number;
  /** Unix seconds at which temperature and irradiance read null, as near the model horizon. */
  readonly nullAt: Set<number>;
  close(): Promise<void>;
}

const QUARTER_HOUR_S = 900;
const JSON_TYPE = 'application/json; charset=utf-8';
const round1 = (x: number) => Math.round(x * 10) / 10;

/** Irradiance on a tilted plane: a sun arc over the UTC day, weaker away from south. */
export function fakeIrradiance(t: number, tilt: number, azimuth: number): number {
  const hour = (((t % 86_400) + 86_400) % 86_400) / 3600;
  const sun = Math.sin((Math.PI * (hour - 4)) / 16);
  return sun <= 0 ? 0 : round1(1000 * sun * (1 - Math.abs(azimuth) / 400) * (1 - tilt / 400));
}

function answer(query: URLSearchParams, now: number, nullAt: ReadonlySet<number>): Record<string, unknown> {
  const dayStart = Math.floor(now / 86_400_000) * 86_400;
  const start = dayStart - Number(query.get('past_days') ?? 0) * 86_400;
  const end = dayStart + Number(query.get('forecast_days') ?? 7) * 86_400;
  const fahrenheit = query.get('temperature_unit') === 'fahrenheit';
  const tilt = Number(query.get('tilt') ?? 0);
  const azimuth = Number(query.get('azimuth') ?? 0);
  const m: Record<string, Array<number | null>> = {
    time: [],
    temperature_2m: [],
    weather_code: [],
    is_day: [],
    cloud_cover: [],
    wind_speed_10m: [],
    global_tilted_irradiance: [],
  };
  for (let t = start, i = 0; t < end; t += QUARTER_HOUR_S, i++) {
    const hour = (t % 86_400) / 3600;
    const celsius = round1(12 + 9 * Math.sin((Math.PI * (hour - 9)) / 12));
    const missing = nullAt.has(t);
    m.time!.push(t);
    m.temperature_2m!.push(missing ? null : fahrenheit ? round1((celsius * 9) / 5 + 32) : celsius);
    m.weather_code!.push([0, 1, 2, 3, 45, 61][i % 6]!);
    m.is_day!.push(hour >= 5 && hour < 19 ? 1 : 0);
    m.cloud_cover!.push((i * 7) % 101);
    m.wind_speed_10m!.push(round1(4 + (i % 10) * 0.7));
    m.global_tilted_irradiance!.push(missing ? null : fakeIrradiance(t, tilt, azimuth));
  }
  return {
    latitude: Number(query.get('latitude')),
    longitude: Number(query.get('longitude')),
    generationtime_ms: 0.62,
    utc_offset_seconds: 0,
    timezone: 'GMT',
    timezone_abbreviation: 'GMT',
    elevation: 38,
    minutely_15_units: {
      time: 'unixtime',
      temperature_2m: fahrenheit ? '°F' : '°C',
      weather_code: 'wmo code',
      is_day: '',
      cloud_cover: '%',
      wind_speed_10m: 'km/h',
      global_tilted_irradiance: 'W/m²',
    },
    minutely_15: m,
  };
}

export async function startFakeOpenMeteo(now: number): Promise<FakeOpenMeteo> {
  const requests: URLSearchParams[] = [];
  const sent: SentAnswer[] = [];
  const canned: CannedAnswer[] = [];
  const nullAt = new Set<number>();
  const fake = { requests, sent, canned, nullAt, now } as FakeOpenMeteo;

  const server = await startFakeServer({
    handle: (request, res) => {
      requests.push(request.query);
      if (request.path !== '/v1/forecast')
        return send(res, 404, JSON_TYPE, JSON.stringify({ error: true, reason: 'Not Found' }));
      const next = canned.shift();
      if (next) return send(res, next.status, next.contentType ?? JSON_TYPE, next.body);
      const body = answer(request.query, fake.now, nullAt);
      sent.push({ query: request.query, minutely15: body.minutely_15 as SentAnswer['minutely15'] });
      send(res, 200, JSON_TYPE, JSON.stringify(body));
    },
  });
  fake.url = server.url;
  fake.close = () => server.close();
  return fake;
}
