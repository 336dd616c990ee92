import { STATUS_CODES } from '../node-http.js';
import { z } from 'zod';
import type { RouteInfo } from '../routes.js';
import * as schemas from '../../contract/schemas.js';
import { errorResponse } from '../../contract/common-schemas.js';
import type { Answer, Operation, OtherContent } from '../operation.js';
import { OPERATIONS } from './operations.js';

type JsonSchema = Record<string, unknown>;

const SCHEMA_REF = '#/components/schemas/';

/** How the document names the API's two ways to sign in. */
const SECURITY_SCHEMES = {
  basicAuth: {
    type: 'http',
    scheme: 'basic',
    description: 'The device password; any user name. The password may do everything (scope admin).',
  },
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API token (POST /api/v1/tokens). The role of each operation’s requirement is the scope it needs: read < write < admin.',
  },
};

/** JSON Schema 2020-12 of a zod schema, without the `$schema`/`$id` OpenAPI takes from the document. */
function strip(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

/**
 * Every schema contract/schemas.ts exports, as a component named after its export (`metricsResponse`),
 * with `$ref`s between them. Answers are described as the server sends them (`io: output`).
 */
function components(): { schemas: Record<string, JsonSchema>; names: Map<z.ZodType, string> } {
  const registry = z.registry<{ id: string }>();
  const names = new Map<z.ZodType, string>();
  for (const [name, schema] of Object.entries(schemas)) {
    registry.add(schema, { id: name });
    names.set(schema, name);
  }
  const out = z.toJSONSchema(registry, {
    uri: (id) => SCHEMA_REF + id,
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  });
  return {
    schemas: Object.fromEntries(Object.entries(out.schemas).map(([name, schema]) => [name, strip(schema)])),
    names,
  };
}

/** A request's schema as the client writes it (`io: input`: defaults make keys optional). */
function requestSchema(schema: z.ZodType): JsonSchema {
  return strip(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }));
}

/** `/api/v1/tokens/:id` -> `/api/v1/tokens/{id}` and its path parameters. */
function openApiPath(path: string): { path: string; names: string[] } {
  const names: string[] = [];
  const converted = path.replace(/:(\w+)/g, (_m, name: string) => {
    names.push(name);
    return `{${name}}`;
  });
  return { path: converted, names };
}

function parameters(route: RouteInfo, operation: Operation): JsonSchema[] {
  const out: JsonSchema[] = openApiPath(route.path).names.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  if (operation.query) {
    const query = requestSchema(operation.query) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, schema] of Object.entries(query.properties ?? {})) {
      out.push({ name, in: 'query', required: query.required?.includes(name) ?? false, schema });
    }
  }
  return out;
}

function responses(operation: Operation, names: Map<z.ZodType, string>): Record<string, JsonSchema> {
  const ref = (schema: z.ZodType) => {
    const name = names.get(schema);
    if (name === undefined) throw new Error('an answer schema must be exported from contract/schemas.ts');
    return { $ref: SCHEMA_REF + name };
  };
  const other = (content: OtherContent) =>
    Object.fromEntries(
      [content.contentType].flat().map((type) => [type, content.schema ? { schema: content.schema } : {}]),
    );
  const describe = (status: string, answer: Answer): JsonSchema => {
    const description = STATUS_CODES[Number(status)] ?? 'Error';
    if (answer === null) return { description };
    if (answer instanceof z.ZodType) return { description, content: { 'application/json': { schema: ref(answer) } } };
    if (Array.isArray(answer)) {
      const [json, alternative] = answer as readonly [z.ZodType, OtherContent];
      return {
        description: `${description}. ${alternative.description}`,
        content: { 'application/json': { schema: ref(json) }, ...other(alternative) },
      };
    }
    const content = answer as OtherContent;
    return { description: content.description, content: other(content) };
  };
  const out: Record<string, JsonSchema> = {};
  for (const [status, answer] of Object.entries(operation.responses)) out[status] = describe(status, answer);
  out['4XX'] = describe('400', errorResponse);
  out['4XX'].description = 'The request was refused; the message says why and what to do';
  out['5XX'] = describe('500', errorResponse);
  return out;
}

function security(route: RouteInfo): JsonSchema {
  if (route.scope === 'public') return { security: [] };
  return { security: [{ bearerAuth: [route.scope] }, { basicAuth: [] }], 'x-scope': route.scope };
}

/**
 * The OpenAPI 3.1 document of every route the app registers (`routes`, read from the
 * routers), with the security each needs, the query and body schemas the handlers validate
 * with, and the answer schemas of contract/schemas.ts as components.
 */
export function openApiDocument(routes: readonly RouteInfo[], version: string): JsonSchema {
  const { schemas: componentSchemas, names } = components();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const described = OPERATIONS[`${route.method} ${route.path}`];
    const operation: Operation = described ?? {
      summary: `${route.method} ${route.path} (not described)`,
      responses: {},
    };
    const entry: JsonSchema = {
      summary: operation.summary,
      ...(operation.description ? { description: operation.description } : {}),
      ...security(route),
    };
    const params = parameters(route, operation);
    if (params.length > 0) entry.parameters = params;
    if (operation.body)
      entry.requestBody = {
        required: true,
        content: { 'application/json': { schema: requestSchema(operation.body) } },
      };
    entry.responses = responses(operation, names);
    if (!described) entry['x-undescribed'] = true;
    const { path } = openApiPath(route.path);
    (paths[path] ??= {})[route.method.toLowerCase()] = entry;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Heliograph local API',
      version,
      description:
        'REST API of a Heliograph unit. docs/api.md has the rules this document cannot state (globs, paging, throttling).',
    },
    paths,
    components: { schemas: componentSchemas, securitySchemes: SECURITY_SCHEMES },
  };
}
