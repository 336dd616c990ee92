// What the official clients (Home Assistant, Homey, the Python and Go clients) read, over
// real HTTP and WebSocket against the whole service (the API contract's "What the official
// clients expect"; docs/api.md "Metric object", "Discovery fields"): device/number on every row, definition, history and forecast answer; the
// discovery fields; GET /api/v1/system and the WebSocket `system` event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'phoenix';
import type { ForecastResponse, HistoryResponse } from '@heliograph/core/api-types';
import { startTestServer } from '../helpers/server.js';
import { within } from '../helpers/deadline.js';
import { connectPhoenix, nextEvent } from '../helpers/phoenix.js';

const server = await startTestServer({
  bundled: ['simulator'],
  fixtures: ['echo', 'classes'],
  plugins: [
    { id: 'inv', plugin: 'echo', devices: ['inverter_1', 'inverter_2'] },
    { id: 'sim', plugin: 'simulator', devices: ['inverter_3', 'battery_1'], config: { demoPrices: false } },
    { id: 'classes', plugin: 'classes', devices: ['battery_2'] },
  ],
});

type Row = Record<string, unknown>;

async function getJson<T>(path: string): Promise<T> {
  const res = await server.api(path);
  assert.equal(res.status, 200, `${path}: ${res.status}`);
  return (await res.json()) as T;
}

/** What the API contract says `device` and `number` are for a topic (docs/api.md, "Metric object"). */
function expectedDevice(topic: string): [string, number | null] {
  const prefix = topic.split('/')[0]!;
  const numbered = /^(inverter|battery)_(\d+)$/.exec(prefix);
  if (numbered) return [numbered[1] === 'inverter' ? 'inverters' : 'batteries', Number(numbered[2]) - 1];
  return [{ total: 'totals', grid: 'grid', weather: 'weather', system: 'system' }[prefix]!, null];
}

const DISCOVERY_KEYS = [
  'platform',
  'device_class',
  'state_class',
  'unit_of_measurement',
  'min',
  'max',
  'step',
  'options',
  'payload_on',
  'payload_off',
];
const NOT_APPLICABLE = { min: null, max: null, step: null, options: null, payload_on: null, payload_off: null };

function discoveryOf(row: Row): Row {
  return Object.fromEntries(DISCOVERY_KEYS.map((k) => [k, row[k]]));
}

function byTopic(rows: Row[], topic: string): Row {
  const row = rows.find((r) => r.topic === topic);
  assert.ok(row, `${topic} is listed`);
  return row;
}

const connect = () => connectPhoenix(server.url);

/** Joins `metrics` with a filter and resolves with the definition and system pushes. */
async function join(topics: string[]): Promise<{ definitions: Row[]; system: Row[]; socket: Socket }> {
  const socket = connect();
  const channel = socket.channel('metrics', { topics: topics.map((topic) => ({ topic })) });
  const definition = nextEvent<{ definitions: Row[] }>(channel, 'definition');
  const system = nextEvent<{ metrics: Row[] }>(channel, 'system');
  await within(
    new Promise((resolve, reject) => channel.join().receive('ok', resolve).receive('error', reject)),
    'answer to the join of the metrics channel',
  );
  return { definitions: (await definition).definitions, system: (await system).metrics, socket };
}

test('every snapshot row carries device and number as the clients group by them', async () => {
  const rows: Row[] = await getJson<Row[]>('/api/v1/metrics');
  const prefixes = new Set(rows.map((r) => String(r.topic).split('/')[0]));
  for (const p of ['inverter_1', 'inverter_3', 'battery_1', 'battery_2', 'total', 'weather'])
    assert.ok(prefixes.has(p), `${p}/* is listed`);
  for (const row of rows) {
    const [device, number] = expectedDevice(String(row.topic));
    assert.equal(row.device, device, `${String(row.topic)} device`);
    assert.equal(row.number, number, `${String(row.topic)} number`);
  }
  assert.deepEqual(byTopic(rows, 'inverter_3/pv_power').number, 2, 'inverter_3 is the third inverter: number 2');
  assert.ok(!('platform' in rows[0]!), 'without ?discovery the rows stay as they were');
});

