import type { z } from 'zod';
import { ApiError } from './api-error.js';
import { formatZodPath } from '@heliograph/plugins-sdk';

/** One problem with one field of a request body, as the settings page shows it next to the field. */
export interface FieldIssue {
  /** Key path inside the request body, e.g. `["config", "pollIntervalMs"]`. */
  path: Array<string | number>;
  /** Plain words, e.g. "must be at least 1000 (milliseconds)". */
  message: string;
}

/** A 400 whose body carries `issues` besides `error`, so a form can mark each bad field. */
export class ValidationError extends ApiError {
  constructor(
    message: string,
    readonly issues: FieldIssue[],
    /** BODY_INVALID (400), or a 409 conflict that is still one field's fault (an id in use). */
    code: 'BODY_INVALID' | 'PLUGIN_INSTANCE_EXISTS' = 'BODY_INVALID',
  ) {
    super(code, message);
  }
}

type RawIssue = Parameters<Extract<z.core.$ZodErrorMap, (...args: never[]) => unknown>>[0];

const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object with fields',
  bigint: 'a whole number',
  date: 'a date',
};

/**
 * zod's own messages read like code ("Too small: expected number to be >=1000"). Passed as
 * the parse's error map, this words the common failures plainly; a message the schema sets
 * itself (`.min(1000, 'must be at least 1000 (milliseconds)')`) still wins, as zod lets a
 * schema's own message outrank the parse's.
 */
export function plainErrorMap(issue: RawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
    case 'too_small': {
      const min = String(issue.minimum);
      if (issue.origin === 'string')
        return Number(issue.minimum) === 1 ? 'must not be empty' : `must be at least ${min} characters long`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return `must list at least ${min} ${Number(issue.minimum) === 1 ? 'entry' : 'entries'}`;
      return issue.inclusive === false ? `must be more than ${min}` : `must be at least ${min}`;
    }
    case 'too_big': {
      const max = String(issue.maximum);
      if (issue.origin === 'string') return `must be at most ${max} characters long`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return `must list at most ${max} ${Number(issue.maximum) === 1 ? 'entry' : 'entries'}`;
      return issue.inclusive === false ? `must be less than ${max}` : `must be at most ${max}`;
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return 'is not a known field: remove it';
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'invalid_format':
      return issue.format === 'regex' ? 'has the wrong form' : `must be a valid ${issue.format}`;
    case 'invalid_union':
      return 'matches none of the accepted forms';
    default:
      return undefined;
  }
}

/**
 * The issues of a failed parse as field issues, each path prefixed with where the parsed
 * value sits in the body. An unknown-keys issue becomes one issue per unknown key, at the
 * key itself, so the form can point at it.
 */
export function fieldIssues(error: z.ZodError, prefix: Array<string | number> = []): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of error.issues) {
    const path = [...prefix, ...issue.path.map((k) => (typeof k === 'number' ? k : String(k)))];
    if (issue.code === 'unrecognized_keys')
      for (const key of issue.keys) out.push({ path: [...path, key], message: issue.message });
    else out.push({ path, message: issue.message });
  }
  return out;
}

/** `error` text for a list of field issues: one `path: message` line each. */
export function issuesText(issues: FieldIssue[], source?: string): string {
  return issues
    .map((i) => {
      const path = formatZodPath(i.path);
      return [source, path, i.message].filter(Boolean).join(': ');
    })
    .join('\n');
}

/** Parses with plain-word messages; throws a ValidationError (400 with issues) on failure. */
export function parseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  options: { prefix?: Array<string | number>; source?: string } = {},
): z.output<S> {
  const parsed = schema.safeParse(body, { error: plainErrorMap });
  if (parsed.success) return parsed.data;
  const issues = fieldIssues(parsed.error, options.prefix);
  throw new ValidationError(issuesText(issues, options.source), issues);
}
