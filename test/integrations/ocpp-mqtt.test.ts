// An EV charger in Home Assistant through the MQTT bridge, against an in-process broker
// (aedes; the bridge against mosquitto is test/integrations/mqtt.test.ts): its entities
// announced by discovery (the mode a select with the five modes, the current limits numbers,
// the power a sensor) and its mode set from Home Assistant's command topic, audited via mqtt
// and in force on the charger.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Observer, startAedes } from '../helpers/mqtt-brokers.js';
import { startTestServer } from '../helpers/server.js';
import { chargePoint, ocppEntry, PASSWORD_1, pointWhen, valueWhen } from './ocpp-helpers.js';

const broker = await startAedes();
const observer = await Observer.connect(broker.url, ['heliograph/#', 'homeassistant/#']);
const server = await startTestServer({
  plugins: [ocppEntry({}, ['charger_1']), { id: 'mqtt', plugin: 'mqtt', config: { url: broker.url } }],
  bundled: ['ocpp', 'mqtt'],
});
after(async () => {
  await observer.close();
  await server.close();
  await broker.stop();
});
const config = (platform: string, topic: string) =>
  `homeassistant/${platform}/${server.siteId}/${topic.replace('/', '_')}/config`;

test('the charger is announced to Home Assistant: mode a select of the five modes, limits numbers, power a sensor', async () => {
  const mode = JSON.parse(await observer.waitFor(config('select', 'charger_1/mode'))) as Record<string, unknown>;
  assert.deepEqual(mode.options, ['off', 'now', 'min+pv', 'pv', 'planned']);
  assert.equal(mode.command_topic, 'heliograph/charger_1/mode/set');
  const max = JSON.parse(await observer.waitFor(config('number', 'charger_1/max_current'))) as Record<string, unknown>;
  assert.equal(max.unit_of_measurement, 'A');
  const power = JSON.parse(await observer.waitFor(config('sensor', 'charger_1/power'))) as Record<string, unknown>;
  assert.equal(power.device_class, 'power');
});

test('Home Assistant sets the mode: audited via mqtt, and the charger gets the limit of the new mode', async () => {
  const url = `${server.url.replace(/^http/, 'ws')}/ocpp/CP1`;
  const point = await chargePoint({ url, password: PASSWORD_1 });
  await pointWhen(point, (p) => p.bootStatus === 'Accepted', 'boot accepted');
  await point.plugIn();
  await observer.client.publishAsync('heliograph/charger_1/mode/set', 'now', { qos: 1 });
  await valueWhen(server, 'charger_1/mode', (v) => v === 'now', 'mode now');
  await pointWhen(point, (p) => p.offered().currentA === 16, 'the charger offering its maximum, 16 A');
  const audit = (await (await server.api('/api/v1/audit?limit=100')).json()) as Array<Record<string, unknown>>;
  const set = audit.find((a) => a.via === 'mqtt' && a.topic === 'charger_1/mode');
  assert.equal(set?.new_value, 'now');
  assert.equal(set?.result, 'ok');
});
