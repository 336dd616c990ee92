// The jkbms driver in the real server against its emulator over a TCP serial bridge and a
// serial port. Checked against esphome-jk-bms (its jk_modbus and jk_bms components and its
// protocol-design-uart-ttl-gps-port document): the "read all" request is the bytes jk_modbus
// sends (4E 57 00 13 ... 06 03 00 00 ... 68 00 00 01 29); the example reply of that document
// (14 cells, checksum 54 D1) parses and decodes as jk_bms decodes it (0x83 0.01 V; 0x84 with
// C0 = 01: 10 mA, top bit set while charging; temperatures of 100 and above below zero, 99 − raw
// (components/jk_bms/jk_bms.h `get_temperature_`, as changed for its issue #685: 100 = −1 °C); 0x85 SOC;
// 0x87 cycles; 0xAA capacity Ah; 0xB4 device id, 0xB7 software version, 0xBA manufacturer id);
// the emulator's reply is read at jk_bms's fixed offsets, its checksum checked as jk_modbus
// checks it (the 16-bit sum of the first `length` bytes).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { connectRaw } from '@heliograph/plugins-sdk/emulator';
import { JkPack, startEmulator } from '@heliograph/plugin-jkbms/emulator';
import {
  jkCurrent,
  jkFields,
  jkFrameLength,
  jkIdentity,
  jkValues,
  parseJkFrame,
  readAllRequest,
} from '@heliograph/plugin-jkbms/protocol';
import { SOCAT_SKIP } from '../helpers/pty-bridge.js';
import { connectionTo, instanceWhen, malformedWhileCorrupt, serveDriver, valuesWhen } from './driver-api.js';

const noon = () => new Date(2026, 5, 21, 12, 0);

const DOC_REPLY =
  '4e57011b0000000006000179' +
  '2a010eed020efa030ef7040eec050ef8060efa070ef1080ef8090ee30a0efa0b0ef10c0efb0d0efb0e0ef2' +
  '80001d81001e82001c8314ef8480d0850f860287000489000000008a000e8b00008c0007' +
  '8e16268f10ae900fd2910fa092000593' +
  '0bea940c1c95000596012c9700079800039900059a00059b0ce49c00089d019e005a9f0046a00064a10064' +
  'a20014a30046a40046a5ffeca6fff6a7ffeca8fff6a90eaa0000000eab01ac01ad0411ae01af01b0000ab114' +
  'b231323334353600000000b300b4496e707574205573b532313031b60000e200' +
  'b74836 2e585f5f53362e312e33535f5f'.replace(' ', '') +
  'b800b900000000ba425433303732303230313230303030323030353231303031c001' +
  '00000000680000' +
  '54d1';

test("the request is jk_modbus's bytes; the documented reply decodes as jk_bms decodes it", () => {
  assert.equal(readAllRequest().toString('hex'), '4e5700130000000006030000000000006800000129');
  const frame = Buffer.from(DOC_REPLY, 'hex');
  assert.equal(jkFrameLength(frame), frame.length);
  const parsed = parseJkFrame(frame);
  assert.ok(parsed, 'the documented reply passes the checksum');
  const fields = jkFields(parsed.info);
  const values = jkValues(fields, 'auto');
  assert.equal(values.voltage, 53.59);
  assert.equal(values.current, 2.08, '0x80D0 with C0 = 01: charging 2.08 A');
  assert.equal(values.power, 111);
  assert.equal(values.state_of_charge, 15);
  assert.equal(values.cell_voltage_min, 3.811);
  assert.equal(values.cell_voltage_max, 3.835);
  assert.equal(values.mos_temperature, 29);
  assert.equal(values.cell_temperature_min, 28);
  assert.equal(values.cell_temperature_max, 30);
  assert.equal(values.cycles, 4);
  assert.equal(values.full_capacity, 14);
  assert.equal(values.remaining_capacity, 2.1);
  assert.deepEqual(jkIdentity(fields), {
    model: 'Input Us',
    firmware: 'H6.X__S6.1.3S',
    serial: 'BT3072020120000200521001',
  });
  // Both current encodings of the protocol document: 20 A discharging / charging.
  assert.equal(jkCurrent(0x07d0, 'sign-bit'), -20);
  assert.equal(jkCurrent(0x87d0, 'sign-bit'), 20);
  assert.equal(jkCurrent(11000, 'offset'), -10);
  assert.equal(jkCurrent(9500, 'offset'), 5);
  const damaged = Buffer.from(frame);
  damaged[20] = damaged[20]! ^ 1;
  assert.equal(parseJkFrame(damaged), undefined, 'a wrong checksum is refused');
});