test('?discovery adds the fields for power, energy, state of charge, a range and options', async () => {
  const rows: Row[] = await getJson<Row[]>('/api/v1/metrics?discovery');
  for (const row of rows)
    assert.deepEqual(
      Object.keys(row).filter((k) => DISCOVERY_KEYS.includes(k)),
      DISCOVERY_KEYS,
      `${String(row.topic)} has every field`,
    );
  assert.deepEqual(discoveryOf(byTopic(rows, 'inverter_1/pv_power')), {
    platform: 'sensor',
    device_class: 'power',
    state_class: 'measurement',
    unit_of_measurement: 'W',
    ...NOT_APPLICABLE,
  });
  assert.deepEqual(discoveryOf(byTopic(rows, 'total/pv_energy')), {
    platform: 'sensor',
    device_class: 'energy',
    state_class: 'total_increasing',
    unit_of_measurement: 'kWh',
    ...NOT_APPLICABLE,
  });
  for (const soc of ['battery_1/state_of_charge', 'total/battery_state_of_charge']) {
    assert.deepEqual(
      discoveryOf(byTopic(rows, soc)),
      {
        platform: 'sensor',
        device_class: 'battery',
        state_class: 'measurement',
        unit_of_measurement: '%',
        ...NOT_APPLICABLE,
      },
      soc,
    );
  }
  assert.deepEqual(discoveryOf(byTopic(rows, 'inverter_1/max_charge_current')), {
    ...NOT_APPLICABLE,
    platform: 'number',
    device_class: 'current',
    state_class: null,
    unit_of_measurement: 'A',
    min: 10,
    max: 120,
    step: 10,
  });
  assert.deepEqual(discoveryOf(byTopic(rows, 'inverter_1/output_source_priority')), {
    ...NOT_APPLICABLE,
    platform: 'select',
    device_class: null,
    state_class: null,
    unit_of_measurement: null,
    options: ['Utility first', 'Solar first', 'SBU priority', 'Refuse me', 'Hang'],
  });
  // Strings get neither class; numbers without a class are measurements.
  assert.deepEqual(discoveryOf(byTopic(rows, 'inverter_1/device_mode')), {
    platform: 'sensor',
    device_class: null,
    state_class: null,
    unit_of_measurement: null,
    ...NOT_APPLICABLE,
  });
  assert.deepEqual(discoveryOf(byTopic(rows, 'weather/cloud_cover')), {
    platform: 'sensor',
    device_class: null,
    state_class: 'measurement',
    unit_of_measurement: '%',
    ...NOT_APPLICABLE,
  });
  assert.equal(byTopic(rows, 'inverter_1/temperature').device_class, 'temperature');
  assert.equal(byTopic(rows, 'battery_1/voltage').device_class, 'voltage');
});

test('a two-state setting is a switch, an on/off reading a sensor the integration builds, and declared classes win', async () => {
  const rows: Row[] = await getJson<Row[]>('/api/v1/metrics?topic=battery_2/*&discovery=1');
  assert.deepEqual(discoveryOf(byTopic(rows, 'battery_2/eco_mode')), {
    ...NOT_APPLICABLE,
    platform: 'switch',
    device_class: null,
    state_class: null,
    unit_of_measurement: null,
    payload_on: 'Enabled',
    payload_off: 'Disabled',
  });
  // The official integration builds no entity from `binary_sensor` (its platform of that
  // name is its connection entity): a read-only true/false reading is a sensor.
  assert.deepEqual(discoveryOf(byTopic(rows, 'battery_2/heater_on')), {
    platform: 'sensor',
    device_class: null,
    state_class: null,
    unit_of_measurement: null,
    ...NOT_APPLICABLE,
  });
  assert.equal(byTopic(rows, 'battery_2/heater_on').value, false);
  const lifetime = byTopic(rows, 'battery_2/lifetime_energy_in');
  assert.deepEqual(
    [lifetime.device_class, lifetime.state_class],
    ['energy', 'total'],
    'stateClass replaced, deviceClass derived',
  );
  const delta = byTopic(rows, 'battery_2/cell_voltage_delta');
  assert.deepEqual(
    [delta.device_class, delta.state_class, delta.unit_of_measurement],
    [null, null, 'V'],
    'both classes declared away',
  );
  const off: Row[] = await getJson<Row[]>('/api/v1/metrics?topic=battery_2/*&discovery=0');
  assert.ok(off.every((r) => !('platform' in r)));
  const bad = await server.api('/api/v1/metrics?discovery=maybe');
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: string }).error, /discovery/);
});

