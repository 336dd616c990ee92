/*
 * Helpers for plugins that fetch from a web service (prices, forecasts, cloud APIs): errors a
 * user can act on, and the site's local days. Re-exported from the SDK's main entry.
 */
import { DateTime } from 'luxon';
import type { z } from 'zod';
import { assertJsonDepth, JsonTooDeepError, MAX_JSON_DEPTH } from './json-depth.js';
import { formatZodError } from './zod-errors.js';

/** The fields of got's errors read here; matched by shape since a plugin may load its own got. */
interface GotErrorShape {
  name: string;
  code?: string;
  response?: { statusCode: number; statusMessage?: string; body?: unknown; url?: string };
  options?: { url?: URL | string };
}

/**
 * Options of {@link requestFailure}.
 *
 * @example
 * const options: RequestFailureOptions = { provider: 'Tibber', error, explainBody: graphqlErrors, meanwhile: 'the last published prices stay' };
 */
export interface RequestFailureOptions {
  /** The service's name as the user knows it, e.g. `aWATTar` or `Octopus Energy (E-1R-AGILE-24-10-01-C)`. */
  provider: string;
  /** What the request threw: usually got's `HTTPError` or `RequestError`. */
  error: unknown;
  /**
   * What the user keeps while the service fails, as a lower-case clause without a full stop:
   * `'the last published prices stay'`, `'the last forecast stays'`.
   */
  meanwhile: string;
  /**
   * Pulls the service's own explanation out of an error body, if it has one; it is quoted in
   * the message. Return `undefined` when the body says nothing useful.
   */
  explainBody?: (body: string) => string | undefined;
  /** The config key holding the service's address, named in the hints. Default `baseUrl`. */
  urlSetting?: string;
}

/**
 * Turns what a request to a service threw into one error a user can act on: who answered
 * what, where, and what to check. HTTP errors name the status and a hint by status (401/403:
 * credentials, 404: address and ids, 429: rate limit, 5xx: the service's side); network
 * errors name the address and the error code. Any other error is returned as it is, and so is
 * an abort, so a stopping plugin does not report a failure.
 *
 * The URL is shown without its query string, since some services take the credential there.
 * The original error is kept as `cause`.
 *
 * @example
 * try {
 *   body = await ctx.http.get(`${baseUrl}/v1/marketdata`, { signal }).text();
 * } catch (error) {
 *   throw requestFailure({ provider: 'aWATTar', error, meanwhile: 'the last published prices stay' });
 * }
 * // aWATTar answered HTTP 503 Service Unavailable for https://api.awattar.de/v1/marketdata:
 * // the service has a problem on its side; the last published prices stay and the next try follows with back-off.
 */
export function requestFailure(options: RequestFailureOptions): Error {
  const { provider, error, meanwhile, explainBody, urlSetting = 'baseUrl' } = options;
  if (!(error instanceof Error)) return new Error(`${provider}: ${String(error)}`);
  const failure = error as Error & Partial<GotErrorShape>;
  if (failure.name === 'HTTPError' && failure.response) {
    const { statusCode, statusMessage, body } = failure.response;
    const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : '';
    const said = text ? explainBody?.(text) : undefined;
    const where = withoutQuery(failure.response.url ?? failure.options?.url);
    return new Error(
      `${provider} answered HTTP ${statusCode}${statusMessage ? ` ${statusMessage}` : ''} for ${where}${said ? ` ("${said}")` : ''}: ${hintForStatus(statusCode, meanwhile, urlSetting)}`,
      { cause: error },
    );
  }
  if (failure.name !== 'AbortError' && typeof failure.code === 'string' && failure.options) {
    return new Error(
      `could not reach ${provider} at ${withoutQuery(failure.options.url)} (${failure.code}): check the network connection and the ${urlSetting} setting. ${sentence(meanwhile)}`,
      { cause: error },
    );
  }
  return error;
}

function hintForStatus(status: number, meanwhile: string, urlSetting: string): string {
  const stays = `${meanwhile} and the next try follows with back-off.`;
  if (status === 401 || status === 403)
    return `the service refused the credentials; check them in the plugin settings (${stays})`;
  if (status === 404)
    return `nothing at that address; check ${urlSetting} and the ids in the plugin settings (${stays})`;
  if (status === 429) return `too many requests, the service's rate limit was reached; ${stays}`;
  if (status >= 500) return `the service has a problem on its side; ${stays}`;
  return `the service refused the request; check the plugin settings (${stays})`;
}

function withoutQuery(url: URL | string | undefined): string {
  if (url === undefined) return 'the service';
  const parsed = new URL(String(url));
  return `${parsed.origin}${parsed.pathname}`;
}

function sentence(clause: string): string {
  return `${clause.charAt(0).toUpperCase()}${clause.slice(1)}.`;
}

/**
 * Options of {@link parseJson}.
 *
 * @example
 * const options: ParseJsonOptions = { source: 'aWATTar answer', text: body, meanwhile: 'the last published prices stay' };
 */
