import Router from '../router.js';
import { z } from 'zod';
import { scope } from '../auth.js';
import type { Clock } from '../../clock.js';
import { FORECAST_TOPICS, type ForecastStore } from '../../forecast/store.js';
import { formatUtc } from '../../rfc3339.js';
import { MAX_TOPIC_LENGTH } from '../../topics/glob.js';
import type { TopicRegistry } from '../../topics/registry.js';
import { topicFields } from '../../topics/topic-meta.js';
import { ApiError } from '../errors.js';
import { parseQuery, refuseEmptyRange, rfc3339Param } from '../query.js';

/** Default end of the range: the whole stored forecast (about 3 days ahead) fits in it. */
const DEFAULT_SPAN_MS = 4 * 24 * 3_600_000;

export const forecastQuery = z.strictObject({
  topic: z
    .string({ error: 'topic is required: a single forecast topic such as weather/pv_power_predicted' })
    .min(1, 'topic must not be empty')
    .max(MAX_TOPIC_LENGTH, `topic is longer than ${MAX_TOPIC_LENGTH} characters`)
    .refine((t) => !/[*?]/.test(t), 'topic must be a single topic: globs (* and ?) are not accepted by forecast'),
  from: rfc3339Param('from'),
  to: rfc3339Param('to'),
});

/**
 * GET /api/v1/forecast: the stored forecast of one weather topic at 15-minute resolution.
 * `registry` only sharpens the 404 message for a topic that exists but has no forecast.
 */
export function forecastRoutes(deps: { store: ForecastStore; clock: Clock; registry?: TopicRegistry }): Router {
  const { store, clock, registry } = deps;
  const router = new Router();

  router.get('/forecast', scope('read'), (ctx) => {
    const query = parseQuery(forecastQuery, ctx.query);
    const now = clock.now();
    const from = query.from ?? now;
    const to = query.to ?? now + DEFAULT_SPAN_MS;
    refuseEmptyRange(query, from, to, {
      code: 'FORECAST_RANGE_INVALID',
      fromDefault: 'from defaults to now',
      toDefault: 'to defaults to 4 days after now',
    });

    const found = store.lookup(query.topic);
    switch (found.kind) {
      case 'disabled':
        throw new ApiError(
          'FORECAST_NOT_CONFIGURED',
          'no forecast plugin is configured: add and enable one (open-meteo or forecast-solar) in plugins.json to get forecasts',
        );
      case 'not-forecast':
        if (registry?.get(query.topic))
          throw new ApiError(
            'FORECAST_NOT_A_FORECAST_TOPIC',
            `${query.topic} has no forecast; forecast topics are ${FORECAST_TOPICS.join(', ')}`,
          );
        throw new ApiError(
          'TOPIC_UNKNOWN',
          `unknown topic "${query.topic}"; forecast topics are ${FORECAST_TOPICS.join(', ')}`,
        );
      case 'not-fetched':
        throw new ApiError(
          'FORECAST_NOT_FETCHED',
          found.chosen
            ? `no forecast fetched yet since the service started: neither the forecast source ${found.chosen} (config forecast.source) nor its fallbacks have delivered one (see GET /api/v1/plugins for their status)`
            : 'no forecast fetched yet since the service started: the forecast plugin has not delivered one (see GET /api/v1/plugins for its status)',
        );
      case 'not-published':
        throw new ApiError(
          'FORECAST_NOT_PROVIDED',
          `${query.topic} has no forecast: the configured forecast plugin does not provide it (it provides ${found.published.join(', ')})`,
        );
    }

    const { meta, lastUpdated, source } = found;
    ctx.body = {
      ...topicFields(meta),
      last_updated: formatUtc(lastUpdated),
      source,
      from: formatUtc(from),
      to: formatUtc(to),
      points: store.points(meta.topic, from, to).map(([time, value]) => [formatUtc(time), value]),
    };
  });

  return router;
}
