/*
 * The one place zod errors become text a user can act on: config files, API requests,
 * WebSocket payloads and providers' answers all name the exact bad key the same way. It
 * lives in the SDK, the lowest package, so plugins and the core share it.
 */
import type { z } from 'zod';

/**
 * Options of {@link formatZodError}.
 *
 * @example
 * const options: ZodErrorFormatOptions = { source: 'plugins.json', input: raw, pathPrefix: ['plugins', 2, 'config'] };
 */
export interface ZodErrorFormatOptions {
  /** Where the input came from, first on every line: `plugins.json`, `Acme answer`. */
  source?: string;
  /** The input that failed: a wrong type then also shows the value it got. */
  input?: unknown;
  /** Where the parsed input sits in a larger document (the lines name the full path). */
  pathPrefix?: readonly PropertyKey[];
  /** Names a problem of the input as a whole (an empty path), e.g. `(whole answer)`; default nothing. */
  rootName?: string;
  /** Show at most this many problems and count the rest; default all. */
  limit?: number;
  /** Between problems; default a newline. */
  separator?: string;
}

/**
 * One line per problem, each naming the exact path of the bad key and what was expected.
 *
 * @example
 * formatZodError(error, { source: 'plugins.json', input });
 * // plugins.json: plugins[2].config.port: expected number, received string
 * formatZodError(error, { limit: 1 }); // port: expected number, received string
 */
export function formatZodError(error: z.ZodError, options: ZodErrorFormatOptions = {}): string {
  const { limit = Infinity, separator = '\n' } = options;
  const issues = error.issues;
  const lines = issues.slice(0, limit).map((issue) => formatZodIssue(issue, options));
  if (issues.length > limit)
    lines.push(`and ${issues.length - limit} more problem${issues.length - limit === 1 ? '' : 's'}`);
  return lines.join(separator);
}

/** One problem as `source: path: message`; the path is left out when the message already names it. */
export function formatZodIssue(
  issue: z.core.$ZodIssue,
  options: Pick<ZodErrorFormatOptions, 'source' | 'input' | 'pathPrefix' | 'rootName'> = {},
): string {
  // zod 4 starts type errors with "Invalid input: "; after a path it says nothing.
  const message = issue.message.replace(/^Invalid input: /, '');
  const path = formatZodPath([...(options.pathPrefix ?? []), ...issue.path]) || (options.rootName ?? '');
  const where = [options.source, path && !message.startsWith(path) && !message.includes(`${path} `) ? path : '']
    .filter(Boolean)
    .join(': ');
  let text = message;
  if (issue.code === 'invalid_type' && options.input !== undefined) {
    // The value itself says more than its type: `expected number, got "abc"`.
    const got = `got ${describe(valueAt(options.input, issue.path))}`;
    text = /received \w+$/.test(message) ? message.replace(/received \w+$/, got) : `${message}, ${got}`;
  }
  return `${where ? `${where}: ` : ''}${text}`;
}

/** `data[3].price.amount`; a key that is not a name, such as a time, is quoted: `watts["2024-04-26 07:00"]`. */
export function formatZodPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (!/^[A-Za-z_$][\w$.-]*$/.test(String(key))) out += `[${JSON.stringify(String(key))}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value: unknown = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describe(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}
