import { z } from 'zod';

/** One problem with one field of a request body (api/field-issues.ts). */
export const fieldIssue = z.object({
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
});

/** A refused request body: the error, and the problems by field for forms. */
export const fieldErrorResponse = z.object({ error: z.string(), issues: z.array(fieldIssue).optional() });

/** GET /api/v1/openapi.json: an OpenAPI 3.1 document (its parts are not restated here). */
export const openApiDocument = z.looseObject({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});
