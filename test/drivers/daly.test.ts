// The daly driver in the real server against its emulator over a TCP serial bridge and a
// serial port. Checked against python-daly-bms: its example request for command 95 from a
// UART host is a58095080000000000000000c2; replies decode as it decodes them (90: total
// voltage 0.1 V, current (raw − 30000) / 10 A with charging negative, SOC 0.1 %; 91: max and
// min cell mV; 92: temperatures + 40; 93: remaining mAh; 94: cycles). Firmware that sends the
// current inverted (charging positive on the wire, the BMS's own app showing it inverted too) is
// the case Louisvdw/dbus-serialbattery issue #65 reports for a Daly Smart BMS 150 A 16S and its
// etc/dbus-serialbattery/bms/daly.py `read_soc_data` corrects with INVERT_CURRENT_MEASUREMENT = -1:
// `currentSign: "inverted"` does the same here.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { connectRaw } from '@heliograph/plugins-sdk/emulator';
import { startEmulator } from '@heliograph/plugin-daly/emulator';
import { DalyCommand, dalyFrame, dalyFrameLength, parseDalyFrame } from '@heliograph/plugin-daly/protocol';
import { startTestServer } from '../helpers/server.js';
import { SOCAT_SKIP } from '../helpers/pty-bridge.js';
import { connectionTo, instanceWhen, serveDriver, valuesWhen } from './driver-api.js';

const noon = () => new Date(2026, 5, 21, 12, 0);

test("requests are python-daly-bms's bytes; replies decode as it decodes them", async () => {
  assert.equal(dalyFrame(0x80, 0x95).toString('hex'), 'a58095080000000000000000c2');
  const emulator = await startEmulator({ now: noon });
  after(() => emulator.close());
  const client = await connectRaw({ port: emulator.port });
  after(() => client.close());
  client.send(Buffer.from('a54090080000000000000000' + '7d', 'hex'));
  const reply = await client.read(dalyFrameLength);
  assert.equal(reply.length, 13);
  assert.deepEqual([...reply.subarray(0, 4)], [0xa5, 0x01, 0x90, 0x08]);
  const current = (reply.readInt16BE(8) - 30000) / 10;
  assert.ok(current < 0, 'charging at noon reads negative on the wire');
});

for (const transport of ['tcp', 'serial'] as const) {
  test(
    `daly over ${transport}: + charging, cell and temperature ranges, capacity, cycles, silence`,
    {
      skip: transport === 'serial' && SOCAT_SKIP,
    },
    async () => {
      const emulator = await startEmulator({ now: noon });
      const server = await serveDriver(emulator, {
        plugin: 'daly',
        devices: ['battery_1'],
        connection: await connectionTo(emulator, transport),
        config: { pollIntervalMs: 500, timeoutMs: 400 },
      });
      const values = await valuesWhen(
        server,
        (v) => typeof v.get('battery_1/current') === 'number',
        'battery_1 values',
      );
      const { pack } = emulator;
      assert.equal(values.get('battery_1/current'), pack.current);
      assert.ok((values.get('battery_1/current') as number) > 0, '+ charging');
      assert.ok((values.get('battery_1/power') as number) > 0);
      assert.equal(values.get('battery_1/cell_temperature_max'), 24);
      assert.equal(values.get('battery_1/cell_temperature_min'), 21);
      assert.ok(
        (values.get('battery_1/cell_voltage_max') as number) > (values.get('battery_1/cell_voltage_min') as number),
      );
      assert.equal(values.get('battery_1/cycles'), 37);
      assert.ok((values.get('battery_1/remaining_capacity') as number) > 0);
      assert.equal(values.get('battery_1/manufacturer'), 'Daly');

      emulator.silence(true);
      await instanceWhen(server, 'daly', (i) => i.device_status.some((d) => !d.available), 'unavailable');
      emulator.silence(false);
      await instanceWhen(server, 'daly', (i) => i.device_status.every((d) => d.available), 'back');
    },
  );
}

test('firmware that sends the current inverted reads + charging with currentSign "inverted"', async () => {
  const emulator = await startEmulator({ now: noon, currentSign: 'inverted' });
  after(() => emulator.close());
  const client = await connectRaw({ port: emulator.port });
  after(() => client.close());
  client.send(dalyFrame(0x40, DalyCommand.soc));
  const wire = parseDalyFrame(await client.read(dalyFrameLength));
  assert.ok(wire);
  const onTheWire = (wire.data.readUInt16BE(4) - 30000) / 10; // python-daly-bms get_soc: "negative=charging"
  assert.ok(emulator.pack.current > 0, 'the pack charges at noon');
  assert.ok(onTheWire > 0, 'this firmware sends the charge positive, against python-daly-bms');

  const server = await startTestServer({
    bundled: ['daly'],
    plugins: ['normal', 'inverted'].map((currentSign, i) => ({
      id: `daly_${currentSign}`,
      plugin: 'daly',
      devices: [`battery_${i + 1}`],
      config: {
        connection: { type: 'tcp', host: emulator.host, port: emulator.port },
        pollIntervalMs: 500,
        timeoutMs: 400,
        currentSign,
      },
    })),
  });
  const values = await valuesWhen(
    server,
    (v) => typeof v.get('battery_1/current') === 'number' && typeof v.get('battery_2/current') === 'number',
    'both batteries read',
  );
  const inverted = values.get('battery_2/current') as number;
  assert.ok(inverted > 0, `"inverted": + charging, read ${inverted}`);
  assert.ok((values.get('battery_2/power') as number) > 0);
  assert.equal(inverted, emulator.pack.current);
  assert.equal(values.get('battery_1/current'), -emulator.pack.current, '"normal" reads this firmware as discharging');
});
