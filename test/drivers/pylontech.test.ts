// The pylontech driver in the whole server against the emulated RS485 stack: two instances
// share one TCP serial gateway (one bus, one queue), and a third reaches the stack over a
// real serial port (a socat pty). Scaling and signs, identity, a corrupt checksum, a pack
// that stops answering and comes back. The serial number is the module SN of the Pylontech
// RS485 protocol V3.3 (2018-08-21, in Frankkkkk/python-pylontech as
// RS485-protocol-pylon-low-voltage-V3.3-20180821.pdf) section 3.7: CID2 93H, INFO the 1-byte
// command value matched with ADR; the reply the command value and 16 ASCII bytes of SN
// (python-pylontech pylontech/pylontech.py `get_module_serial_number`, `module_serial_number_fmt`).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulator } from '@heliograph/plugin-pylontech/emulator';
import { statusWhen, startTestServer } from '../helpers/server.js';
import { devicesOf, valuesWhen } from '../helpers/metrics.js';
import { SOCAT_SKIP, serialBridge } from '../helpers/pty-bridge.js';

let clock = new Date(2026, 5, 21, 12, 0);
const emulator = await startEmulator({ packs: 3, now: () => clock });
const serialEmulator = await startEmulator({ packs: 1, now: () => new Date(2026, 5, 21, 12, 0) });
// The pack at address 4 runs firmware without 93H: it answers return code 04.
delete emulator.stack.packs[2]!.serial;
after(() => Promise.all([emulator.close(), serialEmulator.close()]));
const serialPath = SOCAT_SKIP ? undefined : await serialBridge(serialEmulator.port);
const gateway = { type: 'tcp', host: '127.0.0.1', port: emulator.port };
const fast = { pollIntervalMs: 500, timeoutMs: 300 };
const server = await startTestServer({
  bundled: ['pylontech'],
  plugins: [
    { id: 'rack', plugin: 'pylontech', devices: ['battery_1', 'battery_2'], config: { connection: gateway, ...fast } },
    {
      id: 'shed',
      plugin: 'pylontech',
      devices: ['battery_3'],
      config: { connection: gateway, addresses: [4], ...fast },
    },
    ...(serialPath
      ? [
          {
            id: 'serial',
            plugin: 'pylontech',
            devices: ['battery_4'],
            config: { connection: { type: 'serial', path: serialPath, baudRate: 9600 }, ...fast },
          },
        ]
      : []),
  ],
});
const allLive = (ids: string[]) => (values: Map<string, unknown>) =>
  ids.every((id) => typeof values.get(`${id}/state_of_charge`) === 'number');

test('every pack of the stack, over one shared gateway, as scaled battery metrics; noon charges', async () => {
  const v = await valuesWhen(server, 'battery_*', allLive(['battery_1', 'battery_2', 'battery_3']));
  for (const [i, pack] of emulator.stack.packs.entries()) {
    const id = `battery_${i + 1}`;
    assert.equal(v.get(`${id}/state_of_charge`), Math.round(pack.soc * 10) / 10, `${id} state of charge`);
    assert.equal(v.get(`${id}/cycles`), pack.cycles);
    assert.equal(v.get(`${id}/full_capacity`), 50);
    assert.ok(Number(v.get(`${id}/current`)) > 0, `${id} charging at noon reads positive`);
    assert.ok(Number(v.get(`${id}/power`)) > 0);
    const voltage = Number(v.get(`${id}/voltage`));
    assert.ok(voltage > 45 && voltage < 56, `${id} pack voltage ${voltage}`);
    const [low, high] = [Number(v.get(`${id}/cell_voltage_min`)), Number(v.get(`${id}/cell_voltage_max`))];
    assert.ok(low < high && low > 3 && high < 3.7, `${id} cells ${low}..${high}`);
    assert.ok(Math.abs(Number(v.get(`${id}/temperature`)) - 24) < 3);
  }
});

test('each pack is identified from its manufacturer info (CID2 0x51) and its module SN (CID2 0x93)', async () => {
  const devices = [...(await devicesOf(server, 'rack')), ...(await devicesOf(server, 'shed'))];
  const info = { manufacturer: 'PYLON', model: 'US2000C', firmware: '1.2' };
  assert.deepEqual(
    devices.map((d) => [d.id, d.available, d.identity]),
    [
      ['battery_1', true, { ...info, serial: 'PPTAH02400123456' }],
      ['battery_2', true, { ...info, serial: 'PPTAH02400123457' }],
      ['battery_3', true, info],
    ],
    'the packs at addresses 2 and 3 by their SN; the one whose firmware refuses 93H without one',
  );
  const values = await valuesWhen(server, 'battery_*', (v) => v.get('battery_2/serial_number') !== undefined);
  assert.equal(values.get('battery_2/serial_number'), 'PPTAH02400123457');
});

test('at night the packs feed the house: current and power read negative', async () => {
  clock = new Date(2026, 5, 21, 23, 0);
  try {
    await valuesWhen(server, 'battery_*', (v) =>
      ['battery_1', 'battery_2', 'battery_3'].every(
        (id) => Number(v.get(`${id}/current`)) < 0 && Number(v.get(`${id}/power`)) < 0,
      ),
    );
  } finally {
    clock = new Date(2026, 5, 21, 12, 0);
  }
});

test('a reply with a wrong checksum is skipped and the request made again', async () => {
  emulator.corruptNext(1);
  const corrupted = await emulator.nextRequest();
  // The retry queues behind what the other instance on the same gateway has asked meanwhile.
  const next = [await emulator.nextRequest(), await emulator.nextRequest()];
  assert.ok(
    next.some((request) => request.equals(corrupted)),
    `${corrupted.toString()} asked again: ${next.join(', ')}`,
  );
  await valuesWhen(server, 'battery_*', allLive(['battery_1', 'battery_2', 'battery_3']));
  assert.ok((await devicesOf(server, 'rack')).every((d) => d.available));
});

test('a silent bus: every pack unavailable at once, the status names them, and they come back', async () => {
  emulator.silence(true);
  // A poll under way when the silence began may still have reached battery_1: wait for one that did not.
  const failed = await statusWhen(server, 'rack', (s) => /battery_1/.test(String(s.last_error)));
  assert.match(String(failed.last_error), /battery_1 \(address 2\): .*no answer within 300 ms/);
  assert.match(String(failed.last_error), /battery_2 \(address 3\): .*no answer/);
  await statusWhen(server, 'shed', (s) => s.state === 'failed');
  const quiet = await valuesWhen(server, 'battery_*', (v) => v.get('battery_3/state_of_charge') === null);
  for (const id of ['battery_1', 'battery_2']) assert.equal(quiet.get(`${id}/state_of_charge`), null);
  assert.ok((await devicesOf(server, 'rack')).every((d) => !d.available && /no answer/.test(String(d.reason))));
  emulator.silence(false);
  await valuesWhen(server, 'battery_*', allLive(['battery_1', 'battery_2', 'battery_3']));
  await statusWhen(server, 'rack', (s) => s.state === 'running');
  await statusWhen(server, 'shed', (s) => s.state === 'running');
});

describe('over a serial port (socat pty bridged to the emulator)', { skip: SOCAT_SKIP }, () => {
  test('polls a pack through the native serialport binding', async () => {
    const v = await valuesWhen(server, 'battery_4/*', allLive(['battery_4']));
    assert.equal(v.get('battery_4/cycles'), serialEmulator.stack.packs[0]!.cycles);
  });
});
