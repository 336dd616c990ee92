/*
 * Every answer a test gets through the shared HTTP helpers, checked against the server's own
 * OpenAPI document (GET /api/v1/openapi.json): the route is found by matching the request
 * path to the document's path templates, the response by its status (or the 4XX/5XX
 * fallback), and then
 *   - a JSON answer must match the JSON Schema the document names for it (ajv, 2020-12);
 *   - any other answer must have the content type the document names (its body is not
 *     checked: CSV, text, Prometheus, HTML and static files are out of scope);
 *   - an answer the document describes without a body (204) must have none.
 * An answer to a request no route takes (404, 405, 501, or a gate that refuses before
 * routing) must be the documented error answer, `{"error": ...}`.
 *
 * The helpers (test/helpers/server.ts, child-server.ts, raw-http.ts, core/test/helpers/http.ts)
 * call `checked()` on a fetch answer or `mismatch()` on one they read themselves. A mismatch
 * throws from the answer's `json()`/`text()`; one in a body the test never read fails the
 * test file after its tests (an `after()` hook).
 */
import { after } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../src/api/openapi/document.js';
import { OPERATIONS } from '../../src/api/openapi/operations.js';
import type { RouteInfo } from '../../src/api/routes.js';

interface MediaType {
  schema?: object;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
/** The parts of an OpenAPI 3.1 document the check reads. */
export interface OpenApi {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
}

/** The request an answer was for. */
export interface Asked {
  method: string;
  /** The full URL asked for; only its path counts. */
  url: string | URL;
}

/** An answer as read: status, content type and the whole body as text. */
export interface Answered {
  status: number;
  contentType: string | null;
  body: string;
}

const DOCUMENT_ID = 'openapi.json';

/** `application/json; charset=utf-8` -> `application/json`. */
const essence = (contentType: string) => contentType.split(';')[0]!.trim().toLowerCase();

/** A JSON pointer (RFC 6901) as a URI fragment: ajv resolves it inside the added document. */
const pointer = (...segments: string[]) =>
  '#/' + segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

/**
 * A path template (`/api/v1/tokens/{id}`) as a pattern that matches the paths the router
 * routes to it: in any case, with or without a trailing slash (@koa/router's defaults).
 */
function templatePattern(template: string): RegExp {
  const parts = template.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^/]+')}/?$`, 'i');
}

/** One server's document, ready to check answers against. */
export class OpenApiCheck {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  /** Path templates, literal ones first: `/metrics` is routed before `/{file}`. */
  private readonly templates: Array<{ template: string; pattern: RegExp }>;

  constructor(private readonly document: OpenApi) {
    this.ajv.addSchema(document, DOCUMENT_ID);
    const params = (template: string) => template.split('{').length;
    this.templates = Object.keys(document.paths)
      .sort((a, b) => params(a) - params(b))
      .map((template) => ({ template, pattern: templatePattern(template) }));
  }

  /** Why `answered` does not match what the document says of it, or undefined when it does. */
  mismatch(asked: Asked, answered: Answered): string | undefined {
    const method = asked.method.toLowerCase();
    if (method === 'head' || method === 'options') return undefined;
    const path = new URL(asked.url, 'http://unused').pathname;
    const template = this.templates.find((t) => t.pattern.test(path) && this.document.paths[t.template]![method]);
    const what = `${asked.method.toUpperCase()} ${path} answered ${answered.status}`;
    if (!template) return this.unrouted(what, answered);
    const route = `${method} ${template.template}`;
    const responses = this.document.paths[template.template]![method]!.responses;
    const key = [String(answered.status), `${String(answered.status)[0]}XX`, 'default'].find((k) => k in responses);
    if (key === undefined) return `${what}: the document has no answer ${answered.status} for ${route}`;
    const at = (media: string) => ['paths', template.template, method, 'responses', key, 'content', media, 'schema'];
    return this.content(what, answered, responses[key]!, at);
  }

  /** A request no route takes can only be refused, with the documented error answer. */
  private unrouted(what: string, answered: Answered): string | undefined {
    if (answered.status < 400) return `${what}, but the document has no route for it`;
    const expected = { content: { 'application/json': { schema: { $ref: '#/components/schemas/errorResponse' } } } };
    return this.content(`${what} (no route)`, answered, expected, () => ['components', 'schemas', 'errorResponse']);
  }

  /** Checks the answer's body against `response`; `at` says where the document holds the schema of a media type. */
  private content(
    what: string,
    answered: Answered,
    response: ResponseObject,
    at: (media: string) => string[],
  ): string | undefined {
    if (!response.content) return answered.body === '' ? undefined : `${what} with a body; the document says none`;
    const documented = Object.keys(response.content);
    const type = answered.contentType === null ? undefined : essence(answered.contentType);
    const media = documented.find((d) => essence(d) === type);
    if (media === undefined)
      return `${what} as ${answered.contentType ?? 'no content type'}; the document says ${documented.join(' or ')}`;
    if (type !== 'application/json' || !response.content[media]!.schema) return undefined;
    const schemaAt = pointer(...at(media));
    const validate = this.ajv.getSchema(DOCUMENT_ID + schemaAt);
    if (!validate) return `${what}: ajv cannot find the schema at ${schemaAt}`;
    let body: unknown;
    try {
      body = JSON.parse(answered.body);
    } catch {
      return `${what} as ${media} with a body that is not JSON: ${answered.body.slice(0, 200)}`;
    }
    if (validate(body)) return undefined;
    return `${what} with a body that does not match its schema (${decodeURIComponent(schemaAt)}): ${this.ajv.errorsText(validate.errors)}\n${answered.body.slice(0, 500)}`;
  }
}

