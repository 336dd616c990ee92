// Real answers of every route parsed twice: with the JSON Schema the OpenAPI document names
// for that route and status (GET /api/v1/openapi.json, checked by ajv), and with the zod
// schema of the same name that @heliograph/core/api-types infers its types from. So neither
// the document nor the types clients import can drift from what the server sends,
// hand-built JSON (history, the metrics snapshot) included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { z } from 'zod';
import * as schemas from '@heliograph/core/api-schemas';
import { DEMO_SITE_PLUGIN, jsonBody, startTestServer, type TestServer } from '../helpers/server.js';

const server = await startTestServer({ bundled: ['simulator'], plugins: [DEMO_SITE_PLUGIN] });

type Responses = Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
const document = (await (await server.api('/api/v1/openapi.json')).json()) as {
  paths: Record<string, Record<string, { responses: Responses }>>;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(document, 'openapi.json');

/** Which documented route-and-status pairs the answers below exercised. */
const exercised = new Set<string>();

/** The component the document names for a route's answer of this status (or its 4XX/5XX). */
function documentedSchema(route: string, status: number): string {
  const [method, path] = route.split(' ') as [string, string];
  const responses = document.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()]?.responses;
  assert.ok(responses, `${route} is in the document`);
  const key = String(status) in responses ? String(status) : `${String(status)[0]}XX`;
  const ref = responses[key]?.content?.['application/json']?.schema?.$ref;
  assert.ok(ref, `${route} documents a JSON answer for ${status}`);
  exercised.add(`${route} ${key}`);
  return ref.slice('#/components/schemas/'.length);
}

/**
 * Requests `path` as `route` (`GET /api/v1/plugins/:id/config`), expects `status`, and checks
 * the body against the document's schema for it and the zod schema of the same name.
 */
async function answer(
  route: string,
  path: string,
  init: RequestInit = {},
  status = 200,
  on: TestServer = server,
): Promise<unknown> {
  const res = await on.api(path, { method: route.split(' ')[0], ...init });
  const body: unknown = await res.json();
  assert.equal(res.status, status, `${path}: ${JSON.stringify(body)}`);
  const name = documentedSchema(route, status);
  const validate = ajv.getSchema(`openapi.json#/components/schemas/${name}`);
  assert.ok(validate, `component ${name}`);
  assert.ok(validate(body), `${path} does not match ${name}: ${ajv.errorsText(validate.errors)}`);
  const schema = (schemas as Record<string, z.ZodType>)[name];
  assert.ok(schema, `${name} is exported by @heliograph/core/api-schemas`);
  const parsed = schema.safeParse(body);
  assert.ok(
    parsed.success,
    `${path} does not match ${name}: ${parsed.error?.message}\n${JSON.stringify(body).slice(0, 500)}`,
  );
  // zod drops keys its object schemas do not name: an answer equal to its parse carries no
  // field the schema (and so the types clients import) leaves out.
  assert.deepEqual(parsed.data, body, `${path} carries fields its schema does not name`);
  return parsed.data;
}

const put = (body: unknown): RequestInit => ({ ...jsonBody(body), method: 'PUT' });
const patch = (body: unknown): RequestInit => ({ ...jsonBody(body), method: 'PATCH' });

test('metrics, a write to a setting, the audit log and the system rows', async () => {
  const metrics = (await answer('GET /api/v1/metrics', '/api/v1/metrics')) as z.output<typeof schemas.metricsResponse>;
  assert.ok(metrics.length > 10);
  await answer('GET /api/v1/metrics', '/api/v1/metrics?discovery');
  const setting = metrics.find((m) => m.writable && 'options' in m.writable);
  assert.ok(setting, 'the simulator declares a setting with options');
  const options = (setting.writable as { options: string[] }).options;
  await answer('POST /api/v1/metrics', '/api/v1/metrics', jsonBody({ topic: setting.topic, value: options[0] }));
  await answer('POST /api/v1/metrics', '/api/v1/metrics', jsonBody({ topic: 'no/such', value: '1' }), 422);
  const audit = (await answer('GET /api/v1/audit', '/api/v1/audit')) as z.output<typeof schemas.auditResponse>;
  assert.ok(audit.some((e) => e.topic === setting.topic && e.result === 'ok'));
  await answer('GET /api/v1/system', '/api/v1/system');
  await answer('GET /api/v1/system', '/api/v1/system?discovery');
});

