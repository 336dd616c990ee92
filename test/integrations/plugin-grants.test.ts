// Grants: a hostile third-party integration plugin (test/fixtures/plugins/grabber) asks to
// write another driver's battery control and the planner's mode, to publish grid prices and
// the PV forecast, and to reach one host. In the real server process, with nothing approved,
// it is refused on every count, each refusal with GRANT_MISSING in its log and the audit,
// and the simulator's prices and forecast stay the site's; with some grants approved it does
// exactly what was approved and nothing more; and the owner approves through the API.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { pollUntil } from '../helpers/deadline.js';
import { tempDir } from '../helpers/server.js';
import type { AuditEntry } from '@heliograph/core/api-types';

/** A local service the plugin may or may not reach: counts its requests. */
let upstreamHits = 0;
const upstream = createServer((_req, res) => {
  upstreamHits += 1;
  res.end('ok');
});
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const port = (upstream.address() as AddressInfo).port;
after(() => upstream.close());

// Made at the top: a folder made inside a test is removed when that test ends.
const dirs = { none: tempDir(), some: tempDir(), bundled: tempDir() };
const servers: ChildServer[] = [];
after(() => Promise.all(servers.map((s) => s.stop())));

const GRABS = /\[plugin:grab\] grabs: (\{.*\})$/m;
const SIM = { id: 'sim', plugin: 'simulator', devices: ['inverter_1', 'battery_1'], config: { backfill_days: 0 } };

async function start(
  dir: string,
  grab: Record<string, unknown>,
  withPlanner: boolean,
  as: 'external' | 'fixtures' = 'external',
): Promise<ChildServer> {
  const server = await startChildServer({
    dir,
    bundled: withPlanner ? ['simulator', 'planner'] : ['simulator'],
    [as]: ['grabber'],
    plugins: [
      SIM,
      ...(withPlanner ? [{ id: 'planner', plugin: 'planner', devices: ['planner_1'] }] : []),
      { id: 'grab', plugin: 'grabber', config: { port }, ...grab },
    ],
  });
  servers.push(server);
  return server;
}

/** Reads until `ok` holds (deadline and last value named by pollUntil); the value read. */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  let last!: T;
  await pollUntil(async () => {
    last = await read();
    return { done: ok(last), seen: last };
  }, what);
  return last;
}

/** The outcome of each attempt (`done`, `refused <code>`), and `why` of those without a code. */
type Grabs = Record<string, string> & { why: Record<string, string> };

async function grabsOf(server: ChildServer, from = 0): Promise<Grabs> {
  const [, json] = await server.waitFor(GRABS, "the grabber's grabs line", from);
  return JSON.parse(json!) as Grabs;
}

async function refusalsOf(server: ChildServer): Promise<AuditEntry[]> {
  const entries = (await (await server.api('/api/v1/audit?limit=200')).json()) as AuditEntry[];
  return entries.filter((e) => e.who === 'plugin:grab' && e.via === 'grabber' && e.result === 'error');
}

async function gridProvider(server: ChildServer): Promise<{ provider: string; prices: number[] }> {
  const grid = (await (await server.api('/api/v1/grid')).json()) as {
    provider: string;
    pricing: { slots: { price?: number }[] } | null;
  };
  return { provider: grid.provider, prices: (grid.pricing?.slots ?? []).map((s) => s.price ?? NaN) };
}

async function forecastValues(server: ChildServer): Promise<number[]> {
  const res = await server.api('/api/v1/forecast?topic=weather/pv_power_predicted');
  if (res.status !== 200) return [];
  return ((await res.json()) as { points: [string, number | null][] }).points.map(([, v]) => v ?? 0);
}

