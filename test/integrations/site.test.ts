// ctx.site over the whole service: a plugin that is no driver reads the simulator's topics,
// demo prices and forecast, subscribes, and writes one of its settings through the write
// path (audited with the plugin's id as via), in-process and in a worker thread alike. It
// shows what it saw on a device of its own kind (reader_N), which the API lists like any.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { MetricValue } from '@heliograph/plugins-sdk';
import type { Tick } from '@heliograph/core/testing';
import { connectPhoenix, nextEvent } from '../helpers/phoenix.js';
import { jsonBody, startTestServer, type TestServer } from '../helpers/server.js';

const WAIT_MS = 10_000;

const server = await startTestServer({
  bundled: ['simulator'],
  fixtures: ['site-reader'],
  plugins: [
    // One poll at start (the longest interval), so the test alone makes later ticks.
    { id: 'sim', plugin: 'simulator', devices: ['inverter_1', 'battery_1'], config: { pollIntervalMs: 600_000 } },
    { id: 'reader-local', plugin: 'site-reader', devices: ['reader_1'], isolation: 'process-local' },
    { id: 'reader-worker', plugin: 'site-reader', devices: ['reader_2'], isolation: 'worker' },
  ],
});
after(() => server.close());

/** Resolves once `topic` reads a value `accept` takes (at once if it already does). */
function valueWhen(s: TestServer, topic: string, accept: (value: MetricValue) => boolean): Promise<MetricValue> {
  const read = () => {
    const state = s.registry.get(topic);
    return state ? { value: s.registry.visibleValue(state) } : undefined;
  };
  return new Promise((resolve, reject) => {
    const check = () => {
      const now = read();
      if (!now || !accept(now.value)) return;
      finish();
      resolve(now.value);
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`${topic} did not reach the awaited value within ${WAIT_MS} ms; it reads ${read()?.value}`));
    }, WAIT_MS);
    const finish = () => {
      clearTimeout(timer);
      s.registry.off('tick', check);
    };
    s.registry.on('tick', check);
    check();
  });
}

async function act(device: string, action: string): Promise<void> {
  const res = await server.api('/api/v1/metrics', jsonBody({ topic: `${device}/action`, value: action }));
  assert.equal(res.status, 200, await res.clone().text());
}

const text = async (topic: string) => (await server.api(`/api/v1/metrics?topic=${topic}&value=1`)).text();

