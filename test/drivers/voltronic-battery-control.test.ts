// Battery control on the voltronic driver in the real server against the PI30 emulator: each
// mode written through the API becomes the priorities (and the utility charging current) the
// emulator holds, its battery follows, grid charging ends at the target, every write is
// audited, refused writes are reported and the limits are enforced.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulatorServer } from '@heliograph/plugins-sdk/emulator';
import { pi30Protocol, VoltronicDevice } from '@heliograph/plugin-voltronic/emulator';
import { eventually } from '../helpers/child-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { valuesWhen, write } from './driver-api.js';
import { assertLimitsEnforced, command, lastAudited } from './battery-control.js';

let clock = new Date(2026, 5, 21, 22, 0); // night: no PV
const MINUTE = 60_000;

/** An Axpert that can be told to refuse every setting. */
class TestVoltronic extends VoltronicDevice {
  refuse = false;
  override answer(text: string): string {
    return this.refuse && /^(POP|PCP|MUCHGC)/.test(text) ? '(NAK' : super.answer(text);
  }
}

async function start() {
  const device = new TestVoltronic({ now: () => clock, soc: 50 });
  const emulator = await startEmulatorServer({ protocol: pi30Protocol(device) });
  after(() => emulator.close());
  const server = await startTestServer({
    bundled: ['voltronic'],
    plugins: [
      {
        id: 'axpert',
        plugin: 'voltronic',
        devices: ['inverter_1'],
        config: {
          connection: { type: 'tcp', host: '127.0.0.1', port: emulator.port },
          pollIntervalMs: 500,
          timeoutMs: 300,
          battery: { capacityKwh: 10.24, maxChargeW: 3000, maxDischargeW: 4000, minSoc: 20 },
        },
      },
    ],
  });
  return { device, server };
}

/**
 * Moves the emulator's clock on by `minutes`, then waits until the server has polled the SOC
 * the emulator holds at the new time; returns it.
 */
async function advance(server: TestServer, device: VoltronicDevice, minutes: number): Promise<number> {
  clock = new Date(clock.getTime() + minutes * MINUTE);
  device.answer('QPIGS'); // brings the emulator's battery up to the new time
  const soc = Math.round(device.soc);
  await valuesWhen(server, (v) => v.get('inverter_1/battery_state_of_charge') === soc, `the server to read SOC ${soc}`);
  return soc;
}

test('voltronic: battery control sets the priorities and the utility current; grid charging ends at the target', async () => {
  const { device, server } = await start();
  await valuesWhen(server, (v) => v.get('inverter_1/battery_capacity') === 10.24, 'the battery limits as info');

  await command(server, 'inverter_1', { mode: 'charge', powerW: 1500, targetSoc: 54 });
  assert.deepEqual(
    [device.outputPriority, device.chargerPriority],
    [0, 2],
    'utility first, solar and utility charging',
  );
  assert.equal(device.maxUtilityChargeA, 20, '1500 W at about 52 V: 20 A is the largest listed current that fits');
  const entry = await lastAudited(server, 'inverter_1/battery_control_mode');
  assert.deepEqual([entry.result, entry.new_value], ['ok', 'Charge']);

  const socs: number[] = [];
  // Until the server read the target; the driver ends grid charging in the same poll.
  while (socs.length < 40 && !(socs.at(-1)! >= 54)) socs.push(await advance(server, device, 2));
  assert.ok(socs[0]! >= 50 && socs.at(-1)! >= 54, `SOC rises to the target: ${socs.join(' ')}`);
  await eventually(
    () => Promise.resolve(device.chargerPriority === 3 ? true : undefined),
    'grid charging to end (PCP03)',
  );
  assert.equal(device.outputPriority, 0, 'the battery is held at the target');
  const atTarget = Math.round(device.soc);
  assert.equal(atTarget, 54);
  assert.equal(await advance(server, device, 60), atTarget, 'no further charging, no discharging');

  await command(server, 'inverter_1', { mode: 'hold', powerW: 1500, targetSoc: 54 });
  assert.deepEqual([device.outputPriority, device.chargerPriority], [0, 3]);
  assert.equal(await advance(server, device, 60), atTarget, 'hold keeps the SOC at night');

  await command(server, 'inverter_1', { mode: 'normal', powerW: 1500, targetSoc: 54 });
  assert.deepEqual([device.outputPriority, device.chargerPriority], [2, 3], 'SBU, only solar');
  assert.ok((await advance(server, device, 60)) < atTarget, 'SBU discharges to the night load');

  const discharge = await write(server, 'inverter_1/battery_control_mode', 'Discharge');
  assert.equal(discharge.status, 422, 'an off-grid inverter offers no discharge mode');
  await assertLimitsEnforced(server, 'inverter_1', { maxChargeW: 3000, minSoc: 20 });

  device.refuse = true;
  const refused = await write(server, 'inverter_1/battery_control_mode', 'Hold');
  assert.equal(refused.status, 422);
  assert.match(refused.body, /the device refused/);
  const audited = await lastAudited(server, 'inverter_1/battery_control_mode');
  assert.deepEqual([audited.result, audited.new_value], ['error', 'Hold']);
  assert.deepEqual([device.outputPriority, device.chargerPriority], [2, 3], 'nothing changed');
});
