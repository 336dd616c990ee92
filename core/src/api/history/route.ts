import Router from '../router.js';
import { z } from 'zod';
import { AGGS, isAgg, parseGroupBy } from '../../history/params.js';
import { isGlob, MAX_TOPIC_LENGTH } from '../../topics/glob.js';
import { scope } from '../auth.js';
import { parseQuery, rfc3339Param } from '../query.js';
import { historyBytes, prepareHistory, type HistoryDeps } from './answer.js';

export const historyQuery = z.strictObject({
  topic: z
    .string({ error: 'topic is required: a single metric topic such as total/pv_power' })
    .min(1, 'topic must not be empty')
    .max(MAX_TOPIC_LENGTH, `topic is longer than ${MAX_TOPIC_LENGTH} characters`)
    .refine((t) => !isGlob(t), 'topic must be a single topic: globs (* and ?) are not accepted by history'),
  from: rfc3339Param('from'),
  to: rfc3339Param('to'),
  group_by: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return { ms: 10_000, text: '10s' };
      const parsed = parseGroupBy(text);
      if ('error' in parsed) {
        ctx.addIssue({ code: 'custom', message: parsed.error });
        return z.NEVER;
      }
      return parsed;
    }),
  agg: z
    .string()
    .optional()
    .refine((a) => a === undefined || isAgg(a), { message: `agg must be one of ${AGGS.join(', ')}` })
    .transform((a) => (a === undefined || !isAgg(a) ? 'mean' : a)),
});

/**
 * GET /api/v1/history: one topic's recorded history in epoch-aligned buckets, 2000 per page.
 *
 * Which topics answer: the registry's declaration decides for a topic that exists now (404
 * when it is not recorded: battery metrics, non-numeric ones, or declared unrecorded). A
 * topic no longer in the registry (a plugin removed or reconfigured) still answers from the
 * history kept for it, with the device and name it had; 404 only when neither knows it.
 */
export function historyRoutes(deps: HistoryDeps): Router {
  const router = new Router();

  router.get('/history', scope('read'), async (ctx) => {
    const prepared = prepareHistory(deps, parseQuery(historyQuery, ctx.query));
    const body = await historyBytes(prepared);
    ctx.type = 'application/json';
    ctx.body = body;
  });

  return router;
}
