/** Credentials as a client presented them: the device password, or a bearer token. */
export type Credentials = { kind: 'password'; secret: string } | { kind: 'token'; secret: string };

/** The answer to "may this client in?" and, when not, what to tell it. */
export type AuthOutcome =
  | { ok: true; who: string }
  | { ok: false; status: 401 | 403 | 429; message: string; retryAfterS?: number };

/** Checks credentials, counting failed logins per client address (throttling). */
export interface Authenticator {
  authenticate(credentials: Credentials | undefined, clientIp: string): Promise<AuthOutcome>;
}
