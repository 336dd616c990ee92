// The owner picks the site's price source and forecast source (config prices.source,
// prices.fallbacks, forecast.source, forecast.fallbacks): only the chosen one's data is
// used, a fallback fills what it lacks and takes over when it stops, a choice changed
// through PUT /api/v1/config applies at once, any other source is kept on standby and
// GET /api/v1/plugins says so; a hostile plugin granted `prices` and `forecast` but not
// chosen cannot change the site's prices or forecast.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pollUntil } from '../helpers/deadline.js';
import { jsonBody, startTestServer, type TestServer } from '../helpers/server.js';

interface Grid {
  provider: string;
  source?: string;
  pricing: { slots: Array<{ price: number }> } | null;
}

async function grid(server: TestServer): Promise<Grid> {
  return (await (await server.api('/api/v1/grid')).json()) as Grid;
}

async function prices(server: TestServer): Promise<number[]> {
  return ((await grid(server)).pricing?.slots ?? []).map((s) => s.price);
}

/** Each instance's `source_role` (absent for one that publishes neither prices nor forecast). */
async function roles(server: TestServer): Promise<Record<string, string | undefined>> {
  const list = (await (await server.api('/api/v1/plugins')).json()) as Array<{ id: string; source_role?: string }>;
  return Object.fromEntries(list.filter((p) => p.source_role !== undefined).map((p) => [p.id, p.source_role]));
}

async function putConfig(server: TestServer, body: unknown): Promise<Response> {
  return server.api('/api/v1/config', { ...jsonBody(body), method: 'PUT' });
}

async function forecast(server: TestServer): Promise<{ status: number; source?: string; values: number[] }> {
  // From the start of the UTC day, where the fixture's points begin.
  const from = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000).toISOString();
  const res = await server.api(`/api/v1/forecast?topic=weather/pv_power_predicted&from=${from}`);
  const body = (await res.json()) as { source?: string; points?: Array<[string, number]>; error?: string };
  return { status: res.status, source: body.source, values: (body.points ?? []).map(([, v]) => v) };
}

/** `count` times `value`. */
const times = (count: number, value: number) => Array<number>(count).fill(value);

/** Runs of equal values: [[100, 24], [500, 168]]. */
function runs(values: number[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const v of values) {
    const last = out.at(-1);
    if (last && last[0] === v) last[1]++;
    else out.push([v, 1]);
  }
  return out;
}

test("the chosen price source's prices are the site's; the other is on standby; a change applies live", async () => {
  const server = await startTestServer({
    fixtures: ['day-prices'],
    plugins: [
      { id: 'first', plugin: 'day-prices', config: { provider: 'First', price: 0.2 } },
      { id: 'second', plugin: 'day-prices', config: { provider: 'Second', price: 0.3 } },
    ],
    config: { site: { timeZone: 'UTC' }, prices: { source: 'second' } },
  });
  const chosen = await grid(server);
  assert.equal(chosen.provider, 'Second', 'the first declared is not used: the owner chose "second"');
  assert.equal(chosen.source, 'second');
  assert.deepEqual(await prices(server), times(24, 0.3));
  assert.deepEqual(await roles(server), { first: 'standby', second: 'active' });

  const res = await putConfig(server, { prices: { source: 'first' } });
  assert.equal(res.status, 200, await res.text());
  assert.deepEqual(await prices(server), times(24, 0.2), 'the new choice applies without a restart');
  assert.equal((await grid(server)).source, 'first');
  assert.deepEqual(await roles(server), { first: 'active', second: 'standby' });
  assert.deepEqual(
    server.plugins.status().map((s) => s.state),
    ['running', 'running'],
    'no plugin restarted',
  );
});

test('a price fallback fills the hours the chosen source lacks, and takes over when it stops', async () => {
  const server = await startTestServer({
    fixtures: ['day-prices', 'two-day-prices'],
    plugins: [
      { id: 'spare', plugin: 'day-prices', config: { provider: 'Spare', price: 0.9 } },
      { id: 'today', plugin: 'day-prices', config: { provider: 'Today', price: 0.3 } },
      { id: 'twoday', plugin: 'two-day-prices', config: { provider: 'Two days', price: 0.2 } },
    ],
    config: { site: { timeZone: 'UTC' }, prices: { source: 'today', fallbacks: ['twoday'] } },
  });
  assert.deepEqual(await prices(server), [...times(24, 0.3), ...times(24, 0.2)], 'tomorrow from the fallback');
  assert.equal((await grid(server)).source, 'today');
  assert.deepEqual(await roles(server), { spare: 'standby', today: 'active', twoday: 'fallback' });

  const off = await server.api('/api/v1/plugins/today', { ...jsonBody({ enabled: false }), method: 'PATCH' });
  assert.equal(off.status, 200, await off.text());
  await pollUntil(async () => {
    const seen = await grid(server);
    return { done: seen.source === 'twoday', seen: seen.source };
  }, 'the fallback "twoday" as the source in use once "today" stopped');
  assert.deepEqual(await prices(server), times(48, 0.2), 'the standby "spare" (0.9) is still not used');
  assert.deepEqual(await roles(server), { spare: 'standby', today: 'fallback', twoday: 'active' });
});

