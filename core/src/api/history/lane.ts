import type { Authenticator } from '../../auth/types.js';
import type { FastLane } from '../app.js';
import type { HostPolicy } from '../host-policy.js';
import { sendJson } from '../compression.js';
import { laneReader } from '../lane-access.js';
import { historyBytes, prepareHistory, type HistoryDeps, type PreparedHistory } from './answer.js';
import { historyQuery } from './route.js';

const PREFIX = '/api/v1/history?';
const PARAMS = new Set(Object.keys(historyQuery.shape));
/** What makes parseurl (koa's) read a URL other than as "path?query": left to koa. */
const UNUSUAL = /[\t\n\f\r #\u00a0\ufeff]/;

/**
 * `GET /api/v1/history?...` for a client the service already knows, answered before koa:
 * the request a dashboard repeats for each chart, where koa's context, its middleware chain
 * and the router cost as much as reading and writing the page (npm run bench:serve-history).
 *
 * Nothing here decides anything koa would decide differently. The Host, Origin and
 * credential checks are laneReader's; the query is parsed as koa parses it (the text after
 * the first `?`, URLSearchParams) by the route's own schema; the route's checks
 * (prepareHistory) and its bytes (historyBytes) are the same functions. Only a request that
 * passes all of them is taken: an unusual URL, a repeated or unknown parameter, anything the
 * schema or the checks refuse, goes to koa untouched, so every refusal is the route's
 * answer. A read that fails after the request was taken is handed to koa as it came, and
 * koa answers it (its error, or the page if the retry reads). The headers are the route's
 * (type, length, nosniff, and its compression); test/api/history-lane.test.ts holds both answers to the same bytes.
 */
export function historyLane(deps: HistoryDeps & { auth: Authenticator; hosts: HostPolicy }): FastLane {
  const reader = laneReader(deps.auth, deps.hosts);
  return (req, res, koa) => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(PREFIX) || !reader(req)) return false;
    const prepared = checkedRequest(deps, url.slice(PREFIX.length));
    if (!prepared) return false;
    historyBytes(prepared)
      // Compressed as koa would (compression.ts); a cached page once per encoding.
      .then(
        (body) => sendJson(req, res, body),
        () => koa(req, res),
      )
      // Nothing is left to answer with: the socket goes, as it would on koa's own failure to write.
      .catch(() => res.destroy());
    return true;
  };
}

/** The checked request, or undefined for anything koa should answer. */
function checkedRequest(deps: HistoryDeps, search: string): PreparedHistory | undefined {
  if (UNUSUAL.test(search)) return undefined;
  const query: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(search)) {
    // Unknown and repeated parameters are refused by koa's route, with its message.
    if (!PARAMS.has(key) || key in query) return undefined;
    query[key] = value;
  }
  const parsed = historyQuery.safeParse(query);
  if (!parsed.success) return undefined;
  try {
    return prepareHistory(deps, parsed.data);
  } catch {
    return undefined;
  }
}
