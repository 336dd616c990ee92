/*
 * Turns what went wrong with a provider into one line a user can act on.
 *
 * Every price plugin carries its own copy of this file on purpose: each plugin is a package
 * that a third party may take as a template, and the file is too small to be worth a package.
 */
import type { z } from 'zod';

/** The fields of got's errors read here; matched by shape since a plugin may load its own got. */
interface GotErrorShape {
  name: string;
  code?: string;
  response?: { statusCode: number; statusMessage?: string; body?: unknown; url?: string };
  options?: { url?: URL | string };
}

/**
 * The error to throw for a failed request. `explainBody` may pull the provider's own
 * explanation out of an error body. The URL is shown without its query string, because some
 * providers take the credential there.
 */
export function requestFailure(provider: string, error: unknown, explainBody?: (body: string) => string | undefined): Error {
  if (!(error instanceof Error)) return new Error(`${provider}: ${String(error)}`);
  const failure = error as Error & Partial<GotErrorShape>;
  if (failure.name === 'HTTPError' && failure.response) {
    const { statusCode, statusMessage, body } = failure.response;
    const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : '';
    const said = text ? explainBody?.(text) : undefined;
    const where = withoutQuery(failure.response.url ?? failure.options?.url);
    return new Error(
      `${provider} answered HTTP ${statusCode}${statusMessage ? ` ${statusMessage}` : ''} for ${where}${said ? ` ("${said}")` : ''}: ${hintForStatus(statusCode)}`,
      { cause: error },
    );
  }
  if (failure.name !== 'AbortError' && typeof failure.code === 'string' && failure.options) {
    return new Error(
      `could not reach ${provider} at ${withoutQuery(failure.options.url)} (${failure.code}): check the network connection and the baseUrl setting. The last published prices stay.`,
      { cause: error },
    );
  }
  return error;
}

function hintForStatus(status: number): string {
  const stays = 'the last published prices stay and the next try follows with back-off.';
  if (status === 401 || status === 403) return `the service refused the credentials; check them in the plugin settings (${stays})`;
  if (status === 404) return `nothing at that address; check baseUrl and the ids in the plugin settings (${stays})`;
  if (status === 429) return `too many requests, the service's rate limit was reached; ${stays}`;
  if (status >= 500) return `the service has a problem on its side; ${stays}`;
  return `the service refused the request; check the plugin settings (${stays})`;
}

function withoutQuery(url: URL | string | undefined): string {
  if (url === undefined) return 'the service';
  const parsed = new URL(String(url));
  return `${parsed.origin}${parsed.pathname}`;
}

/** JSON.parse with an error that says which answer was not JSON. */
export function parseJson(source: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${source} is not JSON (it starts with ${JSON.stringify(text.slice(0, 60))}); the last published prices stay.`);
  }
}

/**
 * Validates a provider answer, or throws one line per problem naming its path:
 * `aWATTar answer: data[3].marketprice: expected number, received string`.
 */
export function parseAnswer<S extends z.ZodType>(source: string, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const lines = issues.slice(0, 3).map((issue) => `${source}: ${formatPath(issue.path)}: ${issue.message.replace(/^Invalid input: /, '')}`);
  if (issues.length > 3) lines.push(`and ${issues.length - 3} more problems`);
  throw new Error(`${lines.join('; ')}. The service sent an answer this plugin does not understand; the last published prices stay.`);
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key);
  return out || '(whole answer)';
}
