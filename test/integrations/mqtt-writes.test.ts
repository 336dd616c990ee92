// The MQTT bridge's write path against a real broker (aedes on loopback) and the real
// server: what each `<prefix>/<topic>/set` answers on `<prefix>/set_response`, field by
// field, for a write taken, one the service refuses (with a reason long enough to be cut),
// one too large to read and one on a topic that is no setting; the bridge's status while the
// broker is away; and its TLS files.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Observer, startAedes, type TestBroker } from '../helpers/mqtt-brokers.js';
import { within } from '../helpers/deadline.js';
import { startTestServer, statusWhen, type TestServer } from '../helpers/server.js';

// Started at the top level, as the other server tests are (the server's own cleanup belongs
// to the file, not to a hook).
const broker: TestBroker = await startAedes();
let observer = await Observer.connect(broker.url, ['hg/#']);
const server: TestServer = await startTestServer({
  plugins: [
    { id: 'inv', plugin: 'bridged', devices: ['inverter_1'] },
    { id: 'mqtt', plugin: 'mqtt', config: { url: broker.url, prefix: 'hg', discovery: false } },
    {
      id: 'mqtt-tls',
      plugin: 'mqtt',
      config: { url: 'mqtts://127.0.0.1:1', prefix: 'tls', tls: { ca: '/nonexistent/heliograph-ca.pem' } },
    },
  ],
  bundled: ['mqtt'],
  fixtures: ['bridged'],
});
await within(
  observer.waitFor('hg/availability', (p) => p === 'online'),
  'online on hg/availability',
);

after(async () => {
  await observer.close();
  await server.close();
  await broker.stop();
});

const value = async (topic: string): Promise<string> =>
  (await (await server.api(`/api/v1/metrics?topic=${topic}&value=1`)).text()).trim();

type Json = Record<string, unknown>;

/** Publishes a set and answers the next set_response. */
async function set(topic: string, payload: string | Buffer): Promise<Json> {
  const count = () => observer.all.filter((m) => m.topic === 'hg/set_response').length;
  const before = count();
  await observer.client.publishAsync(`hg/${topic}/set`, payload, { qos: 1 });
  await within(
    observer.waitFor('hg/set_response', () => count() > before),
    `an answer to ${topic}/set on hg/set_response`,
  );
  return JSON.parse(observer.all.filter((m) => m.topic === 'hg/set_response')[before]!.payload) as Json;
}

test('a write taken answers its topic, its value and ok, and the setting shows it', async () => {
  assert.deepEqual(await set('inverter_1/max_charge_current', '80'), {
    topic: 'inverter_1/max_charge_current',
    value: '80',
    ok: true,
  });
  assert.equal(await value('inverter_1/max_charge_current'), '80');
  assert.equal(
    await within(
      observer.waitFor('hg/inverter_1/max_charge_current/state', (p) => p === '80'),
      'the new state',
    ),
    '80',
  );
});

test("a write the service refuses answers the service's reason with the value", async () => {
  assert.deepEqual(await set('inverter_1/max_charge_current', '125'), {
    topic: 'inverter_1/max_charge_current',
    value: '125',
    ok: false,
    message: 'value "125" is not allowed; expected a number from 10 to 120 in steps of 10',
  });
  const notSetting = await set('inverter_1/pv_power', '5');
  assert.deepEqual(notSetting, {
    topic: 'inverter_1/pv_power',
    value: '5',
    ok: false,
    message: 'inverter_1/pv_power is not writable',
  });
});

test('a long refusal is cut in the answer, saying how much was cut', async () => {
  const raw = 'z'.repeat(500);
  const message = `value "${raw}" is not allowed; allowed values: "Utility first", "Solar first", "Refuse me"`;
  assert.deepEqual(await set('inverter_1/output_source_priority', raw), {
    topic: 'inverter_1/output_source_priority',
    value: raw,
    ok: false,
    message: `${message.slice(0, 200)}... (${message.length - 200} more characters)`,
  });
  assert.deepEqual(await set('inverter_1/output_source_priority', 'Refuse me'), {
    topic: 'inverter_1/output_source_priority',
    value: 'Refuse me',
    ok: false,
    message: 'write failed: NAK',
  });
});

test('a value too large is refused without being read or repeated', async () => {
  const answer = await set('inverter_1/max_charge_current', Buffer.alloc(1025, '9'));
  assert.deepEqual(answer, {
    topic: 'inverter_1/max_charge_current',
    ok: false,
    message: 'value too large: 1025 bytes, at most 1024',
  });
  assert.equal(await value('inverter_1/max_charge_current'), '80', 'unchanged');
  assert.deepEqual(await set('inverter_1/max_charge_current', Buffer.alloc(1024, ' ').fill('90', 0, 2)), {
    topic: 'inverter_1/max_charge_current',
    value: `90${' '.repeat(1022)}`,
    ok: true,
  });
});

test('a broker gone shows in the status, naming it, and its return clears it', async () => {
  await statusWhen(server, 'mqtt', (st) => st.last_error === null && st.state === 'running');
  // The observer goes first: it would otherwise keep reconnecting after the test.
  await observer.close();
  await broker.stop();
  const down = await statusWhen(server, 'mqtt', (st) => st.last_error !== null, { what: 'the outage in the status' });
  assert.match(down.last_error ?? '', new RegExp(`^MQTT broker ${broker.url}: `));
  await broker.start();
  await statusWhen(server, 'mqtt', (st) => st.last_error === null && st.state === 'running', {
    what: 'the status cleared on reconnect',
  });
  observer = await Observer.connect(broker.url, ['hg/#']);
  assert.equal(await within(observer.waitFor('hg/inverter_1/max_charge_current/state'), 'the state republished'), '90');
});

test('a TLS file that cannot be read fails the setup naming the field and the path', async () => {
  const failed = await statusWhen(server, 'mqtt-tls', (st) => st.last_error !== null, { what: 'the TLS failure' });
  assert.match(
    failed.last_error ?? '',
    /tls\.ca: cannot read \/nonexistent\/heliograph-ca\.pem: .*give the path of a PEM file/,
  );
});