/** The document the server with these routes serves (the same function builds it). */
export function routesCheck(routes: readonly RouteInfo[]): OpenApiCheck {
  return new OpenApiCheck(openApiDocument(routes, 'test') as unknown as OpenApi);
}

let described: OpenApiCheck | undefined;
/**
 * The document of every route OPERATIONS describes, for apps a test composes from a few
 * routers (they do not serve GET /api/v1/openapi.json themselves). Built once.
 */
export function describedRoutesCheck(): OpenApiCheck {
  described ??= routesCheck(
    Object.keys(OPERATIONS).map((key) => {
      const [method, path] = key.split(' ') as [string, string];
      return { method, path, scope: 'read' as const };
    }),
  );
  return described;
}

/** The document a running server serves, fetched once with the given credentials. */
export async function servedCheck(url: string, authorization: string): Promise<OpenApiCheck> {
  const res = await fetch(`${url}/api/v1/openapi.json`, { headers: { authorization } });
  if (res.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.status}: ${await res.text()}`);
  return new OpenApiCheck((await res.json()) as OpenApi);
}

/** The check of each server a helper started, by origin, for helpers given only a URL. */
const byOrigin = new Map<string, () => Promise<OpenApiCheck>>();

/**
 * Registers the server at `url` (its origin): `load` runs at the first answer to check.
 * Returns the getter of its check.
 */
export function registerServer(
  url: string,
  load: () => OpenApiCheck | Promise<OpenApiCheck>,
): () => Promise<OpenApiCheck> {
  let check: Promise<OpenApiCheck> | undefined;
  const get = () => (check ??= Promise.resolve().then(load));
  byOrigin.set(new URL(url).origin, get);
  return get;
}

/** The check of the server a helper registered at this URL's origin, if any. */
export function checkOf(url: string | URL): Promise<OpenApiCheck> | undefined {
  return byOrigin.get(new URL(url).origin)?.();
}

/** Throws when an answer a helper read itself does not match the document. */
export async function assertAnswer(check: Promise<OpenApiCheck>, asked: Asked, answered: Answered): Promise<void> {
  assertMatches((await check).mismatch(asked, answered));
}

/** Mismatches found in this test file's answers that no test has been shown yet. */
const unreported = new Set<string>();
/** Checks still reading their copy of a body. */
const pending = new Set<Promise<unknown>>();

// At import, so the hook belongs to the test file (the root), not to the test that happens
// to check the first answer. It fails the file by its exit code and says why on stderr:
// a hook that throws would skip the file's later hooks (those that close its servers).
after(async () => {
  await Promise.all(pending);
  if (unreported.size === 0) return;
  const file = process.argv[1] ?? 'this test file';
  console.error(`answers in ${file} that do not match the OpenAPI document:\n${[...unreported].join('\n')}`);
  process.exitCode = 1;
});

/** Throws `problem` (and marks it shown), if there is one. */
export function assertMatches(problem: string | undefined): void {
  if (problem === undefined) return;
  unreported.delete(problem);
  throw new Error(problem);
}

/**
 * Returns `response` with a copy of its body checked against the document: `json()` and
 * `text()` throw a mismatch instead of returning; a mismatch in a body the test reads
 * otherwise (or not at all) fails the test file after its tests.
 *
 * @example
 * const res = checked(await check, { method: 'GET', url }, await fetch(url));
 * const rows = await res.json(); // throws when the answer is not what the document says
 */
export function checked(check: Promise<OpenApiCheck>, asked: Asked, response: Response): Response {
  const copy = response.clone();
  const problem = (async () => {
    let body: string;
    try {
      body = await copy.text();
    } catch {
      return undefined; // the connection broke: the test sees that itself
    }
    const answered = { status: response.status, contentType: response.headers.get('content-type'), body };
    const found = await check.then(
      (document) => document.mismatch(asked, answered),
      (error: unknown) => `the OpenAPI document to check ${asked.method} ${String(asked.url)} with: ${String(error)}`,
    );
    if (found !== undefined) unreported.add(found);
    return found;
  })();
  pending.add(problem);
  void problem.then(() => pending.delete(problem));
  const json = response.json.bind(response);
  const text = response.text.bind(response);
  return Object.assign(response, {
    async json(): Promise<unknown> {
      assertMatches(await problem);
      return json();
    },
    async text(): Promise<string> {
      assertMatches(await problem);
      return text();
    },
  });
}
