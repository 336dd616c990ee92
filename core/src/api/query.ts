import { formatZodIssue } from '@heliograph/plugins-sdk';
import { z } from 'zod';
import { parseRfc3339 } from '../rfc3339.js';
import { ApiError } from './errors.js';

/**
 * Parses a query string with a schema; a repeated parameter is an error rather than a
 * silent pick. Failures answer 400 naming the parameter.
 */
export function parseQuery<S extends z.ZodType>(schema: S, query: Record<string, string | string[] | undefined>): z.output<S> {
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value)) throw new ApiError(400, `${key} is given more than once`);
  }
  const result = schema.safeParse(query);
  if (!result.success) {
    throw new ApiError(400, formatZodIssue(result.error.issues[0]!));
  }
  return result.data;
}

/** An optional RFC 3339 time parameter, parsed to Unix ms; the error names the parameter. */
export function rfc3339Param(name: string) {
  return z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return undefined;
      const ms = parseRfc3339(text);
      if (ms === undefined) {
        ctx.addIssue({ code: 'custom', message: `${name} must be an RFC 3339 time such as 2026-11-22T10:00:00Z, got "${text}"` });
        return z.NEVER;
      }
      return ms;
    });
}
