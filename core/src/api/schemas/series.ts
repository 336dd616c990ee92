import { z } from 'zod';
import { utcTime } from './common.js';

/** What a history or forecast answer says about its topic. */
const topicHeader = {
  topic: z.string(),
  device: z.string(),
  /** 0-based index of the numbered device; null for totals, grid and weather. */
  number: z.number().int().nullable(),
  group: z.string(),
  name: z.string(),
  unit: z.string(),
};

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

/** GET /api/v1/forecast: one weather topic's quarter hours, `[start, value]`. */
export const forecastResponse = z.object({
  ...topicHeader,
  last_updated: utcTime,
  from: utcTime,
  to: utcTime,
  points: z.array(z.tuple([utcTime, z.number()])),
});
