import type { z } from 'zod';

/*
 * What the OpenAPI document says about one route. Each resource folder describes its own
 * routes in its `openapi.ts` (with the query and body schemas its handlers validate with, and
 * its answer schemas), and openapi/operations.ts gathers them.
 */

/** An answer that is not JSON: its content type, and a JSON Schema of the body where one helps. */
export interface OtherContent {
  /** The answer's content type, or the several it may have (the page's files). */
  contentType: string | readonly string[];
  description: string;
  schema?: Record<string, unknown>;
}

/**
 * One answer of an operation: a response schema exported from contract/schemas.ts (JSON), another
 * content type, or `null` for an answer without a body (204).
 */
export type Answer = z.ZodType | OtherContent | readonly [z.ZodType, OtherContent] | null;

/** What the document says about one route, with the schemas the handler itself validates with. */
export interface Operation {
  summary: string;
  description?: string;
  /** The (strict) query schema the handler parses with; its keys become query parameters. */
  query?: z.ZodObject;
  /** The request body schema the handler parses with (JSON). */
  body?: z.ZodType;
  /** Answers by status. 4xx/5xx not listed here are `{"error", "code"}` (errorResponse). */
  responses: Record<number, Answer>;
}

/** A resource's routes, keyed `METHOD path` as api/routes.ts lists them. */
export type Operations = Record<string, Operation>;

/** A plain-text answer. */
export const text = (description: string): OtherContent => ({
  contentType: 'text/plain; charset=utf-8',
  description,
  schema: { type: 'string' },
});
