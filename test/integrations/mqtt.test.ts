import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { MOSQUITTO, Observer, startAedes, startMosquitto, type TestBroker } from '../helpers/mqtt-brokers.js';
import { requireProgram } from '../helpers/programs.js';
import { startTestServer, statusWhen } from '../helpers/server.js';

const mosquittoSkip = requireProgram({
  name: 'mosquitto',
  found: existsSync(MOSQUITTO),
  install: 'apt-get install mosquitto',
});

await bridgeSuite('aedes', startAedes);
if (mosquittoSkip) describe('MQTT bridge against mosquitto', { skip: mosquittoSkip }, () => {});
else await bridgeSuite('mosquitto', async () => (await startMosquitto())!);

type Json = Record<string, unknown>;

/** Servers start at the top level (as in the other API tests), each suite with a broker of its own. */
async function bridgeSuite(name: string, startBroker: () => Promise<TestBroker>): Promise<void> {
  const broker = await startBroker();
  let observer = await Observer.connect(broker.url, ['heliograph/#', 'homeassistant/#']);
  const server = await startTestServer({
    plugins: [
      { id: 'inv', plugin: 'bridged', devices: ['inverter_1'] },
      // Behind inverter_1 (a second unit on its bus): HA shows it "connected via" that one.
      { id: 'inv2', plugin: 'bridged', devices: ['inverter_2'], config: { parents: { inverter_2: 'inverter_1' } } },
      { id: 'mqtt', plugin: 'mqtt', config: { url: broker.url } },
    ],
    bundled: ['mqtt'],
    fixtures: ['bridged'],
  });
  after(async () => {
    await observer.close();
    await server.close();
    await broker.stop();
  });
  describe(`MQTT bridge against ${name}`, () => {
    const state = (topic: string) => `heliograph/${topic}/state`;
    const config = (platform: string, topic: string) =>
      `homeassistant/${platform}/${server.siteId}/${topic.replace('/', '_')}/config`;

    test('publishes every state retained, and says online', async () => {
      assert.equal(await observer.waitFor(state('inverter_1/pv_power')), '1000');
      assert.equal(await observer.waitFor(state('inverter_1/device_mode')), 'Solar');
      assert.equal(await observer.waitFor(state('inverter_1/max_charge_current')), '60');
      assert.equal(await observer.waitFor('heliograph/availability'), 'online');
      // A late subscriber gets the retained states.
      const late = await Observer.connect(broker.url, [state('inverter_1/pv_power')]);
      assert.deepEqual(
        await late.waitFor(state('inverter_1/pv_power')).then(() => late.last.get(state('inverter_1/pv_power'))),
        {
          payload: '1000',
          retain: true,
        },
      );
      await late.close();
    });

    test('publishes a changed value on change only', async () => {
      const pv = server.registry.get('inverter_1/pv_power')!;
      const before = observer.all.filter((m) => m.topic === state('inverter_1/pv_power')).length;
      server.registry.publish(pv, 1000); // unchanged: nothing goes out
      server.registry.publish(pv, 1234);
      assert.equal(await observer.waitFor(state('inverter_1/pv_power'), (p) => p === '1234'), '1234');
      const sent = observer.all.filter((m) => m.topic === state('inverter_1/pv_power')).slice(before);
      assert.deepEqual(
        sent.map((m) => m.payload),
        ['1234'],
      );
    });

    test('announces each topic to Home Assistant with the API discovery fields', async () => {
      const metrics = (await (await server.api('/api/v1/metrics?discovery')).json()) as Json[];
      const bridged = metrics.filter((m) => String(m.topic).startsWith('inverter_1/'));
      assert.ok(bridged.length >= 8);
      for (const metric of bridged) {
        const topic = String(metric.topic);
        const payload = JSON.parse(await observer.waitFor(config(String(metric.platform), topic))) as Json;
        assert.equal(payload.name, metric.name, topic);
        assert.equal(payload.unique_id, `heliograph_${server.siteId}_${topic.replace('/', '_')}`);
        assert.equal(payload.state_topic, state(topic));
        assert.equal(payload.availability_topic, 'heliograph/availability');
        for (const field of ['device_class', 'state_class', 'unit_of_measurement'] as const)
          assert.equal(payload[field], metric[field] ?? undefined, `${topic} ${field}`);
        if (metric.platform === 'number') {
          assert.deepEqual([payload.min, payload.max, payload.step], [metric.min, metric.max, metric.step]);
        }
        if (metric.platform === 'select') assert.deepEqual(payload.options, metric.options);
        if (metric.platform === 'switch') {
          assert.deepEqual([payload.payload_on, payload.payload_off], [metric.payload_on, metric.payload_off]);
          assert.deepEqual([payload.state_on, payload.state_off], [metric.payload_on, metric.payload_off]);
        }
        assert.equal(payload.command_topic, metric.writable ? `heliograph/${topic}/set` : undefined, topic);
        assert.deepEqual(payload.device, {
          identifiers: [`heliograph_${server.siteId}_inverter_1`],
          name: 'Inverter 1',
          manufacturer: 'Voltronic',
          model: 'Axpert MAX 8kW',
          sw_version: '1.2.3',
        });
      }
      const platforms = new Set(bridged.map((m) => m.platform));
      for (const p of ['sensor', 'number', 'select', 'switch']) assert.ok(platforms.has(p), p);
      const power = JSON.parse(observer.last.get(config('sensor', 'inverter_1/pv_power'))!.payload) as Json;
      assert.deepEqual(
        [power.device_class, power.state_class, power.unit_of_measurement],
        ['power', 'measurement', 'W'],
      );
    });

    test("a device's parent becomes its via_device, and shows in GET /api/v1/plugins", async () => {
      const payload = JSON.parse(await observer.waitFor(config('sensor', 'inverter_2/pv_power'))) as {
        device: Json;
      };
      assert.equal(payload.device.via_device, `heliograph_${server.siteId}_inverter_1`);
      assert.equal(payload.device.name, 'Inverter 2');
      const plugins = (await (await server.api('/api/v1/plugins')).json()) as Array<{
        id: string;
        device_status: Array<{ id: string; identity: Json }>;
      }>;
      const identity = plugins.find((p) => p.id === 'inv2')?.device_status[0]?.identity;
      assert.deepEqual(identity, { parent: 'inverter_1' });
      assert.equal(
        (await (await server.api('/api/v1/metrics?topic=inverter_2/parent_device&value=1')).text()).trim(),
        'inverter_1',
      );
    });

    test('takes writes on <topic>/set, answers on set_response, audits them via mqtt', async () => {
      const responses = () => observer.all.filter((m) => m.topic === 'heliograph/set_response').map((m) => m.payload);
      await observer.client.publishAsync('heliograph/inverter_1/max_charge_current/set', '80', { qos: 1 });
      assert.equal(await observer.waitFor(state('inverter_1/max_charge_current'), (p) => p === '80'), '80');
      await observer.waitFor('heliograph/set_response', () => responses().length >= 1);
      assert.deepEqual(JSON.parse(responses()[0]!), { topic: 'inverter_1/max_charge_current', value: '80', ok: true });

      await observer.client.publishAsync('heliograph/inverter_1/max_charge_current/set', '125', { qos: 1 });
      await observer.waitFor('heliograph/set_response', () => responses().length >= 2);
      const refused = JSON.parse(responses()[1]!) as Json;
      assert.equal(refused.ok, false);
      assert.match(String(refused.message), /not allowed; expected a number from 10 to 120 in steps of 10/);

      await observer.client.publishAsync('heliograph/inverter_1/grid_charging/set', 'Enabled', { qos: 1 });
      assert.equal(await observer.waitFor(state('inverter_1/grid_charging'), (p) => p === 'Enabled'), 'Enabled');

      const audit = (await (await server.api('/api/v1/audit')).json()) as Json[];
      const mqttWrites = audit.filter((a) => a.via === 'mqtt');
      assert.deepEqual(mqttWrites.map((a) => [a.who, a.topic, a.new_value, a.result]).reverse(), [
        ['plugin:mqtt', 'inverter_1/max_charge_current', '80', 'ok'],
        ['plugin:mqtt', 'inverter_1/max_charge_current', '125', 'error'],
        ['plugin:mqtt', 'inverter_1/grid_charging', 'Enabled', 'ok'],
      ]);
    });

    test('a 1 MiB value is refused with a short answer; a flood on one setting leaves the others their writes', async () => {
      const responses = () =>
        observer.all.filter((m) => m.topic === 'heliograph/set_response').map((m) => JSON.parse(m.payload) as Json);
      const before = responses().length;
      await observer.client.publishAsync(
        'heliograph/inverter_1/max_charge_current/set',
        Buffer.alloc(1024 * 1024, 'x'),
        { qos: 1 },
      );
      const isBig = (payload: string) => payload.includes('too large');
      await observer.waitFor('heliograph/set_response', () =>
        responses()
          .slice(before)
          .some((r) => isBig(String(r.message))),
      );
      const big = observer.all.filter((m) => m.topic === 'heliograph/set_response' && isBig(m.payload)).at(-1)!;
      assert.ok(big.payload.length < 300, `the answer is short (${big.payload.length} bytes)`);
      assert.deepEqual(JSON.parse(big.payload), {
        topic: 'inverter_1/max_charge_current',
        ok: false,
        message: 'value too large: 1048576 bytes, at most 1024',
      });
      // A flood on one setting: most of it is refused by that setting's budget...
      const flood = 300;
      const floodStart = responses().length;
      await Promise.all(
        Array.from({ length: flood }, () =>
          observer.client.publishAsync('heliograph/inverter_1/output_source_priority/set', 'Utility first', { qos: 1 }),
        ),
      );
      await observer.waitFor('heliograph/set_response', () => responses().length >= floodStart + flood);
      const floodAnswers = responses().slice(floodStart);
      assert.ok(
        floodAnswers.filter((r) => /too many writes to this topic/.test(String(r.message))).length > flood / 2,
        'the flood is held back by its topic bucket',
      );
      // ...and another setting still takes its write at once.
      await observer.client.publishAsync('heliograph/inverter_1/max_charge_current/set', '100', { qos: 1 });
      assert.equal(await observer.waitFor(state('inverter_1/max_charge_current'), (p) => p === '100'), '100');
      await observer.waitFor('heliograph/set_response', () =>
        responses().some((r) => r.topic === 'inverter_1/max_charge_current' && r.value === '100' && r.ok === true),
      );
      await observer.client.publishAsync('heliograph/inverter_1/max_charge_current/set', '80', { qos: 1 });
      assert.equal(await observer.waitFor(state('inverter_1/max_charge_current'), (p) => p === '80'), '80');
    });

    test('the last will says offline when the connection drops; the bridge comes back online', async () => {
      const seen = observer.all.length;
      broker.dropClient('heliograph_');
      await observer.waitFor('heliograph/availability', () =>
        observer.all.slice(seen).some((m) => m.topic === 'heliograph/availability' && m.payload === 'offline'),
      );
      assert.equal(await observer.waitFor('heliograph/availability', (p) => p === 'online'), 'online');
    });

    test('after a broker restart (retained messages lost) republishes states and discovery', async () => {
      await observer.close();
      await broker.stop();
      // The outage shows in the bridge's status, naming the broker, and clears on reconnect.
      const down = await statusWhen(server, 'mqtt', (s) => s.last_error !== null);
      assert.match(down.last_error!, new RegExp(`MQTT broker ${broker.url}`));
      await broker.start();
      await statusWhen(server, 'mqtt', (s) => s.last_error === null && s.state === 'running');
      observer = await Observer.connect(broker.url, ['heliograph/#', 'homeassistant/#']);
      assert.equal(await observer.waitFor(state('inverter_1/pv_power')), '1234');
      assert.equal(await observer.waitFor(state('inverter_1/max_charge_current')), '80');
      assert.equal(await observer.waitFor('heliograph/availability', (p) => p === 'online'), 'online');
      const power = JSON.parse(await observer.waitFor(config('sensor', 'inverter_1/pv_power'))) as Json;
      assert.equal(power.state_topic, state('inverter_1/pv_power'));
      // The broker holds retained copies again, for Home Assistant's next start.
      const late = await Observer.connect(broker.url, [state('inverter_1/pv_power')]);
      await late.waitFor(state('inverter_1/pv_power'));
      assert.deepEqual(late.last.get(state('inverter_1/pv_power')), { payload: '1234', retain: true });
      await late.close();
    });

    test('takes back the discovery config of topics that are gone', async () => {
      assert.ok(server.plugins.remove('inv'));
      assert.equal(await observer.waitFor(config('sensor', 'inverter_1/pv_power'), (p) => p === ''), '');
      assert.equal(await observer.waitFor(config('number', 'inverter_1/max_charge_current'), (p) => p === ''), '');
    });

    test('says offline when the service stops', async () => {
      await server.close();
      assert.equal(await observer.waitFor('heliograph/availability', (p) => p === 'offline'), 'offline');
    });
  });
}
