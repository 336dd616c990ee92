import { parseAnswer, parseJson, type PluginContext, requestFailure, z } from '@heliograph/plugins-sdk';
import type { PanelArray } from './pv.js';

/** The variables asked for, in Open-Meteo's names. */
export const MINUTELY_15_VARIABLES = [
  'temperature_2m',
  'weather_code',
  'is_day',
  'cloud_cover',
  'wind_speed_10m',
  'global_tilted_irradiance',
] as const;

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
        if (m[name].length !== m.time.length)
          ctx.addIssue({
            code: 'custom',
            path: [name],
            message: `has ${m[name].length} values for ${m.time.length} times`,
          });
      }
    }),
});

const errorSchema = z.object({ error: z.literal(true), reason: z.string() });

const answer = { source: 'Open-Meteo answer', meanwhile: 'the last forecast stays' };

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
    // Two past days so the stored forecast reaches about 48 h back (docs/api.md, "Forecast").
    past_days: '2',
    forecast_days: String(request.forecastDays),
  };
  let body: string;
  try {
    body = await http.get(url, { searchParams, signal: request.signal }).text();
  } catch (error) {
    throw requestFailure({ provider: 'Open-Meteo', error, explainBody: openMeteoReason, meanwhile: answer.meanwhile });
  }
  return parseAnswer({ ...answer, schema: answerSchema, input: parseJson({ ...answer, text: body }) }).minutely_15;
}

/** Open-Meteo's error bodies are `{"error": true, "reason": "..."}`. */
function openMeteoReason(body: string): string | undefined {
  try {
    const parsed = errorSchema.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data.reason : undefined;
  } catch {
    return undefined;
  }
}
