import { formatZodIssue } from '@heliograph/plugins-sdk';
import Router from '../router.js';
import { z } from 'zod';
import { scope } from '../auth.js';
import { MAX_TOPIC_LENGTH } from '../../topics/glob.js';
import type { TopicRegistry } from '../../topics/registry.js';
import type { WriteService } from '../../writes/service.js';
import { discoveryParam } from '../discovery-param.js';
import { ApiError } from '../errors.js';
import { parseQuery } from '../query.js';
import { metricsSnapshot } from './snapshot.js';

export const snapshotQuery = z.strictObject({
  topic: z
    .string()
    .min(1, 'topic must not be empty')
    .max(MAX_TOPIC_LENGTH, `topic is longer than ${MAX_TOPIC_LENGTH} characters`)
    .optional(),
  value: z.enum(['0', '1'], { error: 'value must be 1 (plain-text value) or 0' }).optional(),
  discovery: discoveryParam,
});

export const writeBody = z.object(
  {
    topic: z.string({ error: 'topic is required and must be a string' }).min(1, 'topic must not be empty'),
    value: z.string({ error: 'value is required and must be a string' }),
  },
  { error: 'the body must be a JSON object with string fields topic and value' },
);

/** GET /api/v1/metrics (snapshot, glob filter, value=1, discovery) and POST /api/v1/metrics (writes). */
export function metricsRoutes(deps: { registry: TopicRegistry; writes: WriteService }): Router {
  const { registry, writes } = deps;
  const router = new Router();
  const snapshot = metricsSnapshot(registry);

  router.get('/metrics', scope('read'), (ctx) => {
    const query = parseQuery(snapshotQuery, ctx.query);
    if (query.value !== '1') {
      ctx.type = 'application/json';
      ctx.body = snapshot.body(query.topic, query.discovery);
      return;
    }
    const { topic } = query;
    const matches = topic === undefined ? registry.list() : registry.match(topic);
    if (matches.length === 0)
      throw topic === undefined
        ? new ApiError('NO_METRICS', 'no metrics yet: no plugin has declared any (see GET /api/v1/plugins)')
        : new ApiError('METRIC_NOT_FOUND', `no metric matches topic "${topic}"`);
    if (matches.length > 1) {
      const selected =
        topic === undefined
          ? `without a topic all ${matches.length} are selected`
          : `this one selects ${matches.length}`;
      throw new ApiError('METRIC_NOT_SINGLE', `value=1 needs a topic that selects one metric; ${selected}`);
    }
    const value = registry.visibleValue(matches[0]!);
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  });

  router.post('/metrics', scope('write'), async (ctx) => {
    const parsed = writeBody.safeParse(ctx.request.body);
    if (!parsed.success) throw new ApiError('BODY_INVALID', formatZodIssue(parsed.error.issues[0]!));
    const { topic, value } = parsed.data;
    const outcome = await writes.write({ topic, value, who: ctx.state.who, via: 'rest' });
    if (!outcome.ok && outcome.retryAfterS !== undefined)
      throw new ApiError('WRITE_RATE_LIMITED', outcome.message, { 'Retry-After': String(outcome.retryAfterS) });
    if (!outcome.ok) throw new ApiError('WRITE_REFUSED', outcome.message);
    ctx.body = { topic, result: 'ok' };
  });

  return router;
}
