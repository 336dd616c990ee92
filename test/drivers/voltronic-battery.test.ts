// A Voltronic-only site lists its battery: `["inverter_1", "battery_1"]` publishes the
// battery's values on battery_1 (and so in total/*). The device side answers QPIGS with the
// example reply of mpp-solar's PI30 documentation; its field list (8 battery voltage,
// 9 charging current, 10 capacity, 15 discharge current) is mpp-solar's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulatorServer } from '@heliograph/plugins-sdk/emulator';
import { pi30Protocol, VoltronicDevice } from '@heliograph/plugin-voltronic/emulator';
import { connectionTo, serveDriver, valuesWhen } from './driver-api.js';

const QPIGS =
  '(000.0 00.0 230.0 49.9 0161 0119 003 460 57.50 012 100 0069 0014 103.8 57.45 00000 00110110 00 00 00856 010';

class PublicExample extends VoltronicDevice {
  override answer(command: string): string {
    return command === 'QPIGS' ? QPIGS : super.answer(command);
  }
}

test('voltronic with a battery device: voltage, current, power and state of charge on battery_1', async () => {
  const emulator = await startEmulatorServer({ protocol: pi30Protocol(new PublicExample()) });
  const server = await serveDriver(emulator, {
    plugin: 'voltronic',
    id: 'axpert',
    devices: ['inverter_1', 'battery_1'],
    connection: await connectionTo(emulator, 'tcp'),
    config: { pollIntervalMs: 500 },
  });
  const values = await valuesWhen(
    server,
    (v) => typeof v.get('battery_1/state_of_charge') === 'number',
    'battery_1/state_of_charge published',
  );
  assert.equal(values.get('battery_1/voltage'), 57.5);
  assert.equal(values.get('battery_1/current'), 12);
  assert.equal(values.get('battery_1/power'), 690);
  assert.equal(values.get('battery_1/state_of_charge'), 100);
  assert.equal(values.get('inverter_1/pv_power'), 856);
  await valuesWhen(server, (v) => v.get('total/battery_power') === 690, 'total/battery_power from battery_1');
});
