// A price provider that fails, and one whose prices run out, are visible to clients: the real
// server with the aWATTar plugin pointed at a local fake of its API (its wire format: GET
// /v1/marketdata, `data[]` of start_timestamp / end_timestamp / marketprice in EUR/MWh) on a
// manual clock. GET /api/v1/grid's `status` says failed with the plugin's reason and the time
// of the last good data, then stale when the prices end within the hour; the battery
// planner's status names the provider and its trouble.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { send, sendJson, startFakeServer } from '@heliograph/plugins-sdk/fake-server';
import { valuesWhen } from '../drivers/driver-api.js';
import { pollUntil } from '../helpers/deadline.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const HOUR = 3_600_000;
// 13:04:55 in Berlin, a winter day. The plugin's jobs run on real timers computed from this
// clock: the first refresh at its start, and its "day-ahead" fetch at 13:05 Berlin time, that
// is 5 s (real) later: the one fetch the test makes fail.
const START = Date.parse('2026-12-21T12:04:55Z');
const P = 'planner_1';

interface GridStatus {
  state: 'ok' | 'failed' | 'stale';
  message: string | null;
  last_data: string | null;
}

/** What the fake answers: hourly prices published before `until`, or a maintenance page. */
const market = { until: Date.parse('2026-12-21T15:00:00Z'), down: false };

const fake = await startFakeServer({
  handle: (req, res) => {
    if (req.method !== 'GET' || req.path !== '/v1/marketdata') return sendJson(res, 404, { error: 'Not Found' });
    if (market.down) return send(res, 200, 'text/html', '<html><body>Wartungsarbeiten</body></html>');
    const start = Number(req.query.get('start'));
    const end = Number(req.query.get('end'));
    const data: Array<Record<string, unknown>> = [];
    for (let slot = Math.floor(start / HOUR) * HOUR; slot < end && slot < market.until; slot += HOUR)
      data.push({
        start_timestamp: slot,
        end_timestamp: slot + HOUR,
        marketprice: 100 + ((slot / HOUR) % 24),
        unit: 'Eur/MWh',
      });
    sendJson(res, 200, { object: 'list', data, url: '/de/v1/marketdata' });
  },
});

async function gridWhen(server: TestServer, check: (status: GridStatus | undefined) => boolean, what: string) {
  let status: GridStatus | undefined;
  await pollUntil(async () => {
    const grid = (await (await server.api('/api/v1/grid')).json()) as { provider: string; status?: GridStatus };
    status = grid.provider === 'aWATTar' ? grid.status : undefined;
    return { done: check(status), seen: grid.status };
  }, what);
  return status!;
}

function plannerStatusWhen(server: TestServer, pattern: RegExp, what: string): Promise<string> {
  return valuesWhen(server, (v) => pattern.test(String(v.get(`${P}/status`))), what).then((v) =>
    String(v.get(`${P}/status`)),
  );
}

/**
 * The market answering with prices until `pricesUntil`, and the server on a manual clock at
 * START with the simulator (battery and PV forecast), aWATTar on the fake and the planner.
 */
async function start(pricesUntil: string): Promise<{ server: TestServer; clock: ManualClock }> {
  market.down = false;
  market.until = Date.parse(pricesUntil);
  const clock = new ManualClock(START);
  const server = await startTestServer({
    clock,
    bundled: ['simulator', 'awattar', 'planner'],
    config: { site: { timeZone: 'Europe/Berlin', latitude: 52.5, longitude: 13.4 } },
    plugins: [
      {
        id: 'sim',
        plugin: 'simulator',
        devices: ['inverter_1', 'battery_1'],
        config: { pollIntervalMs: 1000, initialSoc: 30, backfill_days: 0, pvPeakW: 300 },
      },
      { id: 'prices', plugin: 'awattar', config: { baseUrl: fake.url } },
      { id: 'planner', plugin: 'planner', devices: [P], config: { checkIntervalMs: 150 } },
    ],
  });
  return { server, clock };
}

test('a failing provider: /grid says failed with the reason and its last good data; the planner names it', async () => {
  const { server, clock } = await start('2026-12-21T15:00:00Z');

  const ok = await gridWhen(server, (s) => s?.state === 'ok', 'the aWATTar prices, ok');
  assert.deepEqual(ok, { state: 'ok', message: null, last_data: '2026-12-21T12:04:55Z' });

  // The service goes into maintenance: the day-ahead fetch fails; the prices known stay.
  market.down = true;
  const failed = await gridWhen(server, (s) => s?.state === 'failed', '/grid status failed');
  assert.match(failed.message ?? '', /^job day-ahead failed: .*aWATTar answer/);
  assert.equal(failed.last_data, '2026-12-21T12:04:55Z', 'the time of the last good data');
  const plugins = (await (await server.api('/api/v1/plugins')).json()) as Array<{ id: string; last_error: string }>;
  assert.equal(failed.message, plugins.find((p) => p.id === 'prices')?.last_error, "the plugin's own error");
  // Still planning on the prices it has, and saying from whom they come and why no more.
  await plannerStatusWhen(
    server,
    /^dry-run: would set .*; prices from aWATTar failed \(last good data at 13:04\): job day-ahead failed: .*aWATTar answer/,
    'the planner planning on the last prices, naming the failure',
  );

  // Past the last known price: nothing to plan on, and the status says why.
  clock.advance(3 * HOUR);
  await plannerStatusWhen(
    server,
    /^dry-run: not planning: no price for now: prices from aWATTar failed \(last good data at 13:04\): job day-ahead failed/,
    'the planner naming the failed provider when the prices ran out',
  );
  assert.equal((await gridWhen(server, (s) => s !== undefined, '/grid status')).state, 'failed');
  await server.close();
});

test('prices that end within the hour are stale, and the planner names their end once they ran out', async () => {
  const { server, clock } = await start('2026-12-21T13:00:00Z');

  const stale = await gridWhen(server, (s) => s?.state === 'stale', '/grid status stale');
  assert.deepEqual(stale, {
    state: 'stale',
    message: 'prices from aWATTar end at 2026-12-21T13:00:00Z',
    last_data: '2026-12-21T12:04:55Z',
  });
  clock.advance(HOUR);
  await plannerStatusWhen(
    server,
    /^dry-run: not planning: no price for now: prices from aWATTar ended at 14:00$/,
    'the planner naming the end of the prices',
  );
  await server.close();
});

test.after(() => fake.close());
