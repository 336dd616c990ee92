import type { Authenticator } from '../../auth/types.js';
import type { TopicRegistry } from '../../topics/registry.js';
import type { FastLane } from '../app.js';
import type { HostPolicy } from '../host-policy.js';
import { sendJson } from '../compression.js';
import { laneReader } from '../lane-access.js';
import { metricsSnapshot } from './snapshot.js';

const SNAPSHOT_PATH = '/api/v1/metrics';

/**
 * The plain snapshot (`GET /api/v1/metrics`, no query) for a client the service already
 * knows (by its password or its token), answered from the snapshot's cached Buffer (snapshot.ts) with one `res.end`. It is the request
 * dashboards and the official clients poll, and koa's context, the middleware chain and
 * the router cost more than the answer itself (npm run bench).
 *
 * Nothing here decides anything koa would decide differently: the Host, Origin and
 * credential checks are laneReader's (lane-access.ts). Any other request, and every
 * refusal, goes through koa, so errors and their headers stay those of every other route.
 * The headers are the ones koa's route sends (type, length, nosniff, and its compression);
 * test/api/snapshot-lane.test.ts holds both answers to the same bytes.
 */
export function snapshotLane(deps: { registry: TopicRegistry; auth: Authenticator; hosts: HostPolicy }): FastLane {
  const snapshot = metricsSnapshot(deps.registry);
  const reader = laneReader(deps.auth, deps.hosts);
  return (req, res, koa) => {
    if (req.method !== 'GET' || req.url !== SNAPSHOT_PATH || !reader(req)) return false;
    // Compressed as koa would (compression.ts), once per snapshot: the Buffer is cached.
    sendJson(req, res, snapshot.body())?.catch(() => koa(req, res));
    return true;
  };
}
