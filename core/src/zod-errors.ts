import type { z } from 'zod';

/**
 * One line per problem, each naming the exact path of the bad key and what was expected:
 * `plugins.json: plugins[2].config.port: expected number, got "abc"`.
 */
export function formatZodError(source: string, error: z.ZodError, input?: unknown): string {
  return error.issues
    .map((issue) => {
      const path = formatPath(issue.path);
      const where = path ? `${source}: ${path}` : source;
      const got = issue.code === 'invalid_type' && input !== undefined ? describeValue(valueAt(input, issue.path)) : undefined;
      return `${where}: ${issue.message}${got !== undefined && !issue.message.includes('received') ? `, got ${got}` : ''}`;
    })
    .join('\n');
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
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

function describeValue(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}