export interface ParseJsonOptions {
  /** What the text is, as it starts the message: `aWATTar answer`. */
  source: string;
  text: string;
  /** What the user keeps meanwhile; see {@link RequestFailureOptions.meanwhile}. */
  meanwhile: string;
  /** Deepest nesting accepted; default {@link MAX_JSON_DEPTH} (64). */
  maxDepth?: number;
}

/**
 * `JSON.parse` with an error that says which answer was not JSON and how it starts (services
 * under maintenance tend to answer with an HTML page). Text nested deeper than `maxDepth` is
 * refused before parsing: walking such a value (a schema, a stringify) would overflow the stack.
 *
 * @example
 * parseJson({ source: 'aWATTar answer', text: '<html>Wartungsarbeiten</html>', meanwhile: 'the last published prices stay' });
 * // throws: aWATTar answer is not JSON (it starts with "<html>Wartungsarbeiten</html>"); the last published prices stay.
 */
export function parseJson(options: ParseJsonOptions): unknown {
  const { source, text, meanwhile, maxDepth = MAX_JSON_DEPTH } = options;
  try {
    assertJsonDepth(text, maxDepth, source);
  } catch (err) {
    if (err instanceof JsonTooDeepError) throw new Error(`${err.message}; ${meanwhile}.`, { cause: err });
    throw err;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${source} is not JSON (it starts with ${JSON.stringify(text.slice(0, 60))}); ${meanwhile}.`);
  }
}

/**
 * Options of {@link parseAnswer}.
 *
 * @example
 * const options: ParseAnswerOptions<typeof marketdataSchema> = { source: 'aWATTar answer', schema: marketdataSchema, input: json, meanwhile: 'the last published prices stay' };
 */
export interface ParseAnswerOptions<S extends z.ZodType> {
  /** What the input is, as it starts each problem: `aWATTar answer`. */
  source: string;
  /** The schema of the service's answer. */
  schema: S;
  /** The decoded answer (from {@link parseJson}, an XML parser...). */
  input: unknown;
  /** What the user keeps meanwhile; see {@link RequestFailureOptions.meanwhile}. */
  meanwhile: string;
}

/**
 * Validates a service's answer at the boundary and returns it typed, or throws one line per
 * problem (the first three, then a count) naming the path of the bad value.
 *
 * @example
 * const answer = parseAnswer({
 *   source: 'aWATTar answer',
 *   schema: z.object({ data: z.array(z.object({ marketprice: z.number() })) }),
 *   input: parseJson({ source: 'aWATTar answer', text: body, meanwhile: 'the last published prices stay' }),
 *   meanwhile: 'the last published prices stay',
 * });
 * // on a bad answer, throws: aWATTar answer: data[3].marketprice: expected number, received string.
 * // The service sent an answer this plugin does not understand; the last published prices stay.
 */
export function parseAnswer<S extends z.ZodType>(options: ParseAnswerOptions<S>): z.output<S> {
  const { source, schema, input, meanwhile } = options;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = formatZodError(result.error, { source, rootName: '(whole answer)', limit: 3, separator: '; ' });
  throw new Error(`${problems}. The service sent an answer this plugin does not understand; ${meanwhile}.`);
}

/**
 * Today and tomorrow as local days of a time zone: Unix ms bounds and ISO dates. Services
 * publish day-ahead data per local day, so this is the range a price plugin asks for.
 *
 * @example
 * const days = localDays({ now: ctx.now(), zone: ctx.site.timeZone });
 * // { todayStart, tomorrowStart, end, today: '2026-10-25', tomorrow: '2026-10-26' }
 */
export interface LocalDays {
  /** Unix ms of today's local midnight. */
  todayStart: number;
  /** Unix ms of tomorrow's local midnight. */
  tomorrowStart: number;
  /** Unix ms of the end of tomorrow, exclusive. */
  end: number;
  /** Today's date, `2026-10-25`. */
  today: string;
  /** Tomorrow's date, `2026-10-26`. */
  tomorrow: string;
}

/**
 * The {@link LocalDays} containing `now` in `zone` (an IANA name such as `Europe/Berlin`).
 * Day lengths follow the zone's daylight-saving rules, so a local day may last 23 or 25 hours.
 * Throws when `zone` is not a valid IANA time zone.
 *
 * @example
 * const days = localDays({ now: Date.parse('2026-10-24T22:30:00Z'), zone: 'Europe/Berlin' });
 * days.today; // '2026-10-25'
 * days.tomorrowStart - days.todayStart; // 25 * 3_600_000: clocks go back that night
 */
export function localDays(options: { now: number; zone: string }): LocalDays {
  const { now, zone } = options;
  const today = DateTime.fromMillis(now, { zone }).startOf('day');
  if (!today.isValid)
    throw new Error(`the site time zone "${zone}" is not a valid IANA time zone: fix it in the core config`);
  const tomorrow = today.plus({ days: 1 });
  return {
    todayStart: today.toMillis(),
    tomorrowStart: tomorrow.toMillis(),
    end: tomorrow.plus({ days: 1 }).toMillis(),
    today: today.toISODate() ?? '',
    tomorrow: tomorrow.toISODate() ?? '',
  };
}
