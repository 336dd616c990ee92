/*
 * What auth accepts and answers in words: the password's rules, token names and what the
 * API shows of a token. Shared by the password and token stores and the API's routes.
 */
import { hash } from 'node:crypto';
import { z } from 'zod';
import type { Scope } from './types.js';

/**
 * **Choice**: a token created without `"scope"` gets `write`: what the official clients
 * need (readings, the stream, writes), but it cannot mint or revoke tokens, change plugins
 * or read the audit log.
 */
export const DEFAULT_TOKEN_SCOPE: Scope = 'write';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;
/** The `who` of a password login; token names may not take it. */
export const PASSWORD_USER = 'admin';

/** A password or token request that cannot be carried out; `reason` picks the HTTP status. */
export class AuthInputError extends Error {
  constructor(
    message: string,
    readonly reason: 'invalid' | 'conflict' = 'invalid',
  ) {
    super(message);
  }
}

/** Token names as they appear in the audit log's `who`. */
export const tokenNameSchema = z
  .string({ error: 'name is required and must be a string' })
  .trim()
  .min(1, 'name must not be empty')
  .max(64, 'name must be at most 64 characters')
  .refine((name) => !/\p{Cc}/u.test(name), 'name must not contain control characters')
  .refine(
    (name) => name !== PASSWORD_USER,
    `name "${PASSWORD_USER}" is reserved for the password login: choose another`,
  );

/** A token as the API lists it (RFC 3339 UTC times, second precision). */
export interface TokenInfo {
  id: string;
  name: string;
  created_at: string;
  expires_at: string | null;
  scope: Scope;
  /** Stops working after auth.idleTokenDays unused (a sign-in's token). */
  idle_expiry: boolean;
}

/** A token just created: the only time its secret is shown. */
export interface CreatedToken extends TokenInfo {
  token: string;
}

/** How to set a password, for every answer that says none is set. */
export const NO_PASSWORD_MESSAGE =
  "no password is set yet: set one with `heliograph password set` on the device, in the settings page with the setup code from the service's log, or start the service with the HELIOGRAPH_PASSWORD environment variable";
/** What is wrong with a new password, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password.normalize('NFC')].length;
  if (length === 0) return 'the password must not be empty';
  if (length < PASSWORD_MIN_LENGTH)
    return `the password must be at least ${PASSWORD_MIN_LENGTH} characters long (this one has ${length})`;
  if (length > PASSWORD_MAX_LENGTH) return `the password must be at most ${PASSWORD_MAX_LENGTH} characters long`;
  // Also what makes `checkPassword` safe to refuse such candidates before hashing.
  if (/\p{Cc}/u.test(password)) return 'the password must not contain control characters (newline, tab, NUL)';
  return undefined;
}

/**
 * SHA-256 of a string's UTF-8 bytes. Runs on every authenticated request: the one-shot
 * crypto.hash skips the Hash stream object that createHash builds (and the garbage it leaves).
 */
export function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

/**
 * `fn` remembering its last argument and answer. A polling client sends the same credentials
 * with every request, so their decoding and hashing is done once rather than per request;
 * what the answer is checked against (the token cache, the remembered password) still is,
 * each time. `fn` must be a pure function of the text and its answer is shared: not to be
 * changed by the caller.
 */
export function rememberingLast<T>(fn: (text: string) => T): (text: string) => T {
  let last: { text: string; value: T } | undefined;
  return (text) => {
    if (last?.text !== text) last = { text, value: fn(text) };
    return last.value;
  };
}