test('without grants, the hostile plugin is refused on every count, each in its log and the audit with GRANT_MISSING', async () => {
  const server = await start(dirs.none, {}, true);
  const grabs = await grabsOf(server);
  for (const key of ['batteryMode', 'chargeCurrent', 'plannerMode', 'grantedHost', 'otherHost'])
    assert.equal(grabs[key], 'refused GRANT_MISSING', `${key}: ${JSON.stringify(grabs.why)}`);
  assert.equal(upstreamHits, 0, 'no request left for a host nobody approved');

  const output = server.output();
  for (const pattern of [
    /warn \[plugin:grab\] GRANT_MISSING: writing inverter_1\/battery_control_mode needs a grant/,
    /warn \[plugin:grab\] GRANT_MISSING: writing inverter_1\/max_charge_current needs a grant/,
    /warn \[plugin:grab\] GRANT_MISSING: writing planner_1\/mode needs a grant/,
    /warn \[plugin:grab\] GRANT_MISSING: publishing grid prices needs the "prices" grant/,
    /warn \[plugin:grab\] GRANT_MISSING: publishing the forecast needs the "forecast" grant/,
    /warn \[plugin:grab\] GRANT_MISSING: ctx\.http may not reach 127\.0\.0\.1/,
    /warn \[plugin:grab\] GRANT_MISSING: ctx\.http may not reach localhost/,
  ])
    assert.match(output, pattern);

  const refused = await until(
    () => refusalsOf(server),
    (entries) => entries.length >= 7,
    'seven GRANT_MISSING refusals in the audit',
  );
  const audited = refused.filter((e) => e.message?.split(':')[0] === 'GRANT_MISSING').map((e) => e.new_value);
  for (const what of [
    'ctx.site.write inverter_1/battery_control_mode',
    'ctx.site.write inverter_1/max_charge_current',
    'ctx.site.write planner_1/mode',
    'ctx.prices.publish',
    'ctx.forecast.publish',
    'ctx.http 127.0.0.1',
    'ctx.http localhost',
  ])
    assert.ok(audited.includes(what), `${what} audited: ${JSON.stringify(audited)}`);

  // Nothing of it reached the house: no write was attempted, the demo prices and forecast stay.
  const entries = (await (await server.api('/api/v1/audit?limit=200')).json()) as AuditEntry[];
  assert.ok(!entries.some((e) => e.who === 'plugin:grab' && e.result !== 'error'), 'no write of the grabber ran');
  const grid = await gridProvider(server);
  assert.equal(grid.provider, 'Simulator');
  assert.ok(!grid.prices.includes(-5), 'no -5 EUR slot');
  const forecast = await until(
    () => forecastValues(server),
    (values) => values.length > 0,
    "the simulator's demo forecast",
  );
  assert.ok(!forecast.includes(123456), 'the forecast is still the demo one');
});

