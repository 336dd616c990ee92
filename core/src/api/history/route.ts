import Router from '@koa/router';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { AGGS, isAgg, parseGroupBy } from '../../history/params.js';
import type { HistoryStore } from '../../history/store.js';
import { formatUtc } from '../../rfc3339.js';
import { recordedMeta } from '../../history/recorded-meta.js';
import { deviceFieldsOfTopic } from '../../topics/device.js';
import { isGlob, MAX_TOPIC_LENGTH } from '../../topics/glob.js';
import { scope } from '../../auth/scopes.js';
import type { TopicRegistry } from '../../topics/registry.js';
import { ApiError } from '../errors.js';
import { JsonBytes } from './json.js';
import { parseQuery, rfc3339Param } from '../query.js';

const DAY_MS = 86_400_000;

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
export function historyRoutes(deps: {
  registry: TopicRegistry;
  store: HistoryStore | null;
  clock: Clock;
  unavailable?: () => string;
}): Router {
  const { registry, clock } = deps;
  const router = new Router();

  router.get('/history', scope('read'), async (ctx) => {
    const q = parseQuery(historyQuery, ctx.query);
    const store = deps.store;
    // The service runs without history when its database could not be opened.
    if (!store)
      throw new ApiError(
        'HISTORY_UNAVAILABLE',
        `history is unavailable: ${deps.unavailable?.() ?? 'it could not be opened'}`,
        {
          'Retry-After': '60',
        },
      );
    const to = q.to ?? clock.now();
    const from = q.from ?? to - DAY_MS;
    if (from >= to) {
      const defaults =
        q.from === undefined
          ? ' (from defaults to one day before to)'
          : q.to === undefined
            ? ' (to defaults to now)'
            : '';
      throw new ApiError(
        'HISTORY_RANGE_INVALID',
        `from must be before to${defaults}, got from ${formatUtc(from)} and to ${formatUtc(to)}`,
      );
    }
    const meta = recordedMeta(registry, store, q.topic);
    // From the topic, not the stored meta: history written before the clients' rules keeps its old device names.
    const device = deviceFieldsOfTopic(q.topic);
    const page = await store.query(q.topic, { fromMs: from, toMs: to, groupMs: q.group_by.ms, agg: q.agg });

    const out = new JsonBytes(page.buckets.n * 40 + 512);
    out.text(
      `{"topic":${JSON.stringify(q.topic)},"device":${JSON.stringify(device.device)},"number":${device.number},"group":${JSON.stringify(meta.group)},` +
        `"name":${JSON.stringify(meta.name)},"unit":${JSON.stringify(meta.unit)},"agg":"${q.agg}","group_by":"${q.group_by.text}",` +
        `"from":"${formatUtc(from)}","to":"${formatUtc(page.endMs)}","points":[`,
    );
    const { buckets } = page;
    let first = true;
    for (let b = 0; b < buckets.n; b++) {
      if (buckets.count[b] === 0) continue;
      out.point(first, buckets.timeMs(b), buckets.value(b, q.agg));
      first = false;
    }
    out.ascii(']');
    // Damaged stored history is named, never answered as an empty stretch.
    if (page.unreadable)
      out.text(
        `,"unreadable":${JSON.stringify(page.unreadable.map((u) => ({ from: formatUtc(u.fromMs), to: formatUtc(u.toMs) })))}`,
      );
    out.ascii(page.nextMs === undefined ? '}' : `,"next":"${formatUtc(page.nextMs)}"}`);
    ctx.type = 'application/json';
    ctx.body = out.bytes();
  });

  return router;
}
