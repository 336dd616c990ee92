import { z } from 'zod';
import type { Identity, Scope } from './types.js';

/**
 * Token scopes, each including the ones before it:
 * - `read`: snapshot, history, forecast, grid, system, the stream;
 * - `write`: also writes (POST /api/v1/metrics, the stream's `set`) and settings;
 * - `admin`: also tokens, plugins and their config, the audit log. The password is admin.
 */
export const SCOPES = ['read', 'write', 'admin'] as const satisfies readonly Scope[];

export const scopeSchema = z.enum(SCOPES, { error: `scope must be one of ${SCOPES.join(', ')}` });

export function scopeAllows(granted: Scope, needed: Scope): boolean {
  return SCOPES.indexOf(granted) >= SCOPES.indexOf(needed);
}

/** What a client is told when its token cannot do something. */
export function scopeMessage(identity: Identity, needed: Scope, what: string): string {
  return `token "${identity.who}" has scope ${identity.scope}, but ${what} needs scope ${needed}: create a token with "scope": "${needed}" (POST /api/v1/tokens, signed in with the password)`;
}
