import { parseAnswer, parseJson, type PluginContext, z } from '@heliograph/plugins-sdk';

/** A time key as Forecast.Solar writes it: `2024-04-26T06:20:17+02:00` (or `+00:00` with time=utc). */
const timeKey = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}([+-]\d{2}:\d{2}|Z)$/;

const estimateSchema = z.object({
  result: z.object({
    watts: z.record(z.string(), z.number().min(0)).superRefine((watts, ctx) => {
      for (const key of Object.keys(watts)) {
        if (!timeKey.test(key) || Number.isNaN(Date.parse(key.replace(' ', 'T'))))
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: 'the key is not a time such as 2024-04-26T07:00:00+02:00',
          });
      }
    }),
  }),
  message: z.object({ code: z.number(), type: z.string() }),
});

const errorSchema = z.object({
  result: z.unknown(),
  message: z.object({
    code: z.number().optional(),
    text: z.string().optional(),
    ratelimit: z.object({ 'retry-at': z.string().optional() }).optional(),
  }),
});

const answer = { source: 'Forecast.Solar answer', meanwhile: 'the last forecast stays' };

/** HTTP 429: the hourly quota is used up; no call before `retryAt` (Unix ms) when the answer says. */
export class RateLimitedError extends Error {
  constructor(readonly retryAt: number | undefined) {
    super("Forecast.Solar's rate limit is reached");
  }
}

export interface EstimateRequest {
  baseUrl: string;
  apiKey?: string;
  latitude: number;
  longitude: number;
  tilt: number;
  azimuth: number;
  kWp: number;
  signal: AbortSignal;
}

/** The `watts` curve of one plane as [Unix ms, W] pairs; throws a message a user can act on. */
export async function fetchWatts(
  http: PluginContext['http'],
  request: EstimateRequest,
): Promise<Array<[number, number]>> {
  const path = [
    request.apiKey,
    'estimate',
    request.latitude,
    request.longitude,
    request.tilt,
    request.azimuth,
    request.kWp,
  ]
    .filter((part) => part !== undefined)
    .map((part) => encodeURIComponent(String(part)))
    .join('/');
  const url = new URL(path, request.baseUrl.endsWith('/') ? request.baseUrl : `${request.baseUrl}/`);
  let response;
  try {
    response = await http.get(url, {
      searchParams: { time: 'utc' },
      signal: request.signal,
      throwHttpErrors: false,
      responseType: 'text',
    });
  } catch (err) {
    if (request.signal.aborted) throw err;
    throw new Error(
      `Forecast.Solar could not be reached at ${request.baseUrl}: ${(err as Error).message}; the last forecast stays and the fetch is retried`,
      { cause: err },
    );
  }
  if (response.statusCode !== 200) throw failure(response.statusCode, response.body);
  const estimate = parseAnswer({
    ...answer,
    schema: estimateSchema,
    input: parseJson({ ...answer, text: response.body }),
  });
  return Object.entries(estimate.result.watts).map(([key, watts]) => [Date.parse(key.replace(' ', 'T')), watts]);
}

/**
 * The error of a non-200 answer. Written here rather than with the SDK's requestFailure:
 * a 429 carries the time of the next allowed call, and the request path holds the API key,
 * which requestFailure would show.
 */
function failure(status: number, text: string): Error {
  const parsed = errorSchema.safeParse(jsonOrUndefined(text));
  const message = parsed.success ? parsed.data.message : undefined;
  if (status === 429) {
    const retryAt = Date.parse(message?.ratelimit?.['retry-at'] ?? '');
    return new RateLimitedError(Number.isFinite(retryAt) ? retryAt : undefined);
  }
  const result = parsed.success ? parsed.data.result : undefined;
  const why = message?.text ? `: ${message.text}` : typeof result === 'string' ? `: ${result}` : '';
  if (status >= 500)
    return new Error(
      `Forecast.Solar is unavailable (HTTP ${status})${why}; the last forecast stays and the fetch is retried`,
    );
  if (status === 400 || status === 422)
    return new Error(
      `Forecast.Solar refused the request (HTTP ${status})${why}; check latitude, longitude and the panel arrays in the plugin config`,
    );
  if (status === 401 || status === 403)
    return new Error(`Forecast.Solar refused the API key (HTTP ${status})${why}; check apiKey in the plugin config`);
  return new Error(`Forecast.Solar answered HTTP ${status}${why}; the last forecast stays`);
}

/** Error bodies may be an HTML page rather than JSON. */
function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
