// Battery control on the deye driver in the real server against its emulator: each mode
// written through the API lands in the time-of-use program's registers, the emulator's
// battery follows it and stops at the target, every write is audited, refused writes are
// reported, and the limits are enforced before the device is touched.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ModbusException, ModbusExceptionCode, startModbusEmulator } from '@heliograph/plugins-sdk/emulator';
import { DeyeDevice, type DeyeEmulatorModel } from '@heliograph/plugin-deye/emulator';
import { startTestServer } from '../helpers/server.js';
import { valuesWhen, write } from './driver-api.js';
import { assertLimitsEnforced, command, lastAudited } from './battery-control.js';

let clock = new Date(2026, 5, 21, 22, 0); // night: no PV, the battery alone moves
const MINUTE = 60_000;

class TestDeye extends DeyeDevice {
  refuse = false;
  override writeRegisters(request: { address: number; values: number[] }): void {
    if (this.refuse) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    super.writeRegisters(request);
  }
}

async function start(options: { model?: DeyeEmulatorModel; devices?: string[] } = {}) {
  const device = new TestDeye({ now: () => clock, soc: 50, ...(options.model && { model: options.model }) });
  const emulator = await startModbusEmulator({ transport: 'tcp', units: new Map([[1, device]]) });
  after(() => emulator.close());
  const server = await startTestServer({
    bundled: ['deye'],
    plugins: [
      {
        id: 'deye',
        plugin: 'deye',
        devices: options.devices ?? ['inverter_1', 'battery_1'],
        config: {
          connection: { type: 'tcp', host: emulator.host, port: emulator.port },
          pollIntervalMs: 500,
          timeoutMs: 400,
          battery: { capacityKwh: 5.12, maxChargeW: 2500, maxDischargeW: 2500, minSoc: 20 },
        },
      },
    ],
  });
  return { device, server };
}

/** Registers `from`..`from+count-1` as the emulator holds them. */
const words = (device: DeyeDevice, from: number, count: number) =>
  device.readHoldingRegisters({ address: from, count });

/** Advances the emulator's clock minute by minute, reading the SOC after each; returns the readings. */
function advance(device: DeyeDevice, minutes: number): number[] {
  const socs: number[] = [];
  for (let i = 0; i < minutes; i++) {
    clock = new Date(clock.getTime() + MINUTE);
    socs.push(words(device, 184, 1)[0]!);
  }
  return socs;
}

