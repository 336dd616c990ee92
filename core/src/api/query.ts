import { formatZodIssue } from '@heliograph/plugins-sdk';
import { z } from 'zod';
import { parseRfc3339 } from '../rfc3339.js';
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
