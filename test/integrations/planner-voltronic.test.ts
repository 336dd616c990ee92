// The battery planner commanding a Voltronic / Axpert off-grid inverter (its PI30 emulator,
// over TCP) through a cheap night and a dear evening with a manual clock shared by the
// server and the emulator: the priorities the emulator holds show utility charging at night
// (utility first, solar and utility charging, a utility current within the planned power)
// and SBU at the evening peak, and the emulator's battery follows. An off-grid inverter has
// no discharge mode and exports nothing: the planner plans without either. Prices and the PV
// forecast come from the simulator (one inverter, no battery). A PI30 device cannot end a
// forced command by itself (lease 0): the planner charges it only when the owner accepts that
// (acceptUnboundedControl), and otherwise never leaves it grid charging.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { startEmulatorServer } from '@heliograph/plugins-sdk/emulator';
import { pi30Protocol, VoltronicDevice } from '@heliograph/plugin-voltronic/emulator';
import { valuesWhen, write } from '../drivers/driver-api.js';
import { EVENING_BEFORE, nightAndEvening, P, plannerModes, QUARTER, startWithDevice, step } from './planner-setup.js';

/**
 * The PI30 emulator on the shared clock, the simulator for prices and forecast, the planner.
 * A PI30 device cannot end a forced command by itself (`battery_control_lease` 0): the owner
 * accepts that here, or the planner charges nothing.
 */
async function start(plannerConfig: Record<string, unknown> = { acceptUnboundedControl: true }) {
  const clock = new ManualClock(EVENING_BEFORE);
  const device = new VoltronicDevice({ now: () => new Date(clock.now()), soc: 30 });
  const emulator = await startEmulatorServer({ protocol: pi30Protocol(device) });
  after(() => emulator.close());
  const server = await startWithDevice(
    clock,
    {
      id: 'axpert',
      plugin: 'voltronic',
      devices: ['inverter_2', 'battery_1'],
      config: {
        connection: { type: 'tcp', host: '127.0.0.1', port: emulator.port },
        pollIntervalMs: 500, // the driver schema\'s least: each step of the clock waits for a poll
        timeoutMs: 400,
        battery: { capacityKwh: 10.24, maxChargeW: 3000, maxDischargeW: 4000, minSoc: 20 },
      },
    },
    plannerConfig,
  );
  return { device, server, clock };
}

describe('battery planner on a Voltronic off-grid inverter', () => {
  test('charges from the utility at night, never forces a discharge, runs SBU at the evening peak', async () => {
    const { device, server, clock } = await start();
    try {
      await valuesWhen(server, (v) => typeof v.get(`${P}/planned_mode`) === 'string', 'a first plan for the voltronic');
      // The plan: the battery feeds tomorrow's evening peak (SBU does), nothing is exported.
      const series = async (name: string) =>
        (
          (await (await server.api(`/api/v1/forecast?topic=${P}/${name}`)).json()) as {
            points: Array<[string, number]>;
          }
        ).points;
      const peak = (await series('battery_power_planned')).filter(([t]) => {
        const at = Date.parse(t);
        return at >= Date.parse('2026-12-22T16:00:00Z') && at < Date.parse('2026-12-22T20:00:00Z');
      });
      assert.ok(
        peak.some(([, w]) => w > 0),
        `the plan spends the battery at tomorrow's peak: ${peak.map(([, w]) => w).join(' ')}`,
      );
      assert.ok(
        (await series('grid_power_planned')).every(([, w]) => w >= 0),
        'an off-grid inverter exports nothing',
      );
      assert.equal((await write(server, `${P}/mode`, 'active')).status, 200);

      // Utility charging as the emulator holds it: solar and utility (PCP02), with the
      // utility first on the output (POP00) and the current MUCHGC set.
      const held: Array<{ pop: number; amps: number }> = [];
      const charging = () => {
        const on = device.chargerPriority === 2;
        if (on) held.push({ pop: device.outputPriority, amps: device.maxUtilityChargeA });
        return on;
      };
      const seen = await nightAndEvening(server, clock, 'axpert', charging);
      assert.ok(seen.charged, 'the utility charged the battery in the night (PCP02)');
      assert.ok(seen.risen > 10, `the emulator's battery charged in the night by ${seen.risen} points`);
      assert.ok(
        held.every((h) => h.pop === 0),
        `utility first while charging: ${JSON.stringify(held)}`,
      );
      const modes = await plannerModes(server, 'inverter_2');
      assert.ok(
        modes.some((e) => e.new_value.startsWith('Charge') && e.result === 'ok'),
        'Charge audited via planner',
      );
      assert.ok(
        modes.every((e) => !e.new_value.startsWith('Discharge') && e.result === 'ok'),
        `no discharge asked of an off-grid inverter: ${modes.map((e) => e.new_value).join(', ')}`,
      );
      assert.deepEqual(
        [device.outputPriority, device.chargerPriority],
        [2, 3],
        'SBU at the peak: the battery feeds the load',
      );
      assert.ok(seen.after < seen.before - 5, `the battery is used in the evening: ${seen.before} -> ${seen.after} %`);
    } finally {
      await server.close();
    }
  });

  test('without acceptUnboundedControl the planner never has it charge from the utility, and says why', async () => {
    const { device, server, clock } = await start({});
    try {
      await valuesWhen(server, (v) => typeof v.get(`${P}/planned_mode`) === 'string', 'a first plan for the voltronic');
      assert.equal((await write(server, `${P}/mode`, 'active')).status, 200);
      const charged: string[] = [];
      let refusals = 0;
      for (let hour = 0; hour < 9; hour++) {
        const values = await step(server, clock, 4 * QUARTER, ['axpert']);
        if (device.chargerPriority !== 3) charged.push(new Date(clock.now()).toISOString());
        if (values.get(`${P}/planned_mode`) !== 'Charge') continue;
        assert.match(String(values.get(`${P}/status`)), /refused: .*acceptUnboundedControl/);
        refusals++;
      }
      assert.ok(refusals > 0, 'the plan charges in the night, and the status says why it is not done');
      assert.deepEqual(charged, [], 'the utility never charged the battery');
      const modes = await plannerModes(server, 'inverter_2');
      assert.ok(
        modes.every((e) => !e.new_value.startsWith('Charge')),
        `no Charge written: ${modes.map((e) => e.new_value).join(', ')}`,
      );
    } finally {
      await server.close();
    }
  });
});
