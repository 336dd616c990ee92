// Every call the page makes to the REST API, with the page's bearer token attached. The
// device password is sent once, to create that token (session.ts), and never stored.

const TOKEN_KEY = 'heliograph.token';

/** One field the API refused: the key path inside the request body and why, in plain words. */
export interface Issue {
  path: Array<string | number>;
  message: string;
}

/** A refused API call: the status, the `{"error"}` message and any field-level issues. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterS?: number,
    readonly issues: Issue[] = [],
  ) {
    super(message);
  }
}

/** The token the page holds: id (to revoke it at sign-out) and secret. */
export interface PageToken {
  id: string;
  token: string;
}

// localStorage: the page stays signed in across tabs and restarts, as a token is meant to;
// it can be revoked from any signed-in page, and holds no password.
export function storedToken(): PageToken | null {
  try {
    const parsed = JSON.parse(localStorage.getItem(TOKEN_KEY) ?? 'null') as PageToken | null;
    return parsed && typeof parsed.id === 'string' && typeof parsed.token === 'string' ? parsed : null;
  } catch {
    return null;
  }
}

export function storeToken(token: PageToken | null): void {
  if (token === null) localStorage.removeItem(TOKEN_KEY);
  else localStorage.setItem(TOKEN_KEY, JSON.stringify({ id: token.id, token: token.token }));
}

/** `Basic base64("admin:" + password)`, UTF-8 so passwords beyond Latin-1 work (btoa alone throws). */
export function basicAuth(password: string): string {
  const bytes = new TextEncoder().encode(`admin:${password}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

let onAuthFailure: (err: ApiError) => void = () => {};

/** Called when the stored token is refused (401): it was revoked or expired. */
export function handleAuthFailures(handler: (err: ApiError) => void): void {
  onAuthFailure = handler;
}

export interface CallOptions {
  body?: unknown;
  /** An Authorization header to use instead of the stored token (sign-in, setup). */
  authorization?: string | null;
}

/**
 * Calls `/api/v1<path>` and returns the parsed JSON (undefined for 204). Throws ApiError
 * with the API's own message for any 4xx/5xx, and when the server cannot be reached.
 */
export async function api<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const stored = storedToken();
  const authorization =
    options.authorization !== undefined ? options.authorization : stored ? `Bearer ${stored.token}` : null;
  if (authorization) headers.Authorization = authorization;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'the device did not answer: check that it is running and reachable, then try again');
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    const body = (json ?? {}) as { error?: unknown; issues?: unknown };
    const message = typeof body.error === 'string' ? body.error : `${response.status} ${response.statusText}`;
    const issues = Array.isArray(body.issues)
      ? (body.issues as Issue[]).filter((i) => Array.isArray(i?.path) && typeof i?.message === 'string')
      : [];
    const retryAfter = Number(response.headers.get('Retry-After'));
    const err = new ApiError(
      response.status,
      message,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
      issues,
    );
    if (response.status === 401 && options.authorization === undefined && stored) onAuthFailure(err);
    throw err;
  }
  return json as T;
}

/** The text of any error, for a message line. */
export function errorText(err: unknown): string {
  return err instanceof ApiError ? err.message : String(err);
}

/**
 * What to say when loading `what` failed: `missing` where the service answers 404 (a version
 * without that part of the API, so nothing is wrong), else the error.
 */
export function loadFailure(err: unknown, what: string, missing: string): { missing: boolean; text: string } {
  const absent = err instanceof ApiError && err.status === 404;
  return { missing: absent, text: absent ? missing : `Cannot ${what}: ${errorText(err)}` };
}

/** What to tell the user when the device refuses a sign-in or the stored token. */
export function authFailureMessage(err: ApiError, signingIn: boolean): string {
  switch (err.status) {
    case 401:
      return signingIn
        ? 'Wrong password. Enter the device password (the one set on first start, or with "heliograph password set").'
        : 'This page was signed out (its token was revoked or expired). Sign in again.';
    case 403:
      return 'No device password is set yet. Set one on the device ("heliograph password set", or the environment variable HELIOGRAPH_PASSWORD), or reload this page to set it here.';
    case 429:
      return `Too many failed sign-ins from this address. Wait ${err.retryAfterS !== undefined ? formatSeconds(err.retryAfterS) : 'a while'} before trying again.`;
    default:
      return err.message;
  }
}

function formatSeconds(s: number): string {
  if (s < 120) return `${s} s`;
  return `${Math.ceil(s / 60)} min`;
}