for (const [isolation, device, instance] of [
  ['in-process', 'reader_1', 'reader-local'],
  ['in a worker thread', 'reader_2', 'reader-worker'],
] as const) {
  describe(`ctx.site ${isolation}`, () => {
    test('reads topic values and definitions, the demo prices and the demo forecast', async () => {
      await valueWhen(server, `${device}/ticks`, (v) => typeof v === 'number' && v >= 1);
      await act(device, 'Read');
      const current = server.registry.get('inverter_1/max_charge_current')!;
      assert.equal(Number(await text(`${device}/target_value`)), current.value);
      assert.deepEqual(JSON.parse(await text(`${device}/target_writable`)), { min: 10, max: 120, step: 10 });
      assert.equal(await text(`${device}/prices_provider`), 'Simulator');
      const grid = (await (await server.api('/api/v1/grid')).json()) as {
        pricing: { slots: Array<{ price: number }> };
      };
      assert.equal(Number(await text(`${device}/price_slots`)), grid.pricing.slots.length);
      assert.ok(grid.pricing.slots.length > 0, 'the simulator published demo prices');
      assert.equal(Number(await text(`${device}/first_import_price`)), grid.pricing.slots[0]!.price);
      const forecast = (await (await server.api('/api/v1/forecast?topic=weather/pv_power_predicted')).json()) as {
        points: unknown[];
      };
      assert.equal(Number(await text(`${device}/forecast_points`)), forecast.points.length);
      assert.ok(forecast.points.length > 0);
      assert.equal(await text(`${device}/has_total_pv`), 'true');
    });

    test('subscribe hands on one call per tick, with all the values that tick changed', async () => {
      const before = await valueWhen(server, `${device}/ticks`, (v) => typeof v === 'number');
      let ticks = 0;
      const count = (tick: Tick) => {
        if (tick.changed.some((s) => s.meta.topic.startsWith('inverter_1/'))) ticks++;
      };
      server.registry.on('tick', count);
      const pv = server.registry.get('inverter_1/pv_power')!;
      const load = server.registry.get('inverter_1/load_power')!;
      // One synchronous run: one tick with both values.
      server.registry.publish(pv, Number(pv.value) + 1);
      server.registry.publish(load, Number(load.value) + 1);
      await valueWhen(server, `${device}/ticks`, (v) => v === Number(before) + 1);
      server.registry.off('tick', count);
      assert.equal(ticks, 1);
      assert.ok(Number(await text(`${device}/batch`)) >= 2, 'pv_power and load_power came in one call');
    });

    test("writes a setting through the write path, audited with the plugin's id as via", async () => {
      await act(device, 'Write ok');
      assert.equal(await text(`${device}/write_result`), 'ok');
      assert.equal(await text('inverter_1/max_charge_current'), '70');
      const seen = `inverter_1/max_charge_current=70 via site-reader by plugin:${instance}: ok`;
      await valueWhen(server, `${device}/last_write`, (v) => v === seen);

      await act(device, 'Write refused');
      assert.match(await text(`${device}/write_result`), /value "200" is not allowed/);
      const audit = (await (await server.api('/api/v1/audit?limit=20')).json()) as Array<Record<string, unknown>>;
      const mine = audit.filter((a) => a.who === `plugin:${instance}`);
      assert.deepEqual(
        mine.map((a) => [a.via, a.topic, a.new_value, a.result]),
        [
          ['site-reader', 'inverter_1/max_charge_current', '200', 'error'],
          ['site-reader', 'inverter_1/max_charge_current', '70', 'ok'],
        ],
      );
      assert.match(String(mine[0]!.message), /value "200" is not allowed/);
      // The action itself was a client's write to the plugin's own device.
      assert.ok(audit.some((a) => a.topic === `${device}/action` && a.via === 'rest' && a.who === 'admin'));
    });

    test('history reads what the API serves and refuses what it does not record with its message', async () => {
      await act(device, 'History');
      assert.match(await text(`${device}/history_result`), /battery_1\/state_of_charge is not recorded in history/);
      const day = 86_400_000;
      const from = new Date(Date.now() - 2 * day).toISOString();
      const to = new Date(Date.now() + day).toISOString();
      const answer = (await (
        await server.api(`/api/v1/history?topic=inverter_1/pv_power&group_by=1d&from=${from}&to=${to}`)
      ).json()) as { points: unknown[] };
      assert.ok(answer.points.length >= 1, "the simulator's first poll was recorded");
      assert.equal(await text(`${device}/history_points`), `${answer.points.length} points`);
    });
  });
}

test("a plugin's own device kind shows in the snapshot like a device, numbered within its kind", async () => {
  const rows = (await (await server.api('/api/v1/metrics?topic=reader_*/ticks&discovery')).json()) as Array<
    Record<string, unknown>
  >;
  assert.deepEqual(
    rows.map((r) => [r.topic, r.device, r.number, r.platform]),
    [
      ['reader_1/ticks', 'reader', 0, 'sensor'],
      ['reader_2/ticks', 'reader', 1, 'sensor'],
    ],
  );
  // Totals come from inverters and batteries only.
  const total = Number(await text('total/pv_power'));
  assert.equal(total, Number(await text('inverter_1/pv_power')));
});

test("the stream carries a plugin's own device: definitions with its device fields, then its values", async () => {
  const socket = connectPhoenix(server.url);
  after(() => socket.disconnect());
  const channel = socket.channel('metrics', { topics: [{ topic: 'reader_1/*' }] });
  const definition = nextEvent<{ definitions: Array<Record<string, unknown>> }>(channel, 'definition');
  const data = nextEvent<{ metrics: Array<{ topic: string; value: unknown }> }>(channel, 'data');
  channel.join();
  const ticks = (await definition).definitions.find((d) => d.topic === 'reader_1/ticks');
  assert.deepEqual([ticks?.device, ticks?.number], ['reader', 0]);
  assert.ok((await data).metrics.some((m) => m.topic === 'reader_1/ticks' && typeof m.value === 'number'));
  // A new value of the plugin's device reaches the stream like any device's.
  const pv = server.registry.get('inverter_1/pv_power')!;
  const update = nextEvent<{ metrics: Array<{ topic: string }> }>(channel, 'data');
  server.registry.publish(pv, Number(pv.value) + 2);
  assert.ok((await update).metrics.some((m) => m.topic === 'reader_1/ticks'));
});
