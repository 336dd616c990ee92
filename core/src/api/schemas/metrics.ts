import { z } from 'zod';
import { metricValue } from './common.js';

/** How a setting may be written: one of its options, or a number in a range on a step. */
export const writable = z.union([
  z.object({ options: z.array(z.string()).readonly() }),
  z.object({ min: z.number(), max: z.number(), step: z.number() }),
]);

/** One topic as GET /api/v1/metrics lists it. */
export const metric = z.object({
  topic: z.string(),
  device: z.string(),
  number: z.number().int(),
  group: z.string(),
  name: z.string(),
  value: metricValue,
  unit: z.string(),
  writable: writable.optional(),
});

/** GET /api/v1/metrics[?topic=glob]: topics in topic order. */
export const metricsResponse = z.array(metric);

/** POST /api/v1/metrics after the device confirmed the write. */
export const writeResponse = z.object({ topic: z.string(), result: z.literal('ok') });