test('GET /api/v1/plugins shows what it asks and that nothing is approved; PUT .../grants approves, audited, and it restarts with it', async () => {
  const server = servers[0]!;
  const list = (await (await server.api('/api/v1/plugins')).json()) as {
    id: string;
    grants?: { requested: Record<string, unknown>; approved: Record<string, unknown> };
  }[];
  const grab = list.find((p) => p.id === 'grab');
  assert.deepEqual(grab?.grants, {
    requested: {
      writes: ['inverter_1/battery_control_*', 'planner_1/mode'],
      prices: true,
      forecast: true,
      hosts: ['127.0.0.1'],
    },
    approved: {},
  });
  // A bundled plugin's requests are approved as it ships.
  assert.deepEqual(list.find((p) => p.id === 'planner')?.grants?.approved, {
    writes: ['*/battery_control_*', '*/planned_power'],
  });

  const put = (body: unknown) =>
    server.api('/api/v1/plugins/grab/grants', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const beyond = await put({ writes: ['*'] });
  assert.equal(beyond.status, 400);
  const refusal = (await beyond.json()) as { code: string; error: string };
  assert.equal(refusal.code, 'BODY_INVALID');
  assert.match(refusal.error, /"\*" is not among the plugin's requested writes/);

  const before = server.output().length;
  const approved = await put({ hosts: ['127.0.0.1'] });
  assert.equal(approved.status, 200);
  assert.deepEqual(((await approved.json()) as { grants: unknown }).grants, {
    requested: grab?.grants?.requested,
    approved: { hosts: ['127.0.0.1'] },
  });
  const grabs = await grabsOf(server, before);
  assert.equal(grabs.grantedHost, 'done');
  assert.equal(grabs.otherHost, 'refused GRANT_MISSING');
  assert.equal(grabs.plannerMode, 'refused GRANT_MISSING');
  assert.equal(upstreamHits, 1);
  const entries = (await (await server.api('/api/v1/audit?limit=200')).json()) as AuditEntry[];
  assert.ok(
    entries.some((e) => e.topic === 'plugins/grab' && e.result !== 'error' && e.new_value.includes('127.0.0.1')),
    'the approval is audited',
  );
});

test('with grants approved it does what was approved and nothing more', async () => {
  upstreamHits = 0;
  const server = await start(
    dirs.some,
    { grants: { writes: ['inverter_1/battery_control_*'], prices: true, hosts: ['127.0.0.1'] } },
    false,
  );
  const grabs = await grabsOf(server);
  assert.equal(grabs.batteryMode, 'done', `the granted glob covers it: ${JSON.stringify(grabs.why)}`);
  assert.equal(grabs.chargeCurrent, 'refused GRANT_MISSING', 'a neighbouring setting of that device is not granted');
  assert.equal(grabs.plannerMode, 'refused GRANT_MISSING', 'asked for but not approved');
  assert.equal(grabs.grantedHost, 'done');
  assert.equal(grabs.otherHost, 'refused GRANT_MISSING');
  assert.equal(upstreamHits, 1);

  const entries = (await (await server.api('/api/v1/audit?limit=200')).json()) as AuditEntry[];
  assert.ok(
    entries.some((e) => e.who === 'plugin:grab' && e.topic === 'inverter_1/battery_control_mode' && e.result === 'ok'),
    'the granted write went through the write path, audited',
  );
  const grid = await until(
    () => gridProvider(server),
    (g) => g.provider === 'Grabber',
    "the grabber's approved prices in /grid",
  );
  assert.ok(grid.prices.includes(-5));
  assert.match(
    server.output(),
    /warn \[plugin:grab\] GRANT_MISSING: publishing the forecast needs the "forecast" grant/,
  );
  assert.ok(!(await forecastValues(server)).includes(123456), 'the forecast, not approved, was not taken');
  const refused = (await refusalsOf(server)).map((e) => e.new_value);
  assert.ok(refused.includes('ctx.forecast.publish'));
  assert.ok(!refused.includes('ctx.prices.publish'));
});

test("a bundled plugin in the server's process: its entry's grants narrow the manifest's, checked on every path", async () => {
  upstreamHits = 0;
  const server = await start(dirs.bundled, { grants: { prices: true } }, false, 'fixtures');
  const grabs = await grabsOf(server);
  for (const key of ['batteryMode', 'chargeCurrent', 'plannerMode', 'integrationWrite', 'grantedHost', 'otherHost'])
    assert.equal(grabs[key], 'refused GRANT_MISSING', `${key}: ${JSON.stringify(grabs.why)}`);
  assert.equal(upstreamHits, 0);
  const refused = await until(
    () => refusalsOf(server),
    (entries) => entries.some((e) => e.new_value === 'ctx.integration.write inverter_1/battery_control_mode'),
    'the ctx.integration.write refusal in the audit',
  );
  assert.ok(refused.some((e) => e.new_value === 'ctx.forecast.publish'));
  assert.ok(!refused.some((e) => e.new_value === 'ctx.prices.publish'), 'prices, approved, went through');
  const list = (await (await server.api('/api/v1/plugins')).json()) as { id: string; isolation: string }[];
  assert.equal(list.find((p) => p.id === 'grab')?.isolation, 'process-local');
});
