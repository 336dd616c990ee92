import type { IncomingMessage } from 'node:http';
import { credentialsFromHeader } from './auth.js';
import { scopeAllows } from '../auth/scopes.js';
import type { Authenticator, Identity } from '../auth/types.js';
import type { HostPolicy } from './host-policy.js';

/** Whether a request may be answered by a fast lane: see {@link laneReader}. */
export type LaneReader = (req: IncomingMessage) => boolean;

/**
 * The checks every fast lane makes before it answers a read: the Host and Origin headers
 * HostPolicy allows (koa's hostAndOriginCheck), and credentials the authenticator already
 * knows (`knownIdentity`: the remembered password, or a token found valid before and still
 * in the token cache, which revoking clears and expiry ends) with a scope that allows
 * `read`. Nothing here refuses: a request that fails any check goes to koa, which refuses
 * it with the answer every route gives. Without `knownIdentity` no request is taken.
 */
export function laneReader(auth: Authenticator, hosts: HostPolicy): LaneReader {
  const knownIdentity = auth.knownIdentity?.bind(auth);
  if (!knownIdentity) return () => false;
  return (req) => {
    const host = req.headers.host || undefined;
    if (hosts.hostProblem(host) || hosts.originProblem(req.headers.origin || undefined, host)) return false;
    const credentials = credentialsFromHeader(req.headers.authorization);
    const identity: Identity | undefined = credentials && knownIdentity(credentials, req.socket.remoteAddress ?? '');
    return identity !== undefined && scopeAllows(identity.scope, 'read');
  };
}
