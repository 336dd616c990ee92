import { z } from 'zod';
import { ERROR_CODE_NAMES } from './error-codes.js';

/*
 * The pieces several resources' answers share. Each resource's own answer schemas live in
 * its file beside this one (`metrics.ts`, ...) and schemas.ts gathers them for clients.
 */

/** RFC 3339 in UTC at second precision, as every API time is written (`2026-11-22T10:00:00Z`). */
export const utcTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, 'an RFC 3339 UTC time with whole seconds');

/** A metric's value: a reading, a mode, a flag, or null (no reading, or stale). */
export const metricValue = z.union([z.number(), z.string(), z.boolean(), z.null()]);

/** The stable name of an error answer's situation (error-codes.ts lists each). */
export const errorCode = z
  .enum(ERROR_CODE_NAMES)
  .describe('The stable name of the situation; docs/api.md, "Error codes", says what each means');

/** Every error answer: `{"error": "what was wrong and what to do", "code": "WRITE_REFUSED"}`. */
export const errorResponse = z.object({ error: z.string(), code: errorCode });

/** One problem with one field of a request body (field-issues.ts). */
export const fieldIssue = z.object({
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
});

/** A refused request body: the error, and the problems by field for forms. */
export const fieldErrorResponse = z.object({
  error: z.string(),
  code: errorCode,
  issues: z.array(fieldIssue).optional(),
});

/** What a history or forecast answer says about its topic. */
export const topicHeader = {
  topic: z.string(),
  device: z.string(),
  /** 0-based index of the numbered device; null for totals, grid and weather. */
  number: z.number().int().nullable(),
  group: z.string(),
  name: z.string(),
  unit: z.string(),
};
