import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SELECTED, meta, publish, SITE_ID, useStream } from './harness.js';
import { RawClient, topicsOf, valuesOf } from './raw-client.js';

describe('WebSocket stream: join, definitions, data, system', { timeout: 10_000 }, () => {
  const server = useStream({ each: true });

  it('answers a join with ok, then definitions, current values and system rows for the default filter', async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v1' });
    const reply = await client.join();
    assert.deepEqual(reply.raw, {
      topic: 'metrics',
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
      ref: '1',
    });

    const definition = await client.take();
    assert.equal(definition.event, 'definition');
    assert.deepEqual(topicsOf(definition, 'definitions'), DEFAULT_SELECTED);
    assert.deepEqual(definition.payload.definitions[1], {
      topic: 'battery_1/voltage',
      device: 'batteries',
      number: 0,
      group: 'Status',
      name: 'voltage',
      unit: 'V',
      platform: 'sensor',
      device_class: 'voltage',
      state_class: 'measurement',
      unit_of_measurement: 'V',
      min: null,
      max: null,
      step: null,
      options: null,
      payload_on: null,
      payload_off: null,
    });

    const data = await client.take();
    assert.equal(data.event, 'data');
    assert.deepEqual(data.raw, {
      topic: 'metrics',
      event: 'data',
      ref: null,
      payload: {
        metrics: [
          { topic: 'battery_1/state_of_charge', value: 64 },
          { topic: 'battery_1/voltage', value: 52.1 },
          { topic: 'inverter_1/device_mode', value: 'Solar first' },
          { topic: 'inverter_1/pv_power', value: 3200 },
          { topic: 'total/grid_power', value: -2300 },
          { topic: 'total/load_power', value: 900 },
          { topic: 'total/pv_power', value: 3200 },
        ],
      },
    });

    const system = await client.take();
    assert.equal(system.event, 'system');
    const rows = system.payload.metrics as Array<Record<string, unknown>>;
    assert.deepEqual(
      rows.map((r) => [r.topic, r.device, r.number, r.unit, r.platform, r.device_class]),
      [
        ['system/site_id', 'system', null, '', 'sensor', null],
        ['system/software_version', 'system', null, '', 'sensor', null],
        ['system/cpu_temperature', 'system', null, '°C', 'sensor', 'temperature'],
        ['system/free_storage', 'system', null, 'MB', 'sensor', 'data_size'],
        ['system/uptime', 'system', null, 's', 'sensor', 'duration'],
      ],
    );
    assert.equal(rows[0]!.value, SITE_ID);
    assert.equal(rows[1]!.value, '0.1.0-test');
    assert.equal(rows[2]!.value, 41);
    assert.ok(
      Number.isInteger(rows[3]!.value) && (rows[3]!.value as number) > 0,
      'free storage of the temp data dir, whole MB',
    );
    assert.equal(rows[4]!.value, 0);
    client.close();
  });

  it('delivers the changes of one tick as one data message, and nothing for unchanged values', async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v2' });
    await client.joinAndSync({ topics: [{ topic: 'total/*' }, { topic: 'battery_1/voltage' }] });
    await publish(server().registry, {
      'total/pv_power': 3300,
      'total/load_power': 950,
      'battery_1/voltage': 52.3,
      'weather/cloud_cover': 80,
    });
    await publish(server().registry, { 'total/pv_power': 3300, 'total/grid_power': -2300 }); // no change
    await client.barrier();
    const data = client.pending('data');
    assert.equal(data.length, 1);
    assert.deepEqual(data[0]!.raw, [
      null,
      null,
      'metrics',
      'data',
      {
        metrics: [
          { topic: 'total/pv_power', value: 3300 },
          { topic: 'total/load_power', value: 950 },
          { topic: 'battery_1/voltage', value: 52.3 },
        ],
      },
    ]);
    client.close();
  });

  it('sends a value published twice in one tick once, with its last value', async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v2' });
    await client.joinAndSync({ topics: [{ topic: 'total/pv_power' }] });
    const state = server().registry.get('total/pv_power')!;
    server().registry.publish(state, 1);
    server().registry.publish(state, 2);
    server().registry.flush();
    assert.deepEqual((await client.next('data')).payload, { metrics: [{ topic: 'total/pv_power', value: 2 }] });
    client.close();
  });

  it('shows a stale device as null and its return as the value', async () => {
    const untrack = server().registry.trackDevice('battery_1', 30_000);
    const client = await RawClient.connect(server().wsUrl, { form: 'v1' });
    await client.joinAndSync({ topics: [{ topic: 'battery_1/*' }] });
    server().clock.advance(31_000);
    server().registry.checkStale();
    server().registry.flush();
    assert.deepEqual(valuesOf(await client.next('data')), {
      'battery_1/voltage': null,
      'battery_1/state_of_charge': null,
      'battery_1/cell_temperature_max': null,
    });
    // The device answers again: all its topics read their values again, the new one included.
    await publish(server().registry, { 'battery_1/voltage': 51.9 });
    assert.deepEqual(valuesOf(await client.next('data')), {
      'battery_1/voltage': 51.9,
      'battery_1/state_of_charge': 64,
      'battery_1/cell_temperature_max': 24.5,
    });
    untrack();
    client.close();
  });

  it('gives a later join the current values, also of changes made while no socket was joined', async () => {
    const first = await RawClient.connect(server().wsUrl, { form: 'v2' });
    await first.joinAndSync({ topics: [{ topic: 'total/pv_power' }] });
    assert.equal((await first.request('metrics', 'phx_leave', {}, 'j1')).payload.status, 'ok');
    await publish(server().registry, { 'total/pv_power': 4100 });
    const second = await RawClient.connect(server().wsUrl, { form: 'v2' });
    assert.deepEqual(valuesOf(await second.joinAndSync({ topics: [{ topic: 'total/pv_power' }] })), {
      'total/pv_power': 4100,
    });
    first.close();
    second.close();
  });

  it('replaces the filter on "topics": definitions and values of newly selected topics only', async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v2' });
    await client.joinAndSync({ topics: [{ topic: 'total/pv_power' }, { topic: 'battery_1/voltage' }] });
    const reply = await client.request(
      'metrics',
      'topics',
      { topics: [{ topic: 'battery_1/*' }, { topic: 'weather/cloud_cover' }] },
      'j1',
    );
    assert.deepEqual(reply.raw, ['j1', '2', 'metrics', 'phx_reply', { status: 'ok', response: {} }]);
    const definition = await client.next('definition');
    assert.deepEqual(topicsOf(definition, 'definitions'), [
      'battery_1/cell_temperature_max',
      'battery_1/state_of_charge',
      'weather/cloud_cover',
    ]);
    assert.deepEqual(valuesOf(await client.next('data')), {
      'battery_1/cell_temperature_max': 24.5,
      'battery_1/state_of_charge': 64,
      'weather/cloud_cover': 40,
    });

    await publish(server().registry, { 'total/pv_power': 10, 'battery_1/voltage': 50, 'weather/cloud_cover': 41 });
    assert.deepEqual(valuesOf(await client.next('data')), { 'battery_1/voltage': 50, 'weather/cloud_cover': 41 });

    for (const payload of [{ topics: [] }, {}, { topics: [{ name: 'x' }] }]) {
      const refused = await client.request('metrics', 'topics', payload, 'j1');
      assert.equal(refused.payload.status, 'error', JSON.stringify(payload));
      assert.match(refused.payload.response.reason, /topic/);
    }
    await publish(server().registry, { 'weather/cloud_cover': 42 });
    assert.deepEqual(
      valuesOf(await client.next('data')),
      { 'weather/cloud_cover': 42 },
      'a refused change keeps the filter',
    );
    client.close();
  });

  it('sends definitions, then values, for topics that appear later and match the filter', async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v1' });
    await client.joinAndSync();
    server().registry.define(meta('battery_2/voltage', { unit: 'V' }), 51.2);
    server().registry.define(meta('battery_2/power'));
    server().registry.define(meta('battery_2/cycle_count', { unit: '' }), 12);
    const definition = await client.next('definition');
    assert.deepEqual(topicsOf(definition, 'definitions'), ['battery_2/voltage', 'battery_2/power']);
    assert.deepEqual(valuesOf(await client.next('data')), { 'battery_2/voltage': 51.2, 'battery_2/power': null });
    await publish(server().registry, { 'battery_2/power': -800, 'battery_2/cycle_count': 13 });
    assert.deepEqual(valuesOf(await client.next('data')), { 'battery_2/power': -800 });
    client.close();
  });

  it('serves v1 and v2 clients of the same filter the same data, each in its own form', async () => {
    const v1 = await RawClient.connect(server().wsUrl, { form: 'v1' });
    const v2 = await RawClient.connect(server().wsUrl, { form: 'v2' });
    await v1.joinAndSync({ topics: [{ topic: 'total/*' }] });
    await v2.joinAndSync({ topics: [{ topic: 'total/*' }] });
    await publish(server().registry, { 'total/grid_power': 150 });
    const [a, b] = await Promise.all([v1.next('data'), v2.next('data')]);
    assert.deepEqual(a.raw, {
      topic: 'metrics',
      event: 'data',
      payload: { metrics: [{ topic: 'total/grid_power', value: 150 }] },
      ref: null,
    });
    assert.deepEqual(b.raw, [null, null, 'metrics', 'data', { metrics: [{ topic: 'total/grid_power', value: 150 }] }]);
    v1.close();
    v2.close();
  });

  it('pushes system rows once a minute with the uptime, and stops pushing after a leave', async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v2' });
    await client.joinAndSync({ topics: [{ topic: 'total/pv_power' }] });
    await client.next('system');
    server().timers.advance(30_000);
    await client.barrier(); // heartbeats keep the socket from being closed as idle
    server().timers.advance(30_000);
    const system = await client.next('system');
    assert.equal(system.payload.metrics[4]!.topic, 'system/uptime');
    assert.equal(system.payload.metrics[4]!.value, 60);
    const left = await client.request('metrics', 'phx_leave', {}, 'j1');
    assert.equal(left.payload.status, 'ok');
    await publish(server().registry, { 'total/pv_power': 1 });
    server().timers.advance(30_000);
    await client.barrier();
    server().timers.advance(30_000);
    await client.barrier();
    assert.deepEqual(client.pending(), []);
    client.close();
  });
});
