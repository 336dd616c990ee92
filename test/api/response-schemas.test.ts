// Real answers of every REST resource parsed with the response schemas that
// @heliograph/core/api-types infers its types from, so the types clients import cannot drift
// from what the server sends, hand-built JSON (history, the metrics snapshot) included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { z } from 'zod';
import * as schemas from '@heliograph/core/api-schemas';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer({
  bundled: ['simulator'],
  plugins: [
    {
      id: 'sim',
      plugin: 'simulator',
      devices: ['inverter_1', 'battery_1'],
      config: { demoForecast: true, demoPrices: true },
    },
  ],
});

async function answer<S extends z.ZodType>(
  schema: S,
  path: string,
  init: RequestInit = {},
  status = 200,
): Promise<z.output<S>> {
  const res = await server.api(path, init);
  const body: unknown = await res.json();
  assert.equal(res.status, status, `${path}: ${JSON.stringify(body)}`);
  const parsed = schema.safeParse(body);
  assert.ok(
    parsed.success,
    `${path} does not match its schema: ${parsed.error?.message}\n${JSON.stringify(body).slice(0, 500)}`,
  );
  // zod drops keys its object schemas do not name: an answer equal to its parse carries no
  // field the schema (and so the types clients import) leaves out.
  assert.deepEqual(parsed.data, body, `${path} carries fields its schema does not name`);
  return parsed.data!;
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

test('metrics, and a write to a setting', async () => {
  const metrics = await answer(schemas.metricsResponse, '/api/v1/metrics');
  assert.ok(metrics.length > 10);
  const setting = metrics.find((m) => m.writable && 'options' in m.writable);
  assert.ok(setting, 'the simulator declares a setting with options');
  const options = (setting.writable as { options: string[] }).options;
  await answer(schemas.writeResponse, '/api/v1/metrics', json({ topic: setting.topic, value: options[0] }));
  const audit = await answer(schemas.auditResponse, '/api/v1/audit');
  assert.equal(audit[0]!.topic, setting.topic);
});

test('history (hand-built JSON), forecast and grid', async () => {
  const history = await answer(schemas.historyResponse, '/api/v1/history?topic=total/pv_power&group_by=1m');
  assert.equal(history.topic, 'total/pv_power');
  const forecast = await answer(schemas.forecastResponse, '/api/v1/forecast?topic=weather/pv_power_predicted');
  assert.ok(forecast.points.length > 0);
  const grid = await answer(schemas.gridResponse, '/api/v1/grid');
  assert.equal(grid.provider, 'Simulator');
});

test('plugins, plugin config, tokens and an error', async () => {
  const plugins = await answer(schemas.pluginsResponse, '/api/v1/plugins');
  assert.equal(plugins[0]!.id, 'sim');
  await answer(schemas.pluginConfigResponse, '/api/v1/plugins/sim/config');
  const created = await answer(schemas.createdToken, '/api/v1/tokens', json({ name: 'schema-check' }), 201);
  const tokens = await answer(schemas.tokensResponse, '/api/v1/tokens');
  assert.ok(tokens.some((t) => t.id === created.id));
  await answer(schemas.errorResponse, '/api/v1/plugins/nope/config', {}, 404);
});
