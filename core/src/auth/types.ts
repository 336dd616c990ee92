/** Credentials as a client presented them: the device password, or a bearer token. */
export type Credentials = { kind: 'password'; secret: string } | { kind: 'token'; secret: string };

/** What a client may do; each scope includes the ones before it (see scopes.ts). */
export type Scope = 'read' | 'write' | 'admin';

/** Who got in: `admin` with the password (scope admin), else the token's name and scope. */
export interface Identity {
  who: string;
  scope: Scope;
  /** The token's id and expiry (Unix ms, null = never); absent for the password. */
  token?: { id: string; expiresAt: number | null };
}

/** The answer to "may this client in?" and, when not, what to tell it. */
export type AuthOutcome =
  ({ ok: true } & Identity) | { ok: false; status: 401 | 403 | 429 | 503; message: string; retryAfterS?: number };

/** Checks credentials, counting failed logins per client address (throttling). */
export interface Authenticator {
  authenticate(credentials: Credentials | undefined, clientIp: string): Promise<AuthOutcome>;
  /**
   * Who these credentials are when they are already known to be good (a password verified
   * a moment ago), at once; undefined means "ask `authenticate`". Never counts a failure.
   */
  knownIdentity?(credentials: Credentials, clientIp: string): Identity | undefined;
}
