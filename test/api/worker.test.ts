// Plugins in worker processes over the whole service: the same SDK surface as in-process, and
// a busy loop, a leak or a crash ends the worker (restarted with back-off), never the service.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { InstanceStatus } from '@heliograph/core/testing';
import { jsonBody, startTestServer, statusWhen } from '../helpers/server.js';
import { within } from '../helpers/deadline.js';

const server = await startTestServer({
  fixtures: ['echo', 'ticker', 'busy-loop', 'leaky', 'timer-throws'],
  external: ['flaky'],
  plugins: [
    { id: 'echo', plugin: 'echo', devices: ['inverter_1'], isolation: 'worker' },
    { id: 'meter', plugin: 'ticker', devices: ['inverter_2'], isolation: 'worker', config: { intervalMs: 20 } },
    { id: 'spin', plugin: 'busy-loop', isolation: 'worker', worker: { watchdogMs: 1000 } },
    { id: 'leak', plugin: 'leaky', isolation: 'worker', worker: { maxMemoryMb: 32 } },
    { id: 'timer', plugin: 'timer-throws', isolation: 'worker', config: { delayMs: 200 } },
    { id: 'third-party', plugin: 'flaky', config: { failures: 0, intervalMs: 60_000 } },
    { id: 'local', plugin: 'ticker', devices: ['inverter_3'] },
  ],
});

const value = async (topic: string) => (await server.api(`/api/v1/metrics?topic=${topic}&value=1`)).text();

test('isolation defaults to a worker for plugins from node_modules and to in-process for bundled ones', async () => {
  const list = (await (await server.api('/api/v1/plugins')).json()) as InstanceStatus[];
  const isolation = Object.fromEntries(list.map((p) => [p.id, p.isolation]));
  assert.equal(isolation['third-party'], 'worker');
  assert.equal(isolation.local, 'process-local');
  assert.equal(isolation.echo, 'worker', 'set in plugins.json');
  const thirdParty = await statusWhen(server, 'third-party', (s) => s.last_poll !== null);
  assert.equal(thirdParty.state, 'running');
});

test('a worker plugin declares and publishes topics, and its write handlers answer the API', async () => {
  await statusWhen(server, 'echo', (s) => s.state === 'running');
  assert.equal(await value('inverter_1/pv_power'), '1000');
  assert.equal(await value('inverter_1/device_mode'), 'Solar');
  const ok = await server.api('/api/v1/metrics', jsonBody({ topic: 'inverter_1/max_charge_current', value: '80' }));
  assert.equal(ok.status, 200, await ok.clone().text());
  assert.equal(await value('inverter_1/max_charge_current'), '80');
  const refused = await server.api(
    '/api/v1/metrics',
    jsonBody({ topic: 'inverter_1/output_source_priority', value: 'Refuse me' }),
  );
  assert.equal(refused.status, 422);
  assert.match(((await refused.json()) as { error: string }).error, /the device refused: NAK/);
});

test("a worker plugin's jobs run on the host's scheduler", async () => {
  const before = await statusWhen(server, 'meter', (s) => s.last_poll !== null, { what: 'a first poll' });
  const first = Number(await value('inverter_2/pv_power'));
  // The host counts each run it schedules: a later poll is recorded in the instance's status,
  // and the value the worker published on it reaches the registry.
  const later = await statusWhen(server, 'meter', (s) => s.last_poll !== before.last_poll, {
    what: 'a later poll recorded by the host',
  });
  assert.ok(
    Date.parse(later.last_poll!) > Date.parse(before.last_poll!),
    `${later.last_poll} after ${before.last_poll}`,
  );
  const rising = await registryValueWhen('inverter_2/pv_power', (v) => typeof v === 'number' && v > first);
  assert.ok(Number(rising) > first, `pv_power ${String(rising)} rose above ${first}`);
});

/** The registry's value of `topic` once `predicate` holds for it, checked on every tick; rejects after 20 s. */
function registryValueWhen(topic: string, predicate: (value: unknown) => boolean): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const current = server.registry.get(topic)?.value;
      if (!predicate(current)) return;
      server.registry.off('tick', check);
      clearTimeout(timer);
      resolve(current);
    };
    const timer = setTimeout(() => {
      server.registry.off('tick', check);
      reject(
        new Error(
          `${topic} did not satisfy ${predicate.toString()} within 20 s (last ${String(server.registry.get(topic)?.value)})`,
        ),
      );
    }, 20_000);
    server.registry.on('tick', check);
    check();
  });
}

