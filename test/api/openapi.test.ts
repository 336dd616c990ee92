// GET /api/v1/openapi.json: a valid OpenAPI 3.1 document (checked by an independent
// validator) that holds every route the routers registered, with the security each needs
// and the query parameters the handlers really accept. That every answer matches the schema
// the document names for it is checked in response-schemas.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { jsonBody, startTestServer } from '../helpers/server.js';

const server = await startTestServer({
  bundled: ['simulator'],
  plugins: [{ id: 'sim', plugin: 'simulator', devices: ['inverter_1'], config: { demoForecast: false } }],
});

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
}
interface OperationObject {
  summary: string;
  security: Array<Record<string, string[]>>;
  'x-scope'?: string;
  'x-undescribed'?: boolean;
  parameters?: Parameter[];
  responses: Record<string, unknown>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
}

const readToken = await (async () => {
  const res = await server.api('/api/v1/tokens', jsonBody({ name: 'openapi-reader', scope: 'read' }));
  return ((await res.json()) as { token: string }).token;
})();
const res = await server.api('/api/v1/openapi.json', { auth: `Bearer ${readToken}` });
const document = (await res.json()) as Document;
const operationOf = (method: string, path: string) =>
  document.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];

test('a read token gets the document, as JSON; without credentials it is refused', async () => {
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^application\/json/);
  const refused = await server.api('/api/v1/openapi.json', { auth: null });
  await refused.body?.cancel();
  assert.equal(refused.status, 401);
});

test('the document is valid OpenAPI 3.1', async () => {
  assert.equal(document.openapi, '3.1.0');
  const result = await new Validator().validate(document as unknown as Record<string, unknown>);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
});

test('every schema in it is valid JSON Schema 2020-12 (the validator above does not look inside them)', () => {
  const ajv = new Ajv2020({ strict: false });
  ajv.addSchema(document, 'openapi.json');
  const components = (document as unknown as { components: { schemas: Record<string, unknown> } }).components;
  for (const name of Object.keys(components.schemas))
    assert.ok(ajv.getSchema(`openapi.json#/components/schemas/${name}`), name);
  for (const [path, methods] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(methods)) {
      const body = (operation as { requestBody?: { content: Record<string, { schema: object }> } }).requestBody;
      const inline = [
        ...(operation.parameters ?? []).map((p) => (p as Parameter & { schema: object }).schema),
        ...Object.values(body?.content ?? {}).map((c) => c.schema),
      ];
      for (const schema of inline) assert.ok(ajv.validateSchema(schema), `${method} ${path}: ${ajv.errorsText()}`);
    }
});

test('every registered route is in it, described, with the security it needs', () => {
  const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
  assert.equal(operations.length, server.routes.length, 'nothing but the registered routes');
  for (const route of server.routes) {
    const what = `${route.method} ${route.path}`;
    const operation = operationOf(route.method, route.path);
    assert.ok(operation, `${what} is in the document`);
    assert.equal(operation['x-undescribed'], undefined, `${what} is described in api/<resource>/openapi.ts`);
    if (route.scope === 'public') {
      assert.deepEqual(operation.security, [], what);
    } else {
      assert.deepEqual(operation.security, [{ bearerAuth: [route.scope] }, { basicAuth: [] }], what);
      assert.equal(operation['x-scope'], route.scope, what);
    }
    const pathParams = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
    assert.deepEqual(
      pathParams,
      [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]),
      what,
    );
  }
});

test('the query parameters are the ones each handler accepts', async () => {
  const withQuery = server.routes.filter(
    (r) => r.method === 'GET' && operationOf(r.method, r.path)?.parameters?.some((p) => p.in === 'query'),
  );
  assert.ok(withQuery.length >= 5);
  for (const route of withQuery) {
    const query = operationOf(route.method, route.path)!.parameters!.filter((p) => p.in === 'query');
    const documented = query.map((p) => p.name);
    // An unknown parameter is refused with the list of the known ones (docs/api.md); the
    // required ones are given, so the unknown one is the first problem.
    const given = query.filter((p) => p.required).map((p) => `${p.name}=total/pv_power&`);
    const refused = await server.api(`${route.path}?${given.join('')}not_a_parameter=1`);
    const { error } = (await refused.json()) as { error: string };
    assert.equal(refused.status, 400, route.path);
    const known = /known parameters: (.*)$/.exec(error)?.[1]?.split(', ');
    assert.deepEqual(known, documented, route.path);
  }
  const history = operationOf('GET', '/api/v1/history')!.parameters!;
  assert.deepEqual(
    history.filter((p) => p.required).map((p) => p.name),
    ['topic'],
  );
});