test('auto follows the protocol version field: an offset-encoding (C0 = 00) pack reads + charging too', () => {
  const pack = new JkPack({ now: noon, encoding: 'offset' });
  const fields = jkFields(pack.readAll());
  assert.equal(fields.get(0xc0)?.[0], 0x00);
  assert.equal(fields.get(0x84)?.readUInt16BE(0), 10000 - Math.round(pack.current * 100));
  assert.ok(pack.current > 0);
  assert.equal(jkValues(fields, 'auto').current, pack.current);
  assert.equal(jkValues(fields, 'offset').current, pack.current);
  assert.notEqual(jkValues(fields, 'sign-bit').current, pack.current, 'the other encoding reads it wrong');
});

test('sub-zero temperatures: 100 is −1 °C, as esphome-jk-bms get_temperature_ reads units in the field', () => {
  const pack = new JkPack({ now: noon });
  pack.temperatures = { mos: -1, t1: 0, t2: -40 };
  const fields = jkFields(pack.readAll());
  // The raw values by esphome-jk-bms's rule (value > 99: 99 − value), written out here.
  assert.equal(fields.get(0x80)?.readUInt16BE(0), 100, 'MOSFETs at −1 °C send 100');
  assert.equal(fields.get(0x81)?.readUInt16BE(0), 0);
  assert.equal(fields.get(0x82)?.readUInt16BE(0), 139, '−40 °C sends 139');
  const values = jkValues(fields, 'auto');
  assert.equal(values.mos_temperature, -1, 'a pack at −1 °C reads −1 °C, not +100 °C');
  assert.equal(values.cell_temperature_max, 0);
  assert.equal(values.cell_temperature_min, -40);
  assert.equal(values.temperature, -20);
  // Raw 99 is still +99 °C (the last positive value).
  assert.equal(jkValues(new Map([[0x80, Buffer.of(0, 99)]]), 'auto').mos_temperature, 99);
});

test("the emulator's reply reads at jk_bms's offsets and passes jk_modbus's checksum", async () => {
  const emulator = await startEmulator({ now: noon });
  after(() => emulator.close());
  const client = await connectRaw({ port: emulator.port });
  after(() => client.close());
  client.send(Buffer.from('4e5700130000000006030000000000006800000129', 'hex'));
  const raw = await client.read(jkFrameLength);
  const length = raw.readUInt16BE(2);
  assert.equal(raw.length, length + 2);
  let sum = 0;
  for (const byte of raw.subarray(0, length)) sum += byte;
  assert.equal(raw.readUInt16BE(length), sum & 0xffff, 'checksum over the first `length` bytes');
  assert.deepEqual([...raw.subarray(8, 11)], [0x06, 0x00, 0x01]);
  const data = raw.subarray(11);
  assert.equal(data[0], 0x79);
  const offset = data[1]! + 3;
  const at = (i: number) => data.readUInt16BE(i);
  assert.equal(at(offset + 3 * 3) / 100, emulator.pack.voltage);
  const current = at(offset + 3 * 4);
  assert.ok(current & 0x8000, 'charging at noon: the top bit set');
  assert.equal((current & 0x7fff) / 100, emulator.pack.current);
  assert.equal(data[offset + 3 * 5], Math.round(emulator.pack.soc));
  assert.equal(at(offset + 4 + 3 * 5), 52);
  assert.equal(at(offset + 3 * 2), 102, 'battery sensor 2 at −3 °C reads 102 (99 − raw)');
  assert.equal(data[offset + 84 + 3 * 45], 0x01, 'protocol version 01');
});

