import { z } from 'zod';
import { topicHeader, utcTime } from '../common-schemas.js';

/** GET /api/v1/forecast: one weather topic's quarter hours, `[start, value]`. */
export const forecastResponse = z.object({
  ...topicHeader,
  last_updated: utcTime,
  from: utcTime,
  to: utcTime,
  points: z.array(z.tuple([utcTime, z.number()])),
});
