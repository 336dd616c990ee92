// SDK 1.1 over the real server: per-device config, identity rows, availability in the
// snapshot and GET /api/v1/plugins, ctx.status, and the three kinds of setting through
// REST writes (validated, converted, failures told apart, ranges updated at runtime).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonBody, startTestServer } from '../helpers/server.js';

const server = await startTestServer({
  fixtures: ['sdk11'],
  plugins: [
    {
      id: 'acme',
      plugin: 'sdk11',
      devices: ['inverter_1', { id: 'inverter_2', config: { unitId: 2, offline: true } }],
      config: { statusError: 'socket closed by the gateway' },
    },
  ],
});
after(() => server.close());

type Row = Record<string, unknown> & { topic: string; value: unknown };
async function rows(glob: string, discovery = false): Promise<Row[]> {
  const res = await server.api(`/api/v1/metrics?topic=${encodeURIComponent(glob)}${discovery ? '&discovery' : ''}`);
  assert.equal(res.status, 200);
  return (await res.json()) as Row[];
}
async function value(topic: string): Promise<unknown> {
  return (await rows(topic))[0]?.value;
}
async function write(topic: string, value: string): Promise<{ status: number; error?: string }> {
  const res = await server.api('/api/v1/metrics', jsonBody({ topic, value }));
  const body = (await res.json()) as { error?: string };
  return { status: res.status, error: body.error };
}

test('identity shows as Info rows and per device in GET /api/v1/plugins; an unavailable device reads null at once', async () => {
  assert.equal(await value('inverter_1/pv_power'), 1000);
  assert.equal(await value('inverter_2/pv_power'), null, 'marked unavailable: null at once');
  const info = await rows('inverter_2/*');
  const byTopic = new Map(info.map((r) => [r.topic, r]));
  assert.equal(byTopic.get('inverter_2/manufacturer')?.value, 'Acme', 'identity is never nulled');
  assert.equal(byTopic.get('inverter_2/model')?.value, 'Unit 2', 'per-device config reached the plugin');
  assert.equal(byTopic.get('inverter_2/serial_number')?.value, 'SN2', 'identify merges into the declared identity');
  assert.equal(byTopic.get('inverter_2/serial_number')?.group, 'Info');

  const list = (await (await server.api('/api/v1/plugins')).json()) as Array<Record<string, unknown>>;
  const acme = list.find((p) => p.id === 'acme')!;
  assert.deepEqual(acme.devices, ['inverter_1', 'inverter_2']);
  assert.deepEqual(acme.device_status, [
    {
      id: 'inverter_1',
      available: true,
      reason: null,
      identity: { manufacturer: 'Acme', model: 'Unit 1', serial: 'SN1' },
    },
    {
      id: 'inverter_2',
      available: false,
      reason: 'no answer within 1500 ms',
      identity: { manufacturer: 'Acme', model: 'Unit 2', serial: 'SN2' },
    },
  ]);
  assert.equal(acme.state, 'failed', 'ctx.status.error shows like a failing job');
  assert.equal(acme.last_error, 'socket closed by the gateway');
});

test('options with values: clients write the label, the handler gets the value; failures say why', async () => {
  assert.deepEqual(await write('inverter_1/work_mode', 'zero export'), { status: 200, error: undefined });
  assert.equal(await value('inverter_1/work_mode'), 'Zero export');
  assert.equal(await value('inverter_1/last_write'), 'work_mode=1 (Zero export)');
  assert.deepEqual(await write('inverter_1/work_mode', 'Refuse'), {
    status: 422,
    error: 'the device refused: exception 2 (illegal data address)',
  });
  assert.deepEqual(await write('inverter_1/work_mode', 'Silent'), {
    status: 422,
    error: 'the device did not answer: no reply within 1500 ms',
  });
  const refused = await write('inverter_1/work_mode', 'Sell everything');
  assert.equal(refused.status, 422);
  assert.match(refused.error!, /allowed values: "Selling first", "Zero export", "Refuse", "Silent"/);
  const audit = (await (await server.api('/api/v1/audit?limit=1')).json()) as Array<Record<string, unknown>>;
  assert.equal(
    audit[0]!.message,
    'value "Sell everything" is not allowed; allowed values: "Selling first", "Zero export", "Refuse", "Silent"',
  );
});

test('a switch: discovery shows its payloads, writes take a payload or true/false, the handler a boolean', async () => {
  const [row] = await rows('inverter_1/grid_charge', true);
  assert.equal(row!.platform, 'switch');
  assert.equal(row!.payload_on, 'Enabled');
  assert.equal(row!.payload_off, 'Disabled');
  assert.deepEqual(row!.writable, { options: ['Enabled', 'Disabled'] });
  assert.equal((await write('inverter_1/grid_charge', 'true')).status, 200);
  assert.equal(await value('inverter_1/last_write'), 'grid_charge=true');
  assert.equal(await value('inverter_1/grid_charge'), 'Enabled');
  assert.equal((await write('inverter_1/grid_charge', 'disabled')).status, 200);
  assert.equal(await value('inverter_1/last_write'), 'grid_charge=false');
  assert.equal(await value('inverter_1/grid_charge'), 'Disabled');
  // The fixture's read-back publishes `false`: the value keeps its one type, the payload.
  assert.equal(await value('inverter_1/grid_charge'), 'Disabled', 'a boolean read back reads as the payload');
  const bad = await write('inverter_1/grid_charge', 'maybe');
  assert.equal(bad.status, 422);
  assert.match(bad.error!, /allowed values: "Enabled", "Disabled"/);
});

test('a range updated at runtime: clients see the new max and writes are checked against it', async () => {
  assert.equal((await write('inverter_1/charge_limit', '80')).status, 200);
  assert.equal(await value('inverter_1/last_write'), 'charge_limit=80');
  const [row] = await rows('inverter_1/charge_limit', true);
  assert.equal(row!.max, 50);
  assert.deepEqual(row!.writable, { min: 0, max: 50, step: 10 });
  const over = await write('inverter_1/charge_limit', '60');
  assert.equal(over.status, 422);
  assert.match(over.error!, /expected a number from 0 to 50 in steps of 10/);
});
