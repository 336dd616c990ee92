// Every call the page makes to the device's REST API, with the device password attached.

const PASSWORD_KEY = 'heliograph.password';

/** A refused API call: the status and the `{"error"}` message the API gave. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}

/** Answers that mean the stored credentials no longer get in; the page goes back to sign-in. */
export function isAuthFailure(err: unknown): err is ApiError {
  return err instanceof ApiError && (err.status === 401 || err.status === 403 || err.status === 429);
}

// sessionStorage, not localStorage: the password is gone when the tab closes.
export function storedPassword(): string | null {
  return sessionStorage.getItem(PASSWORD_KEY);
}

export function storePassword(password: string | null): void {
  if (password === null) sessionStorage.removeItem(PASSWORD_KEY);
  else sessionStorage.setItem(PASSWORD_KEY, password);
}

/** `Basic base64("admin:" + password)`, UTF-8 so passwords beyond Latin-1 work (btoa alone throws). */
export function basicAuth(password: string): string {
  const bytes = new TextEncoder().encode(`admin:${password}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

let onAuthFailure: (err: ApiError) => void = () => {};

/** Called whenever a call is refused for its credentials (401, 403, 429). */
export function handleAuthFailures(handler: (err: ApiError) => void): void {
  onAuthFailure = handler;
}

/**
 * Calls `/api/v1<path>` and returns the parsed JSON (undefined for 204). Throws ApiError
 * with the API's own message for any 4xx/5xx, and when the server cannot be reached.
 */
export async function api<T>(method: string, path: string, options: { body?: unknown; password?: string } = {}): Promise<T> {
  const password = options.password ?? storedPassword();
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (password !== null) headers.Authorization = basicAuth(password);
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), cache: 'no-store' });
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
    const message = typeof (json as { error?: unknown })?.error === 'string' ? (json as { error: string }).error : `${response.status} ${response.statusText}`;
    const retryAfter = Number(response.headers.get('Retry-After'));
    const err = new ApiError(response.status, message, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
    if (isAuthFailure(err) && options.password === undefined) onAuthFailure(err);
    throw err;
  }
  return json as T;
}

/** What to tell the user when the device refuses the credentials. */
export function authFailureMessage(err: ApiError, signingIn: boolean): string {
  switch (err.status) {
    case 401:
      return signingIn
        ? 'Wrong password. Enter the device password (the one set with "heliograph password set").'
        : 'The device no longer accepts the saved password (was it changed?). Sign in again.';
    case 403:
      return 'No device password is set yet, so the device refuses all access. Set one on the device: run "heliograph password set" there, or start it with the environment variable HELIOGRAPH_PASSWORD. Then sign in here.';
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
