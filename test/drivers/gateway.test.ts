// The full server with drivers sharing one emulated RS485-over-TCP gateway: two Deye
// inverters on units 1 and 2 of one bus, each read through the same link, each going
// unavailable and coming back on its own; and a Deye next to a SunSpec inverter.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ModbusException,
  ModbusExceptionCode,
  startModbusEmulator,
  type ModbusDevice,
} from '@heliograph/plugins-sdk/emulator';
import { DeyeDevice } from '@heliograph/plugin-deye/emulator';
import { SunSpecDevice } from '@heliograph/plugin-sunspec/emulator';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { connectionTo, instanceWhen, valuesWhen } from './driver-api.js';

const noon = () => new Date(2026, 5, 21, 12, 0);

/** A unit behind the gateway that can be unplugged: while off the gateway answers 0x0B (target failed to respond). */
function unpluggable(device: DeyeDevice): ModbusDevice & { off: boolean } {
  return {
    off: false,
    readHoldingRegisters(request) {
      if (this.off) throw new ModbusException({ code: ModbusExceptionCode.gatewayTargetFailed });
      return device.readHoldingRegisters(request);
    },
    writeRegisters: (request) => device.writeRegisters(request),
  };
}

/**
 * A gateway with `units` on its RS485 bus, and the server with `instances` reading it through
 * the same link, each on its own unit (the gateway closes after the server).
 */
async function serveGateway(
  units: Map<number, ModbusDevice>,
  instances: Array<{ id: string; plugin: string; devices: unknown[] }>,
): Promise<TestServer> {
  const gateway = await startModbusEmulator({ transport: 'rtu-over-tcp', units });
  const config = { connection: await connectionTo(gateway, 'rtu-over-tcp'), pollIntervalMs: 500, timeoutMs: 400 };
  try {
    return await startTestServer({
      bundled: [...new Set(instances.map((i) => i.plugin))],
      plugins: instances.map((instance) => ({ ...instance, config })),
    });
  } finally {
    after(() => gateway.close());
  }
}

test('two deye instances share one RS485-over-TCP gateway by unit id', async () => {
  const first = new DeyeDevice({ now: noon, serial: 'UNIT000001', peakPvW: 4000 });
  const second = new DeyeDevice({ now: noon, serial: 'UNIT000002', peakPvW: 8000 });
  const server = await serveGateway(
    new Map([
      [1, first],
      [2, second],
    ]),
    [
      { id: 'garage', plugin: 'deye', devices: ['inverter_1', 'battery_1'] },
      { id: 'roof', plugin: 'deye', devices: [{ id: 'inverter_2', config: { unitId: 2 } }] },
    ],
  );
  const values = await valuesWhen(
    server,
    (v) => typeof v.get('inverter_1/pv_power') === 'number' && typeof v.get('inverter_2/pv_power') === 'number',
    'both inverters to be read',
  );
  const pv = (device: DeyeDevice) => {
    const [pv1, pv2] = device.readHoldingRegisters({ address: 186, count: 2 });
    return pv1! + pv2!;
  };
  assert.equal(values.get('inverter_1/pv_power'), pv(first));
  assert.equal(values.get('inverter_2/pv_power'), pv(second));
  assert.notEqual(pv(first), pv(second), 'the two units differ, so no reply went to the wrong instance');
  assert.equal(values.get('inverter_1/serial_number'), 'UNIT000001');
  assert.equal(values.get('inverter_2/serial_number'), 'UNIT000002');
});

test('one silent unit on a shared gateway goes unavailable alone, and comes back', async () => {
  const quiet = unpluggable(new DeyeDevice({ now: noon }));
  const server = await serveGateway(
    new Map<number, ModbusDevice>([
      [1, new DeyeDevice({ now: noon })],
      [2, quiet],
    ]),
    [
      { id: 'one', plugin: 'deye', devices: ['inverter_1'] },
      { id: 'two', plugin: 'deye', devices: [{ id: 'inverter_2', config: { unitId: 2 } }] },
    ],
  );
  await valuesWhen(server, (v) => typeof v.get('inverter_2/pv_power') === 'number', 'unit 2 to be read');
  quiet.off = true;
  await valuesWhen(server, (v) => v.get('inverter_2/pv_power') === null, 'unit 2 to read null');
  const two = await instanceWhen(server, 'two', (i) => i.device_status[0]?.available === false, 'unit 2 unavailable');
  assert.match(two.last_error ?? '', /inverter_2: no answer from unit 2/);
  const one = await instanceWhen(server, 'one', () => true, 'unit 1');
  assert.equal(one.device_status[0]?.available, true);
  const values = await valuesWhen(server, (v) => typeof v.get('inverter_1/pv_power') === 'number', 'unit 1 still read');
  assert.equal(values.get('inverter_2/pv_power'), null);
  quiet.off = false;
  await valuesWhen(server, (v) => typeof v.get('inverter_2/pv_power') === 'number', 'unit 2 back');
});

test('deye and sunspec share one RS485-over-TCP gateway', async () => {
  const deye = new DeyeDevice({ now: noon, serial: 'UNIT000001' });
  const server = await serveGateway(
    new Map<number, ModbusDevice>([
      [1, deye],
      [2, new SunSpecDevice({ now: noon })],
    ]),
    [
      { id: 'deye', plugin: 'deye', devices: ['inverter_1', 'battery_1'] },
      { id: 'sunspec', plugin: 'sunspec', devices: [{ id: 'inverter_2', config: { unitId: 2 } }, 'battery_2'] },
    ],
  );
  const values = await valuesWhen(
    server,
    (v) => typeof v.get('inverter_1/pv_power') === 'number' && typeof v.get('battery_2/state_of_charge') === 'number',
    'both drivers to be read',
  );
  assert.equal(values.get('inverter_1/serial_number'), 'UNIT000001');
  assert.equal(values.get('inverter_2/serial_number'), 'HG5K-000123');
  assert.equal(values.get('inverter_2/manufacturer'), 'Heliograph');
  assert.equal(values.get('battery_2/state_of_charge'), 50);
  const [pv1, pv2] = deye.readHoldingRegisters({ address: 186, count: 2 });
  assert.equal(values.get('inverter_1/pv_power'), pv1! + pv2!);
  for (const id of ['deye', 'sunspec'])
    await instanceWhen(server, id, (i) => i.state === 'running' && i.device_status.every((d) => d.available), id);
});
