import { z } from 'zod';

/** GET /api/v1/openapi.json: an OpenAPI 3.1 document (its parts are not restated here). */
export const openApiDocument = z.looseObject({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});