test('a worker in a busy loop is terminated by the watchdog, marked failed, and the service answers', async () => {
  const failed = await statusWhen(server, 'spin', (s) => s.state === 'failed');
  assert.match(
    failed.last_error!,
    /^its worker did not answer for \d+ ms \(a busy loop\?\) and was terminated; retrying in \d+ s$/,
  );
  assert.equal((await server.api('/api/v1/plugins')).status, 200);
});

test('a worker that leaks is ended by its memory limit', async () => {
  const failed = await statusWhen(server, 'leak', (s) => s.state === 'failed');
  assert.match(
    failed.last_error!,
    /^ran out of memory \(its limit is 32 MB; raise "worker": \{ "maxMemoryMb": \.\.\. \} in plugins\.json/,
  );
});

test("an exception in a worker plugin's timer fails that plugin only", async () => {
  const failed = await statusWhen(server, 'timer', (s) => s.state === 'failed');
  assert.match(failed.last_error!, /^crashed: timer exploded; retrying in \d+ s$/);
  const neighbour = await statusWhen(server, 'meter', () => true);
  assert.equal(neighbour.state, 'running', String(neighbour.last_error));
});

test('plugins.json refuses an unknown isolation, naming the key', async () => {
  await assert.rejects(
    startTestServer({ fixtures: ['echo'], plugins: [{ id: 'e', plugin: 'echo', isolation: 'thread' }] }),
    /plugins\[0\]\.isolation/,
  );
});

test('the simulator runs unchanged in a worker: store, past readings, forecast and prices cross the port', async () => {
  const sim = await startTestServer({
    bundled: ['simulator'],
    plugins: [
      {
        id: 'sim',
        plugin: 'simulator',
        devices: ['inverter_1', 'battery_1'],
        isolation: 'worker',
        config: { backfill_days: 1 },
      },
    ],
  });
  const to = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
  const from = new Date(Date.parse(to) - 24 * 3_600_000).toISOString();
  // Backfill writes through ctx.topics.record and keeps its progress in ctx.store: checked after each job run.
  for (;;) {
    const res = await sim.api(`/api/v1/history?topic=inverter_1/pv_power&from=${from}&to=${to}&group_by=1h`);
    const { points } = (await res.json()) as { points: unknown[] };
    if (points.length >= 24) break;
    await within(
      new Promise((resolve) => sim.plugins.once('status', resolve)),
      `job run of the worker's backfill while inverter_1/pv_power has ${points.length} of the 24 hours`,
    );
  }
  // The hours can all be in before the backfill's first run has ended, and with it the start.
  const status = await statusWhen(sim, 'sim', (s) => s.state !== 'starting');
  assert.equal(status.isolation, 'worker');
  assert.equal(status.state, 'running', String(status.last_error));
  assert.notEqual(await (await sim.api('/api/v1/metrics?topic=inverter_1/pv_power&value=1')).text(), '');
  const grid = (await (await sim.api('/api/v1/grid')).json()) as { pricing: unknown };
  assert.ok(grid.pricing, 'demo prices were declared and published');
  const forecast = await sim.api('/api/v1/forecast?topic=weather/pv_power_predicted');
  assert.equal(forecast.status, 200, await forecast.clone().text());
  assert.ok(((await forecast.json()) as { points: unknown[] }).points.length > 0, 'the demo forecast was published');
});

test("a worker plugin's module is never evaluated in the server's thread, yet its config is checked and described", async () => {
  const s = await startTestServer({
    external: ['marker'],
    plugins: [{ id: 'm', plugin: 'marker', config: { url: 'https://example.org/' } }],
  });
  assert.equal((globalThis as { heliographMarkerEvaluations?: number }).heliographMarkerEvaluations, undefined);
  const running = await statusWhen(s, 'm', (status) => status.state === 'running');
  assert.equal(running.isolation, 'worker');
  const form = (await (await s.api('/api/v1/plugins/m/config')).json()) as {
    schema: { properties: Record<string, unknown> };
  };
  assert.deepEqual(Object.keys(form.schema.properties).sort(), ['retries', 'url']);
  await assert.rejects(
    startTestServer({
      external: ['marker'],
      plugins: [{ id: 'm', plugin: 'marker', config: { url: 'https://example.org/', retries: 'x' } }],
    }),
    /plugins\[0\]\.config\.retries/,
  );
  assert.equal((globalThis as { heliographMarkerEvaluations?: number }).heliographMarkerEvaluations, undefined);
});
