/*
 * The files of a new price provider, forecast provider or integration: each talks to a web
 * service through ctx.http, and its test runs it against a fake of that service.
 */
import type { Template } from './template.js';

const testHead = (t: Template) => `import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { sendJson, startFakeServer, stopFakeServers } from '@heliograph/plugins-sdk/fake-server';
import { startTestHost, stopTestHosts } from '@heliograph/plugins-sdk/testing';
import plugin from '../src/index.js';

after(async () => {
  await stopTestHosts();
  await stopFakeServers();
});
const manifest = { kind: '${t.kind}' } as const;
`;

export function pricesFiles(t: Template): Record<string, string> {
  return {
    'src/index.ts': `/**
 * ${t.name}: day-ahead prices from a web service, refreshed every hour. The service answers
 * \`{ "prices": [{ "start": "<RFC 3339>", "end": "<RFC 3339>", "price": <currency per kWh> }] }\`;
 * change \`answerSchema\` and the URL to your provider's.
 */
import { definePlugin, z } from '@heliograph/plugins-sdk';

export const answerSchema = z.object({
  prices: z.array(z.object({ start: z.iso.datetime({ offset: true }), end: z.iso.datetime({ offset: true }), price: z.number() })),
});

export default definePlugin({
  id: '${t.id}',
  configSchema: z.strictObject({
    baseUrl: z.url().describe('Where the price service answers.').default('https://prices.example.org'),
    currency: z.string().length(3).default('EUR'),
  }),
  setup(ctx, config) {
    ctx.prices.declare({ provider: '${t.name}', currency: config.currency, scheduleType: 'pricing' });
    ctx.scheduler.every({
      name: 'refresh',
      intervalMs: 3_600_000,
      run: async ({ signal }) => {
        const answer = answerSchema.parse(await ctx.http.get(\`\${config.baseUrl}/v1/prices\`, { signal }).json());
        ctx.prices.publish({
          import: answer.prices.map((p) => ({ start: Date.parse(p.start), end: Date.parse(p.end), price: p.price })),
        });
      },
    });
  },
});
`,
    'test/index.test.ts': `${testHead(t)}
test('publishes the prices the service answers', async () => {
  const fake = await startFakeServer({
    handle: (_request, response) =>
      sendJson(response, 200, {
        prices: [{ start: '2026-11-20T12:00:00Z', end: '2026-11-20T13:00:00Z', price: 0.21 }],
      }),
  });
  const host = await startTestHost({ plugin, config: { baseUrl: fake.url }, manifest });
  await host.runJob('refresh');
  assert.equal(fake.requests[0]?.path, '/v1/prices');
  assert.deepEqual(host.prices.schedules.at(-1)?.import, [
    { start: Date.parse('2026-11-20T12:00:00Z'), end: Date.parse('2026-11-20T13:00:00Z'), price: 0.21 },
  ]);
  assert.equal(host.status.state, 'running', String(host.status.last_error));
});
`,
  };
}

export function forecastFiles(t: Template): Record<string, string> {
  return {
    'src/index.ts': `/**
 * ${t.name}: a PV power forecast from a web service for the site's location, refreshed every
 * hour. The service answers \`{ "points": [{ "time": "<RFC 3339>", "watts": <W> }] }\`; change
 * \`answerSchema\` and the URL to your provider's.
 */
import { definePlugin, z } from '@heliograph/plugins-sdk';

export const answerSchema = z.object({
  points: z.array(z.object({ time: z.iso.datetime({ offset: true }), watts: z.number().nullable() })),
});

export default definePlugin({
  id: '${t.id}',
  configSchema: z.strictObject({
    baseUrl: z.url().describe('Where the forecast service answers.').default('https://forecast.example.org'),
  }),
  setup(ctx, config) {
    ctx.scheduler.every({
      name: 'refresh',
      intervalMs: 3_600_000,
      run: async ({ signal }) => {
        const { latitude, longitude } = ctx.site;
        const url = \`\${config.baseUrl}/v1/pv?lat=\${latitude}&lon=\${longitude}\`;
        const answer = answerSchema.parse(await ctx.http.get(url, { signal }).json());
        ctx.forecast.publish({
          series: { pv_power_predicted: answer.points.map((p) => [Date.parse(p.time), p.watts]) },
        });
      },
    });
  },
});
`,
    'test/index.test.ts': `${testHead(t)}
test("publishes the service's PV forecast for the site", async () => {
  const fake = await startFakeServer({
    handle: (_request, response) => sendJson(response, 200, { points: [{ time: '2026-11-20T12:00:00Z', watts: 1520 }] }),
  });
  const host = await startTestHost({
    plugin,
    config: { baseUrl: fake.url },
    manifest,
    site: { latitude: 52.5, longitude: 13.4 },
  });
  await host.runJob('refresh');
  assert.equal(fake.requests[0]?.query.get('lat'), '52.5');
  assert.deepEqual(host.forecasts.at(-1)?.series.pv_power_predicted, [[Date.parse('2026-11-20T12:00:00Z'), 1520]]);
  assert.equal(host.status.state, 'running', String(host.status.last_error));
});
`,
  };
}

export function integrationFiles(t: Template): Record<string, string> {
  return {
    'src/index.ts': `/**
 * ${t.name}: tells another system that this Heliograph is alive, posting a heartbeat to a
 * webhook every \`intervalMs\`. Replace the body with what your system needs.
 */
import { definePlugin, z } from '@heliograph/plugins-sdk';

export default definePlugin({
  id: '${t.id}',
  configSchema: z.strictObject({
    webhookUrl: z.url().describe('Where the heartbeat is posted.'),
    intervalMs: z.number().int().min(10_000).default(60_000),
  }),
  setup(ctx, config) {
    ctx.scheduler.every({
      name: 'heartbeat',
      intervalMs: config.intervalMs,
      run: async ({ signal }) => {
        await ctx.http.post(config.webhookUrl, { json: { instance: ctx.instanceId, at: ctx.now() }, signal });
      },
    });
  },
});
`,
    'test/index.test.ts': `${testHead(t)}
test('posts a heartbeat to the webhook', async () => {
  const fake = await startFakeServer({ handle: (_request, response) => sendJson(response, 200, {}) });
  const host = await startTestHost({ plugin, config: { webhookUrl: \`\${fake.url}/hook\` }, manifest, now: 1_000 });
  await host.runJob('heartbeat');
  assert.equal(fake.requests[0]?.method, 'POST');
  assert.deepEqual(JSON.parse(fake.requests[0]!.body), { instance: '${t.id}', at: 1_000 });
  assert.equal(host.status.state, 'running', String(host.status.last_error));
});
`,
  };
}
