import { z } from 'zod';

/** RFC 3339 in UTC at second precision, as every API time is written (`2026-11-22T10:00:00Z`). */
export const utcTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, 'an RFC 3339 UTC time with whole seconds');

/** A metric's value: a reading, a mode, a flag, or null (no reading, or stale). */
export const metricValue = z.union([z.number(), z.string(), z.boolean(), z.null()]);

/** Every error answer: `{"error": "what was wrong and what to do"}`. */
export const errorResponse = z.object({ error: z.string() });
