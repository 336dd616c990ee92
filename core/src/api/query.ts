import type { z } from 'zod';
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
    const issue = result.error.issues[0]!;
    const name = issue.path.join('.');
    throw new ApiError(400, name && !issue.message.includes(name) ? `${name}: ${issue.message}` : issue.message);
  }
  return result.data;
}
