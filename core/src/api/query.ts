import { formatZodIssue } from '@heliograph/plugins-sdk';
import { z } from 'zod';
import type { ErrorCode } from '../contract/error-codes.js';
import { formatUtc, parseRfc3339 } from '../rfc3339.js';
import { ApiError } from './errors.js';

/** The query of a route that takes no parameters. */
export const NO_QUERY = z.strictObject({});

/**
 * Parses a query string with a (strict) schema; a repeated parameter is an error rather than
 * a silent pick, and an unknown one (`?topc=`) is an error rather than silently ignored.
 * Failures answer 400 naming the parameter.
 */
export function parseQuery<S extends z.ZodObject>(
  schema: S,
  query: Record<string, string | string[] | undefined>,
): z.output<S> {
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value)) throw new ApiError('QUERY_INVALID', `${key} is given more than once`);
  }
  const result = schema.safeParse(query);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    if (issue.code === 'unrecognized_keys') {
      const known = Object.keys(schema.shape);
      const takes =
        known.length === 0 ? 'this endpoint takes no query parameters' : `known parameters: ${known.join(', ')}`;
      throw new ApiError(
        'QUERY_INVALID',
        `unknown query parameter ${issue.keys.map((k) => `"${k}"`).join(', ')}: ${takes}`,
      );
    }
    throw new ApiError('QUERY_INVALID', formatZodIssue(issue));
  }
  return result.data;
}

/** How {@link refuseEmptyRange} words its refusal. */
export interface RangeWords {
  code: ErrorCode;
  /** Said when `from` was left out, e.g. `from defaults to now`. */
  fromDefault: string;
  /** Said when `to` was left out. */
  toDefault: string;
  /** Also name the two times the range came to. */
  showTimes?: boolean;
}

/**
 * Refuses a range whose `from` is not before its `to`, saying which end was a default: a
 * client that left one out may not know what it came to.
 */
export function refuseEmptyRange(
  given: { from?: number | undefined; to?: number | undefined },
  from: number,
  to: number,
  words: RangeWords,
): void {
  if (from < to) return;
  const defaults =
    given.from === undefined ? ` (${words.fromDefault})` : given.to === undefined ? ` (${words.toDefault})` : '';
  const times = words.showTimes ? `, got from ${formatUtc(from)} and to ${formatUtc(to)}` : '';
  throw new ApiError(words.code, `from must be before to${defaults}${times}`);
}

/** An optional RFC 3339 time parameter, parsed to Unix ms; the error names the parameter. */
export function rfc3339Param(name: string) {
  return z
    .string()
    .optional()
    .transform((text, ctx) => (text === undefined ? undefined : toMs(name, text, ctx)));
}

/** A required RFC 3339 time parameter, parsed to Unix ms; the error names the parameter. */
export function requiredRfc3339Param(name: string) {
  return z
    .string({ error: `${name} is required: an RFC 3339 time such as 2026-11-22T00:00:00Z` })
    .transform((text, ctx) => toMs(name, text, ctx));
}

function toMs(name: string, text: string, ctx: z.RefinementCtx): number {
  const ms = parseRfc3339(text);
  if (ms !== undefined) return ms;
  ctx.addIssue({
    code: 'custom',
    message: `${name} must be an RFC 3339 time such as 2026-11-22T10:00:00Z, got "${text}"`,
  });
  return z.NEVER;
}