for (const transport of ['tcp', 'serial'] as const) {
  test(
    `jkbms over ${transport}: + charging, identity, a bad checksum, silence within one poll, recovery`,
    { skip: transport === 'serial' && SOCAT_SKIP },
    async () => {
      const emulator = await startEmulator({ now: noon });
      const server = await serveDriver(emulator, {
        plugin: 'jkbms',
        id: 'jk',
        devices: ['battery_1'],
        connection: await connectionTo(emulator, transport, { baudRate: 115200 }),
        config: { pollIntervalMs: 1000, timeoutMs: 500 },
      });
      const values = await valuesWhen(
        server,
        (v) => typeof v.get('battery_1/current') === 'number' && v.get('battery_1/serial_number') !== undefined,
        'battery_1 values and identity',
      );
      const { pack } = emulator;
      assert.equal(values.get('battery_1/current'), pack.current);
      assert.ok((values.get('battery_1/current') as number) > 0, '+ charging');
      assert.ok((values.get('battery_1/power') as number) > 0);
      assert.equal(values.get('battery_1/voltage'), pack.voltage);
      assert.equal(values.get('battery_1/cell_temperature_min'), -3);
      assert.equal(values.get('battery_1/cell_temperature_max'), 24);
      assert.equal(values.get('battery_1/temperature'), 10.5);
      assert.equal(values.get('battery_1/mos_temperature'), 31);
      assert.equal(values.get('battery_1/cycles'), 52);
      assert.equal(values.get('battery_1/full_capacity'), 280);
      assert.ok(
        (values.get('battery_1/cell_voltage_max') as number) > (values.get('battery_1/cell_voltage_min') as number),
      );
      assert.equal(values.get('battery_1/manufacturer'), 'JK BMS');
      assert.equal(values.get('battery_1/model'), 'JK_B2A24');
      assert.equal(values.get('battery_1/serial_number'), 'JK2026A0001234');
      assert.equal(values.get('battery_1/firmware_version'), '11.XW_S11.26');

      // One bad reply: the device stays available. That the request is sent again at once is
      // the SDK's requestCommandReply's (plugins-sdk/test/connections/stream-command.test.ts):
      // from here the next poll, asking the same, cannot be told from the resend.
      emulator.corruptNext(1);
      await emulator.nextRequest();
      await emulator.nextRequest();
      const after1 = await instanceWhen(server, 'jk', () => true, 'status');
      assert.ok(
        after1.device_status.every((d) => d.available),
        JSON.stringify(after1),
      );

      const bad = await malformedWhileCorrupt(server, 'jk', emulator); // every reply with a wrong checksum
      assert.match(bad.device_status[0]?.reason ?? '', /malformed reply \(bad checksum/);
      assert.match(bad.last_error ?? '', /battery_1/);
      emulator.corruptNext(0);
      await instanceWhen(server, 'jk', (i) => i.device_status.every((d) => d.available), 'back after bad checksums');

      emulator.silence(true);
      await emulator.nextRequest();
      const first = await Promise.race([
        valuesWhen(server, (v) => v.get('battery_1/voltage') === null, 'voltage to read null').then(() => 'null'),
        emulator.nextRequest().then(() => 'another poll'),
      ]);
      assert.equal(first, 'null', 'values read null within the unanswered poll');
      const silent = await instanceWhen(server, 'jk', (i) => i.device_status.some((d) => !d.available), 'unavailable');
      assert.match(silent.last_error ?? '', /battery_1/);
      emulator.silence(false);
      await instanceWhen(server, 'jk', (i) => i.device_status.every((d) => d.available), 'back');
      await valuesWhen(server, (v) => typeof v.get('battery_1/voltage') === 'number', 'voltage back');
    },
  );
}