test('the WebSocket definition event always carries device, number and the discovery fields', async () => {
  const { definitions, socket } = await join(['inverter_3/*', 'total/pv_energy', 'battery_2/eco_mode', 'weather/*']);
  try {
    const snapshot: Row[] = await getJson<Row[]>('/api/v1/metrics?discovery');
    assert.ok(definitions.length > 5);
    for (const definition of definitions) {
      const row = byTopic(snapshot, String(definition.topic));
      const { value: _value, ...expected } = row;
      assert.deepEqual(
        definition,
        expected,
        `${String(definition.topic)}: the definition is the discovery row without its value`,
      );
    }
    assert.deepEqual(
      [byTopic(definitions, 'inverter_3/pv_power').device, byTopic(definitions, 'inverter_3/pv_power').number],
      ['inverters', 2],
    );
    assert.equal(byTopic(definitions, 'battery_2/eco_mode').platform, 'switch');
  } finally {
    socket.disconnect();
  }
});

test('history and forecast answers carry device and number', async () => {
  const history = await getJson<HistoryResponse>('/api/v1/history?topic=inverter_3/pv_power&group_by=1h');
  assert.deepEqual([history.device, history.number], ['inverters', 2]);
  const totals = await getJson<HistoryResponse>('/api/v1/history?topic=total/pv_power&group_by=1h');
  assert.deepEqual([totals.device, totals.number], ['totals', null]);
  const forecast = await getJson<ForecastResponse>('/api/v1/forecast?topic=weather/pv_power_predicted');
  assert.deepEqual([forecast.device, forecast.number], ['weather', null]);
});

const SYSTEM_TOPICS = [
  'system/site_id',
  'system/software_version',
  'system/cpu_temperature',
  'system/free_storage',
  'system/uptime',
];

test('GET /api/v1/system answers the unit rows, site_id first; the WebSocket system event carries the same', async () => {
  const rows: Row[] = await getJson<Row[]>('/api/v1/system');
  assert.deepEqual(
    rows.map((r) => r.topic),
    SYSTEM_TOPICS,
  );
  for (const row of rows) {
    assert.deepEqual(
      Object.keys(row),
      ['topic', 'device', 'number', 'group', 'name', 'value', 'unit'],
      `${String(row.topic)} is shaped like a metric row`,
    );
    assert.equal(row.device, 'system');
    assert.equal(row.number, null);
  }
  const value = (topic: string) => byTopic(rows, topic).value;
  assert.equal(value('system/site_id'), server.siteId);
  assert.ok(
    Number.isInteger(value('system/site_id')) && (value('system/site_id') as number) > 0,
    'site_id is a positive integer',
  );
  assert.match(String(value('system/software_version')), /^\d+\.\d+\.\d+/);
  const cpu = value('system/cpu_temperature');
  assert.ok(cpu === null || Number.isInteger(cpu), 'cpu_temperature is whole °C, or null without a sensor');
  assert.ok(
    Number.isInteger(value('system/free_storage')) && (value('system/free_storage') as number) > 0,
    'free_storage is whole MB',
  );
  assert.ok(Number.isInteger(value('system/uptime')) && (value('system/uptime') as number) >= 0);
  assert.deepEqual(
    rows.map((r) => r.unit),
    ['', '', '°C', 'MB', 's'],
  );

  const withDiscovery: Row[] = await getJson<Row[]>('/api/v1/system?discovery');
  assert.deepEqual(
    withDiscovery.map((r) => [r.topic, r.platform, r.device_class]),
    [
      ['system/site_id', 'sensor', null],
      ['system/software_version', 'sensor', null],
      ['system/cpu_temperature', 'sensor', 'temperature'],
      ['system/free_storage', 'sensor', 'data_size'],
      ['system/uptime', 'sensor', 'duration'],
    ],
  );

  const { system, socket } = await join(['total/pv_power']);
  try {
    assert.deepEqual(
      system.map((r) => r.topic),
      SYSTEM_TOPICS,
    );
    for (const row of system) {
      const rest = byTopic(withDiscovery, String(row.topic));
      const { value: _a, ...shape } = row;
      const { value: _b, ...restShape } = rest;
      assert.deepEqual(shape, restShape, `${String(row.topic)}: the same row as GET /api/v1/system?discovery`);
    }
    assert.equal(byTopic(system, 'system/site_id').value, server.siteId);
    assert.equal(byTopic(system, 'system/software_version').value, value('system/software_version'));
  } finally {
    socket.disconnect();
  }
});

test('GET /api/v1/system needs credentials like every endpoint', async () => {
  const res = await server.api('/api/v1/system', { auth: null });
  assert.equal(res.status, 401);
});
