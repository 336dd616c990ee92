import { basicAuth } from './basic-auth.js';
import { assertAnswer, describedRoutesCheck } from './openapi-check.js';

/**
 * A small fetch wrapper for API tests over real HTTP: credentials as options, the body
 * read once as text and, when the answer says JSON, parsed. Every answer is checked against
 * the OpenAPI document of the described routes (./openapi-check.ts): a mismatch throws.
 */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body when the answer is application/json, else undefined. */
  json: unknown;
}

export interface HttpRequestOptions {
  method?: string;
  /** HTTP Basic: a password (user admin; any user name is accepted) or an explicit user and password. */
  basic?: string | { user: string; password: string };
  /** `Authorization: Bearer <token>`. */
  bearer?: string;
  /** Sent as JSON unless it is a string, which is sent as it is (for malformed bodies). */
  body?: unknown;
  headers?: Record<string, string>;
}

export async function httpRequest(
  baseUrl: string,
  path: string,
  options: HttpRequestOptions = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.basic !== undefined) {
    headers.authorization =
      typeof options.basic === 'string'
        ? basicAuth(options.basic)
        : basicAuth(options.basic.password, options.basic.user);
  }
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const url = new URL(path, baseUrl);
  const method = options.method ?? 'GET';
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  const contentType = response.headers.get('content-type');
  await assertAnswer(
    Promise.resolve(describedRoutesCheck()),
    { method, url },
    { status: response.status, contentType, body: text },
  );
  const isJson = (contentType ?? '').startsWith('application/json');
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: isJson && text ? JSON.parse(text) : undefined,
  };
}
