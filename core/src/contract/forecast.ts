import { z } from 'zod';
import { topicHeader, utcTime } from './common-schemas.js';

/** GET /api/v1/forecast: one weather topic's quarter hours, `[start, value]`. */
export const forecastResponse = z.object({
  ...topicHeader,
  last_updated: utcTime,
  /**
   * The plugin instance whose forecast this is (GET /api/v1/plugins' id): the owner's chosen
   * `forecast.source`, or the fallback in use; quarter hours before and after its own may
   * come from the fallbacks after it.
   */
  source: z.string(),
  from: utcTime,
  to: utcTime,
  points: z.array(z.tuple([utcTime, z.number()])),
});
