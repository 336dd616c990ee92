// GET and POST /api/v1/metrics over real HTTP against the whole service, every rule of the
// API contract (docs/api.md, "Metrics"), with the `echo` fixture inverters (fixed values) beside a
// simulated inverter and battery.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonBody, startTestServer, type TestServer } from '../helpers/server.js';

const server: TestServer = await startTestServer({
  bundled: ['simulator'],
  fixtures: ['echo'],
  plugins: [
    { id: 'inv', plugin: 'echo', devices: ['inverter_1', 'inverter_2'], config: { pv_power: 1000 } },
    {
      id: 'sim',
      plugin: 'simulator',
      devices: ['inverter_3', 'battery_1'],
      config: { demoForecast: false, demoPrices: false },
    },
  ],
});

async function metrics(query = ''): Promise<Array<Record<string, unknown>>> {
  const res = await server.api(`/api/v1/metrics${query}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^application\/json/);
  return (await res.json()) as Array<Record<string, unknown>>;
}

test('the snapshot lists every metric by topic, with the five fields and more', async () => {
  const all = await metrics();
  const topics = all.map((m) => m.topic as string);
  assert.deepEqual(topics, [...topics].sort(), 'ordered by topic');
  for (const t of [
    'total/pv_power',
    'total/pv_energy',
    'total/battery_state_of_charge',
    'inverter_1/pv_power',
    'inverter_2/device_mode',
    'battery_1/voltage',
  ]) {
    assert.ok(topics.includes(t), `${t} is listed`);
  }
  const pv = all.find((m) => m.topic === 'inverter_1/pv_power')!;
  assert.deepEqual(pv, {
    topic: 'inverter_1/pv_power',
    device: 'inverters',
    number: 0,
    group: 'Status',
    name: 'PV power',
    value: 1000,
    unit: 'W',
  });
  const inv2 = all.find((m) => m.topic === 'inverter_2/pv_power')!;
  assert.equal(inv2.number, 1);
  const pvSum = all
    .filter((m) => /^inverter_\d+\/pv_power$/.test(m.topic as string))
    .reduce((sum, m) => sum + (m.value as number), 0);
  assert.equal(
    all.find((m) => m.topic === 'total/pv_power')!.value,
    pvSum,
    'totals are derived from the inverters in the same tick',
  );
  const mode = all.find((m) => m.topic === 'inverter_1/output_source_priority')!;
  assert.equal(mode.group, 'Settings');
  assert.deepEqual(mode.writable, { options: ['Utility first', 'Solar first', 'SBU priority', 'Refuse me', 'Hang'] });
  const current = all.find((m) => m.topic === 'inverter_1/max_charge_current')!;
  assert.deepEqual(current.writable, { min: 10, max: 120, step: 10 });
});

test('a topic glob filters: prefix with *, ? for one character, * across slashes', async () => {
  const battery = await metrics('?topic=battery*');
  assert.ok(battery.length > 0);
  assert.ok(battery.every((m) => (m.topic as string).startsWith('battery_1/')));
  const totals = await metrics('?topic=total/*');
  assert.ok(totals.every((m) => (m.topic as string).startsWith('total/')));
  assert.ok(totals.some((m) => m.topic === 'total/pv_power'));
  const pv = await metrics('?topic=inverter_?/pv_power');
  assert.deepEqual(
    pv.map((m) => m.topic),
    ['inverter_1/pv_power', 'inverter_2/pv_power', 'inverter_3/pv_power'],
  );
  assert.deepEqual(await metrics('?topic=nothing/*'), []);
});

test('value=1 answers the bare value of exactly one metric as text/plain', async () => {
  let res = await server.api('/api/v1/metrics?topic=inverter_1/pv_power&value=1');
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(await res.text(), '1000');
  res = await server.api('/api/v1/metrics?topic=inverter_1/device_mode&value=1');
  assert.equal(await res.text(), 'Solar', 'strings unquoted');
  res = await server.api('/api/v1/metrics?topic=inverter_1/temperature&value=1');
  assert.equal(res.status, 200);
  assert.equal(await res.text(), '', 'a metric without a reading is an empty body');
});

test('value=1 with no match is 404, with several matches 400 naming the count', async () => {
  let res = await server.api('/api/v1/metrics?topic=inverter_9/pv_power&value=1');
  assert.equal(res.status, 404);
  assert.match(((await res.json()) as { error: string }).error, /no metric matches topic "inverter_9\/pv_power"/);
  res = await server.api('/api/v1/metrics?topic=inverter_*/pv_power&value=1');
  assert.equal(res.status, 400);
  assert.match(((await res.json()) as { error: string }).error, /selects 3/);
  res = await server.api('/api/v1/metrics?value=1');
  assert.equal(res.status, 400);
  assert.match(
    ((await res.json()) as { error: string }).error,
    /^value=1 needs a topic that selects one metric; without a topic all \d+ are selected$/,
  );
  res = await server.api('/api/v1/metrics?value=2');
  assert.equal(res.status, 400);
  assert.match(res.headers.get('content-type')!, /application\/json/);
  assert.match(((await res.json()) as { error: string }).error, /value/);
});

test('a write is validated, confirmed by the device, shown, and audited', async () => {
  let res = await server.api(
    '/api/v1/metrics',
    jsonBody({ topic: 'inverter_1/output_source_priority', value: 'SBU priority' }),
  );
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { topic: 'inverter_1/output_source_priority', result: 'ok' });
  res = await server.api('/api/v1/metrics?topic=inverter_1/output_source_priority&value=1');
  assert.equal(await res.text(), 'SBU priority');
  res = await server.api('/api/v1/metrics', jsonBody({ topic: 'inverter_1/max_charge_current', value: '80' }));
  assert.equal(res.status, 200);
  assert.equal((await metrics('?topic=inverter_1/max_charge_current'))[0]!.value, 80);

  const audit = (await (await server.api('/api/v1/audit?limit=2')).json()) as Array<Record<string, unknown>>;
  assert.equal(audit.length, 2);
  assert.deepEqual(
    { ...audit[0], time: undefined },
    {
      time: undefined,
      who: 'admin',
      via: 'rest',
      topic: 'inverter_1/max_charge_current',
      old_value: 60,
      new_value: '80',
      result: 'ok',
      message: null,
    },
  );
  assert.match(audit[0]!.time as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(audit[1]!.topic, 'inverter_1/output_source_priority');
  assert.equal(audit[1]!.old_value, 'Solar first');
});

test('bad write bodies are 400', async () => {
  const cases: Array<[string, RegExp]> = [
    ['{not json', /not valid JSON/],
    [JSON.stringify({ value: 'x' }), /topic is required/],
    [JSON.stringify({ topic: 'inverter_1/max_charge_current' }), /value is required/],
    [JSON.stringify({ topic: 'inverter_1/max_charge_current', value: 80 }), /value .*must be a string/],
    [JSON.stringify(['a']), /JSON object/],
  ];
  for (const [body, message] of cases) {
    const res = await server.api('/api/v1/metrics', jsonBody(body));
    assert.equal(res.status, 400, body);
    assert.match(((await res.json()) as { error: string }).error, message, body);
  }
});

test('refused writes are 422 with a message, and audited too', async () => {
  const cases: Array<[string, string, RegExp]> = [
    ['inverter_7/output_source_priority', 'Solar first', /unknown topic inverter_7\/output_source_priority/],
    ['inverter_1/pv_power', '5', /inverter_1\/pv_power is not writable/],
    [
      'inverter_1/output_source_priority',
      'Battery first',
      /not allowed; allowed values: "Utility first", "Solar first", "SBU priority"/,
    ],
    ['inverter_1/max_charge_current', '125', /expected a number from 10 to 120 in steps of 10/],
    ['inverter_1/max_charge_current', '5', /expected a number from 10 to 120 in steps of 10/],
    ['inverter_1/max_charge_current', 'abc', /not allowed/],
    ['inverter_1/output_source_priority', 'Refuse me', /the device refused: NAK/],
  ];
  for (const [topic, value, message] of cases) {
    const res = await server.api('/api/v1/metrics', jsonBody({ topic, value }));
    assert.equal(res.status, 422, `${topic}=${value}`);
    assert.match(((await res.json()) as { error: string }).error, message);
  }
  const audit = (await (await server.api('/api/v1/audit?limit=1')).json()) as Array<Record<string, unknown>>;
  assert.equal(audit[0]!.result, 'error');
  assert.equal(audit[0]!.message, 'the device refused: NAK');
  const bad = await server.api('/api/v1/audit?limit=0');
  assert.equal(bad.status, 400);
});

test('a number off the step grid is rounded to the nearest step, as docs/api.md says', async () => {
  for (const [sent, shown] of [
    ['84', 80],
    ['85', 90],
    ['117.4', 120],
    ['10.0001', 10],
  ] as const) {
    const res = await server.api('/api/v1/metrics', jsonBody({ topic: 'inverter_2/max_charge_current', value: sent }));
    assert.equal(res.status, 200, sent);
    assert.equal((await metrics('?topic=inverter_2/max_charge_current'))[0]!.value, shown, sent);
  }
  const audit = (await (await server.api('/api/v1/audit?limit=1')).json()) as Array<Record<string, unknown>>;
  assert.equal(audit[0]!.new_value, '10.0001', 'the audit keeps what was sent');
});

test('a write with a token is audited under the token name', async () => {
  const created = await server.api('/api/v1/tokens', jsonBody({ name: 'home-assistant' }));
  assert.equal(created.status, 201);
  const { token } = (await created.json()) as { token: string };
  const res = await server.api('/api/v1/metrics', {
    ...jsonBody({ topic: 'inverter_2/max_charge_current', value: '30' }),
    auth: `Bearer ${token}`,
  });
  assert.equal(res.status, 200);
  const audit = (await (await server.api('/api/v1/audit?limit=1')).json()) as Array<Record<string, unknown>>;
  assert.equal(audit[0]!.who, 'home-assistant');
});

test('unknown endpoints answer 404 with an error body', async () => {
  const res = await server.api('/api/v1/nothing');
  assert.equal(res.status, 404);
  assert.match(((await res.json()) as { error: string }).error, /no such endpoint/);
});

test('POST past the per-client write limit answers 429 with Retry-After, and the audit is not flooded', async () => {
  // A client of its own (a token), so the other tests' writes as admin do not count.
  const created = await server.api('/api/v1/tokens', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'flood' }),
  });
  assert.equal(created.status, 201, await created.clone().text());
  const { token } = (await created.json()) as { token: string };
  const post = () =>
    server.api('/api/v1/metrics', {
      method: 'POST',
      auth: `Bearer ${token}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'nope/unknown', value: '1' }),
    });
  const statuses: number[] = [];
  let limited: Response | undefined;
  for (let i = 0; i < 40 && !limited; i++) {
    const res = await post();
    statuses.push(res.status);
    if (res.status === 429) limited = res;
    else await res.body?.cancel();
  }
  assert.ok(limited, `a 429 within 40 writes (got ${statuses.join(',')})`);
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  assert.match(((await limited.json()) as { error: string }).error, /too many writes from flood/);
  const audit = (await (await server.api('/api/v1/audit?limit=100')).json()) as Array<{ who: string }>;
  assert.ok(
    audit.filter((r) => r.who === 'flood').length < statuses.length,
    'refusals by the limit are not audited one by one',
  );
});