test('deye: battery control drives the time-of-use program and the battery follows it', async () => {
  const { device, server } = await start();
  await valuesWhen(server, (v) => v.get('inverter_1/battery_capacity') === 5.12, 'the battery limits as info');

  // Charge: grid charge on in all six slots to the target, the timer on, the current from the power.
  await command(server, 'inverter_1', { mode: 'charge', powerW: 2000, targetSoc: 60 });
  assert.equal(words(device, 248, 1)[0]! & 1, 1, 'use timer on');
  assert.equal(words(device, 232, 1)[0]! & 1, 1, 'grid charge enabled');
  assert.deepEqual(words(device, 268, 6), [60, 60, 60, 60, 60, 60], 'slot SOC = target');
  assert.deepEqual(
    words(device, 274, 6).map((w) => w & 1),
    [1, 1, 1, 1, 1, 1],
    'grid charge in every slot',
  );
  assert.deepEqual(words(device, 256, 6), [2000, 2000, 2000, 2000, 2000, 2000]);
  const amps = words(device, 230, 1)[0]!;
  assert.ok(amps >= 30 && amps <= 2000 / 48, `grid charge current ${amps} A from 2000 W`);
  const entry = await lastAudited(server, 'inverter_1/battery_control_mode');
  assert.deepEqual([entry.result, entry.new_value, entry.via], ['ok', 'Charge', 'rest']);

  const charging = advance(device, 120);
  assert.ok(charging[10]! > 50, `SOC rises: ${charging.slice(0, 12).join(' ')}`);
  assert.equal(Math.max(...charging), 60, 'stops at the target');
  assert.equal(charging.at(-1), 60);
  await valuesWhen(server, (v) => v.get('battery_1/state_of_charge') === 60, 'battery_1/state_of_charge at 60');

  // Hold: the slot SOC is the SOC now and no battery power; at night the SOC stays.
  await command(server, 'inverter_1', { mode: 'hold', powerW: 2000, targetSoc: 60 });
  assert.deepEqual(words(device, 268, 6), [60, 60, 60, 60, 60, 60]);
  assert.deepEqual(words(device, 256, 6), [0, 0, 0, 0, 0, 0]);
  assert.deepEqual(
    words(device, 274, 6).map((w) => w & 1),
    [0, 0, 0, 0, 0, 0],
  );
  assert.deepEqual(new Set(advance(device, 60)), new Set([60]), 'hold keeps the SOC');

  // Discharge (selling first): down to the target at the slot power, then it stops.
  await command(server, 'inverter_1', { mode: 'discharge', powerW: 2500, targetSoc: 40 });
  assert.deepEqual(words(device, 268, 6), [40, 40, 40, 40, 40, 40]);
  const discharging = advance(device, 120);
  assert.ok(discharging[10]! < 60, `SOC falls: ${discharging.slice(0, 12).join(' ')}`);
  assert.equal(Math.min(...discharging), 40, 'stops at the target');

  // Normal: the timer off, slots back at the minimum SOC; the battery serves the load again.
  await command(server, 'inverter_1', { mode: 'normal', powerW: 2500, targetSoc: 40 });
  assert.equal(words(device, 248, 1)[0]! & 1, 0, 'use timer off');
  assert.deepEqual(words(device, 268, 6), [20, 20, 20, 20, 20, 20]);
  const normal = advance(device, 60);
  assert.ok(normal.at(-1)! < 40, `the night load discharges the battery: ${normal.at(-1)}`);

  // Limits, checked before the device is touched.
  await assertLimitsEnforced(server, 'inverter_1', { maxChargeW: 2500, minSoc: 20 });

  // A device that refuses: reported and audited, the mode stays.
  device.refuse = true;
  const refused = await write(server, 'inverter_1/battery_control_mode', 'Hold');
  assert.equal(refused.status, 422);
  assert.match(refused.body, /the device refused/);
  const audited = await lastAudited(server, 'inverter_1/battery_control_mode');
  assert.deepEqual([audited.result, audited.new_value], ['error', 'Hold']);
  await valuesWhen(server, (v) => v.get('inverter_1/battery_control_mode') === 'Normal', 'the mode still Normal');
});

test('deye three-phase: the program of the model identified from register 0 (146..177, grid charge 128/130)', async () => {
  clock = new Date(2026, 5, 21, 22, 0);
  const { device, server } = await start({ model: 'three-phase-lv' });
  await valuesWhen(
    server,
    (v) => v.get('inverter_1/battery_capacity') === 5.12 && v.get('inverter_1/model') === 'Three-phase hybrid (LV)',
    'the three-phase model identified, with battery control',
  );
  await command(server, 'inverter_1', { mode: 'charge', powerW: 2000, targetSoc: 60 });
  assert.equal(words(device, 146, 1)[0]! & 1, 1, 'use timer on');
  assert.equal(words(device, 130, 1)[0]! & 1, 1, 'grid charge enabled');
  assert.deepEqual(words(device, 166, 6), [60, 60, 60, 60, 60, 60], 'slot SOC = target');
  assert.deepEqual(words(device, 154, 6), [2000, 2000, 2000, 2000, 2000, 2000]);
  assert.ok(words(device, 128, 1)[0]! >= 30, 'grid charge current from the power');
  assert.deepEqual(words(device, 248, 32), new Array<number>(32).fill(0), 'nothing at the single-phase addresses');
  for (let i = 0; i < 120; i++) {
    clock = new Date(clock.getTime() + MINUTE);
    words(device, 588, 1);
  }
  assert.equal(words(device, 588, 1)[0], 60, 'the battery charged to the target');
});

test('deye: no battery control without a battery device, even with config.battery', async () => {
  const { server } = await start({ devices: ['inverter_1'] });
  const values = await valuesWhen(
    server,
    (v) => typeof v.get('inverter_1/pv_power') === 'number',
    'inverter_1 identified and polled',
  );
  assert.equal(values.get('inverter_1/battery_control_mode'), undefined);
  assert.equal(values.get('inverter_1/battery_capacity'), undefined);
});