test('history (hand-built JSON), forecast and grid', async () => {
  const history = (await answer('GET /api/v1/history', '/api/v1/history?topic=total/pv_power&group_by=1m')) as {
    topic: string;
  };
  assert.equal(history.topic, 'total/pv_power');
  await answer('GET /api/v1/history', '/api/v1/history?topic=battery_1/voltage', {}, 404);
  const forecast = (await answer('GET /api/v1/forecast', '/api/v1/forecast?topic=weather/pv_power_predicted')) as {
    points: unknown[];
  };
  assert.ok(forecast.points.length > 0);
  const grid = (await answer('GET /api/v1/grid', '/api/v1/grid')) as { provider: string };
  assert.equal(grid.provider, 'Simulator');
  const day = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000).toISOString();
  const energy = (await answer('GET /api/v1/energy', `/api/v1/energy?period=hour&from=${day}&to=${day}`, {}, 400)) as {
    code: string;
  };
  assert.equal(energy.code, 'QUERY_INVALID');
  await answer('GET /api/v1/energy', `/api/v1/energy?period=day&from=${day}&to=${new Date().toISOString()}`);
});

test('plugins: list, installed, add, disable, config, remove', async () => {
  const plugins = (await answer('GET /api/v1/plugins', '/api/v1/plugins')) as Array<{ id: string }>;
  assert.equal(plugins[0]!.id, 'sim');
  await answer('GET /api/v1/plugins/installed', '/api/v1/plugins/installed');
  const entry = { id: 'sim2', plugin: 'simulator', enabled: false, devices: ['inverter_2'] };
  await answer('POST /api/v1/plugins', '/api/v1/plugins', jsonBody(entry), 201);
  await answer('POST /api/v1/plugins', '/api/v1/plugins', jsonBody(entry), 409);
  await answer('POST /api/v1/plugins', '/api/v1/plugins', jsonBody({ id: 'x' }), 400);
  await answer('PATCH /api/v1/plugins/:id', '/api/v1/plugins/sim2', patch({ enabled: false }));
  await answer('GET /api/v1/plugins/:id/config', '/api/v1/plugins/sim2/config');
  await answer('PUT /api/v1/plugins/:id/config', '/api/v1/plugins/sim2/config', put({ demoPrices: false }));
  await answer('PUT /api/v1/plugins/:id/config', '/api/v1/plugins/sim2/config', put({ demoPrices: 'no' }), 400);
  await answer('PUT /api/v1/plugins/:id/grants', '/api/v1/plugins/sim2/grants', put({ prices: true, forecast: true }));
  await answer('PUT /api/v1/plugins/:id/grants', '/api/v1/plugins/sim2/grants', put({ hosts: ['*'] }), 400);
  const removed = await server.api('/api/v1/plugins/sim2', { method: 'DELETE' });
  assert.equal(removed.status, 204);
  documentedEmpty('DELETE /api/v1/plugins/:id', 204);
  await answer('GET /api/v1/plugins/:id/config', '/api/v1/plugins/nope/config', {}, 404);
});