test('an id that is no instance, or does not publish that, is refused in words and nothing is saved; a chosen source is not removed', async () => {
  const server = await startTestServer({
    fixtures: ['day-prices', 'flat-forecast'],
    plugins: [
      { id: 'tariff', plugin: 'day-prices', config: { provider: 'Tariff' } },
      { id: 'sky', plugin: 'flat-forecast', config: { value: 1 } },
    ],
  });
  const res = await putConfig(server, {
    prices: { source: 'tibber', fallbacks: ['sky', 'tariff', 'tariff'] },
    forecast: { source: 'tariff' },
  });
  assert.equal(res.status, 400);
  const { issues } = (await res.json()) as { issues: Array<{ path: Array<string | number>; message: string }> };
  assert.deepEqual(Object.fromEntries(issues.map((i) => [i.path.join('.'), i.message])), {
    'prices.source': '"tibber" is no plugin instance (GET /api/v1/plugins lists them); choose one of "tariff"',
    'prices.fallbacks.0': '"sky" (plugin flat-forecast) does not publish grid prices; choose one of "tariff"',
    'prices.fallbacks.2': '"tariff" is listed twice',
    'forecast.source': '"tariff" (plugin day-prices) does not publish the forecast; choose one of "sky"',
  });
  assert.equal(server.config.prices.source, null, 'nothing was applied');
  const ok = await putConfig(server, { prices: { source: 'tariff' }, forecast: { source: 'sky' } });
  assert.equal(ok.status, 200, await ok.text());

  // A chosen source is not removed by surprise: the owner chooses another first.
  const removal = await server.api('/api/v1/plugins/tariff', { method: 'DELETE' });
  assert.equal(removal.status, 409);
  assert.deepEqual(await removal.json(), {
    error:
      'instance "tariff" is the site\'s chosen source of grid prices: choose another in the site settings (Site tab) first, then remove it',
    code: 'PLUGIN_INSTANCE_IN_USE',
  });
  assert.ok((await roles(server)).tariff, 'the instance is still there');
  const automatic = await putConfig(server, { prices: { source: null } });
  assert.equal(automatic.status, 200, await automatic.text());
  assert.equal((await server.api('/api/v1/plugins/tariff', { method: 'DELETE' })).status, 204);
});

test('the chosen forecast source is used, a fallback fills after it and takes over, others are on standby', async () => {
  const server = await startTestServer({
    fixtures: ['flat-forecast'],
    plugins: [
      { id: 'other', plugin: 'flat-forecast', config: { value: 7, hours: 48 } },
      { id: 'short', plugin: 'flat-forecast', config: { value: 100, hours: 6 } },
      { id: 'long', plugin: 'flat-forecast', config: { value: 500, hours: 48 } },
    ],
    config: { forecast: { source: 'short', fallbacks: ['long'] } },
  });
  let seen = await forecast(server);
  assert.equal(seen.source, 'short');
  assert.deepEqual(runs(seen.values), [
    [100, 24],
    [500, 168],
  ]);
  assert.deepEqual(await roles(server), { other: 'standby', short: 'active', long: 'fallback' });

  const off = await server.api('/api/v1/plugins/short', { ...jsonBody({ enabled: false }), method: 'PATCH' });
  assert.equal(off.status, 200, await off.text());
  await pollUntil(async () => {
    seen = await forecast(server);
    return { done: seen.source === 'long', seen: seen.source };
  }, 'the fallback "long" as the forecast in use once "short" stopped');
  assert.deepEqual(runs(seen.values), [[500, 192]]);

  const res = await putConfig(server, { forecast: { source: 'other', fallbacks: [] } });
  assert.equal(res.status, 200, await res.text());
  seen = await forecast(server);
  assert.equal(seen.source, 'other', 'the new choice applies without a restart, with what it published before');
  assert.deepEqual(runs(seen.values), [[7, 192]]);
  assert.deepEqual(await roles(server), { other: 'active', short: 'standby', long: 'standby' });
});

test('a hostile plugin granted prices and forecast but not chosen changes neither', async () => {
  const server = await startTestServer({
    fixtures: ['day-prices', 'flat-forecast'],
    external: ['grabber'],
    plugins: [
      // No `hosts` granted: its ctx.http calls are refused before any connection, so the port is never reached.
      { id: 'grab', plugin: 'grabber', config: { port: 9 }, grants: { prices: true, forecast: true } },
      // The chosen sources have nothing yet (their fetches fail): the grabber's data is all there is.
      { id: 'quiet', plugin: 'day-prices', config: { provider: 'Quiet', publish: false } },
      { id: 'sky', plugin: 'flat-forecast', config: { value: 1, publish: false } },
    ],
    config: { prices: { source: 'quiet' }, forecast: { source: 'sky' } },
  });
  const chosen = await grid(server);
  assert.equal(chosen.provider, 'Quiet');
  assert.deepEqual(await prices(server), [], 'no -5 EUR slot from the grabber');
  const weather = await server.api('/api/v1/forecast?topic=weather/pv_power_predicted');
  assert.equal(weather.status, 404, 'no 123456 W forecast from the grabber');
  assert.match(((await weather.json()) as { error: string }).error, /forecast source sky \(config forecast\.source\)/);
  assert.equal((await roles(server)).grab, 'standby');

  // Its publications were taken and kept, just not used: choosing it shows them.
  assert.equal((await putConfig(server, { prices: { source: 'grab' } })).status, 200);
  assert.ok((await prices(server)).includes(-5), "the grabber's prices, once the owner chooses it");
  assert.equal((await putConfig(server, { prices: { source: 'quiet' } })).status, 200);
  assert.deepEqual(await prices(server), []);
});
