import { z, type PluginContext } from '@heliograph/plugins-sdk';
import type { PanelArray } from './pv.js';

/** The variables asked for, in Open-Meteo's names. */
export const MINUTELY_15_VARIABLES = ['temperature_2m', 'weather_code', 'is_day', 'cloud_cover', 'wind_speed_10m', 'global_tilted_irradiance'] as const;

type Variable = (typeof MINUTELY_15_VARIABLES)[number];

/** One answer's 15-minute series; times in Unix seconds (UTC), values may be null. */
export type Minutely15 = { time: number[] } & Record<Variable, Array<number | null>>;

const values = z.array(z.number().nullable());

const answerSchema = z.object({
  minutely_15: z
    .object({
      time: z.array(z.number().int()),
      temperature_2m: values,
      weather_code: values,
      is_day: values,
      cloud_cover: values,
      wind_speed_10m: values,
      global_tilted_irradiance: values,
    })
    .superRefine((m, ctx) => {
      for (const name of MINUTELY_15_VARIABLES) {
        if (m[name].length !== m.time.length) ctx.addIssue({ code: 'custom', path: [name], message: `has ${m[name].length} values for ${m.time.length} times` });
      }
    }),
});

const errorSchema = z.object({ error: z.literal(true), reason: z.string() });

export interface ForecastRequest {
  baseUrl: string;
  latitude: number;
  longitude: number;
  array: PanelArray;
  temperatureUnit: 'C' | 'F';
  forecastDays: number;
  signal: AbortSignal;
}

/** Fetches the 15-minute forecast for one panel orientation; throws a message a user can act on. */
export async function fetchMinutely15(http: PluginContext['http'], request: ForecastRequest): Promise<Minutely15> {
  // Relative to the base URL, so a self-hosted Open-Meteo under a path prefix works too.
  const url = new URL('v1/forecast', request.baseUrl.endsWith('/') ? request.baseUrl : `${request.baseUrl}/`);
  const searchParams = {
    latitude: String(request.latitude),
    longitude: String(request.longitude),
    minutely_15: MINUTELY_15_VARIABLES.join(','),
    tilt: String(request.array.tilt),
    azimuth: String(request.array.azimuth),
    temperature_unit: request.temperatureUnit === 'F' ? 'fahrenheit' : 'celsius',
    wind_speed_unit: 'kmh',
    timezone: 'GMT',
    timeformat: 'unixtime',
    // Two past days so the stored forecast reaches about 48 h back (decisions.md).
    past_days: '2',
    forecast_days: String(request.forecastDays),
  };
  let response;
  try {
    response = await http.get(url, { searchParams, signal: request.signal, throwHttpErrors: false, responseType: 'text' });
  } catch (err) {
    if (request.signal.aborted) throw err;
    throw new Error(`Open-Meteo could not be reached at ${request.baseUrl}: ${(err as Error).message}; the last forecast stays and the fetch is retried`);
  }
  const body = parseJson(response.body);
  if (response.statusCode !== 200) throw new Error(describeFailure(response.statusCode, body));
  if (body === undefined) throw new Error('Open-Meteo answered with a body that is not JSON; the last forecast stays and the fetch is retried');
  const parsed = answerSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Open-Meteo answered in an unexpected format: ${formatPath(issue.path)}: ${issue.message}; the last forecast stays`);
  }
  return parsed.data.minutely_15;
}

function describeFailure(status: number, body: unknown): string {
  const reason = errorSchema.safeParse(body);
  const why = reason.success ? `: ${reason.data.reason}` : '';
  if (status === 400) return `Open-Meteo refused the request (HTTP 400)${why}; check latitude, longitude and the panel arrays in the plugin config`;
  if (status === 429) return `Open-Meteo's rate limit is reached (HTTP 429)${why}; the last forecast stays and the fetch is retried later`;
  if (status >= 500) return `Open-Meteo is unavailable (HTTP ${status})${why}; the last forecast stays and the fetch is retried`;
  return `Open-Meteo answered HTTP ${status}${why}; the last forecast stays`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `minutely_15.global_tilted_irradiance[3]`, or `the answer` for the body as a whole. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'the answer';
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join('');
}