test('site config, tokens, setup, this document and the stream’s HTTP hint', async () => {
  await answer('GET /api/v1/config', '/api/v1/config');
  await answer('PUT /api/v1/config', '/api/v1/config', put({ prices: { multiplier: 1.19 } }));
  await answer('PUT /api/v1/config', '/api/v1/config', put({ prices: { multiplier: 'x' } }), 400);
  const created = (await answer('POST /api/v1/tokens', '/api/v1/tokens', jsonBody({ name: 'schema-check' }), 201)) as {
    id: string;
  };
  const tokens = (await answer('GET /api/v1/tokens', '/api/v1/tokens')) as Array<{ id: string }>;
  assert.ok(tokens.some((t) => t.id === created.id));
  const revoked = await server.api(`/api/v1/tokens/${created.id}`, { method: 'DELETE' });
  assert.equal(revoked.status, 204);
  documentedEmpty('DELETE /api/v1/tokens/:id', 204);
  await answer('GET /api/v1/backups', '/api/v1/backups');
  const backup = (await answer('POST /api/v1/backups', '/api/v1/backups', {}, 201)) as { name: string };
  await answer('PUT /api/v1/backups/schedule', '/api/v1/backups/schedule', put({ keep: 3 }));
  // A refused restore changes nothing (a good one restarts the server: test/api/backups.test.ts).
  const cut = { headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(100) };
  await answer('POST /api/v1/backups/restore', '/api/v1/backups/restore', { ...cut, method: 'POST' }, 422);
  const good = new Uint8Array(readFileSync(join(server.dataDir, 'backups', backup.name)));
  assert.equal((await server.api(`/api/v1/backups/${backup.name}`, { method: 'DELETE' })).status, 204);
  documentedEmpty('DELETE /api/v1/backups/:name', 204);
  // Staged for the restart the test server only records (test/api/backups.test.ts restarts).
  const staged = { headers: { 'content-type': 'application/octet-stream' }, body: good, method: 'POST' };
  await answer('POST /api/v1/backups/restore', '/api/v1/backups/restore', staged, 202);
  // A listed backup is staged the same way, on a server of its own: one restore is staged at a time.
  const listing = await startTestServer({ plugins: [] });
  const listed = (await (await listing.api('/api/v1/backups', { method: 'POST' })).json()) as { name: string };
  await answer('POST /api/v1/backups/:name/restore', `/api/v1/backups/${listed.name}/restore`, {}, 202, listing);
  await answer('GET /api/v1/setup', '/api/v1/setup', { auth: null } as RequestInit);
  await answer('POST /api/v1/setup', '/api/v1/setup', jsonBody({ code: 'AAAA-AAAA', password: 'x' }), 409);
  // The first password, on a unit that has none yet.
  const fresh = await startTestServer({ plugins: [], password: null });
  const setup = (body: unknown) => ({ ...jsonBody(body), auth: null }) as RequestInit;
  const code = fresh.setupCode.value!;
  await answer('POST /api/v1/setup', '/api/v1/setup', setup({ code, password: 'short' }), 400, fresh);
  await answer('POST /api/v1/setup', '/api/v1/setup', setup({ code, password: 'a good long password' }), 201, fresh);
  await answer('GET /api/v1/openapi.json', '/api/v1/openapi.json');
  await answer('GET /api/websocket', '/api/websocket', {}, 426);
  await answer('GET /api/v1/metrics', '/api/v1/metrics', { auth: null } as RequestInit, 401);
});

/** A documented answer without a body (204). */
function documentedEmpty(route: string, status: number): void {
  const [method, path] = route.split(' ') as [string, string];
  const response = document.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()]?.responses[status];
  assert.ok(response && !('content' in response), `${route} documents ${status} without a body`);
  exercised.add(`${route} ${status}`);
}

test('every success answer the document describes as JSON (or empty) was checked above', () => {
  const described = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, op]) =>
      Object.entries(op.responses)
        .filter(([status, r]) => /^2\d\d$/.test(status) && (r.content?.['application/json'] || !r.content))
        .map(([status]) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')} ${status}`),
    ),
  );
  const missed = described.filter((d) => !exercised.has(d));
  assert.deepEqual(missed, [], 'documented answers no test above checked');
});
