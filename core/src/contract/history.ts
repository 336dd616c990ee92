import { z } from 'zod';
import { topicHeader, utcTime } from './common-schemas.js';

/**
 * GET /api/v1/history: one topic's buckets, `[bucket start, value]`, oldest first; `next`
 * (the `from` of the next page) only when the range holds more than one page.
 */
export const historyResponse = z.object({
  ...topicHeader,
  agg: z.enum(['mean', 'max', 'min', 'sum', 'last']),
  group_by: z.string(),
  from: utcTime,
  to: utcTime,
  points: z.array(z.tuple([utcTime, z.number()])),
  next: utcTime.optional(),
});
