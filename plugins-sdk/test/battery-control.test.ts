import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  batteryControl,
  commandProblem,
  loadBatteryCommand,
  definePlugin,
  DeviceRefusedError,
  z,
  type BatteryCommand,
  type BatteryLimits,
} from '../src/index.js';
import { startTestHost } from '../src/testing.js';

const LIMITS: BatteryLimits = {
  capacityKwh: 10,
  maxChargeW: 3000,
  maxDischargeW: 5000,
  minSoc: 10,
  modes: ['normal', 'hold', 'charge'],
};

/** A driver whose device records each command it confirmed, and can be told to refuse. */
function driver(limits: BatteryLimits = LIMITS) {
  const applied: BatteryCommand[] = [];
  const device = { refuse: false };
  const plugin = definePlugin({
    id: 'acme-battery',
    configSchema: z.object({}),
    async setup(ctx) {
      const control = batteryControl({
        limits,
        store: ctx.store,
        initial: await loadBatteryCommand(ctx.store),
        apply: ({ command }) => {
          if (device.refuse)
            return Promise.reject(new DeviceRefusedError({ answer: 'exception 3 (illegal data value)' }));
          applied.push(command);
          return Promise.resolve();
        },
      });
      ctx.topics.declare({ device: 'inverter_1', metrics: control.metrics, settings: control.settings });
      ctx.topics.publish({ device: 'inverter_1', values: control.info });
    },
  });
  return { plugin, applied, device };
}

describe('batteryControl', () => {
  test('declares the mode, power and target settings with the limits as info', async () => {
    const { plugin } = driver();
    const host = await startTestHost({ plugin, devices: ['inverter_1'] });
    assert.equal(host.value('inverter_1/battery_control_mode'), 'Normal');
    assert.equal(host.value('inverter_1/battery_control_power'), 5000);
    assert.equal(host.value('inverter_1/battery_control_target_soc'), 100);
    assert.equal(host.value('inverter_1/battery_capacity'), 10);
    assert.equal(host.value('inverter_1/battery_max_charge_power'), 3000);
    assert.equal(host.value('inverter_1/battery_max_discharge_power'), 5000);
    assert.equal(host.value('inverter_1/battery_min_soc'), 10);
    await host.stop();
  });

  test('a mode write applies the current power and target; power and target re-apply only while charging', async () => {
    const { plugin, applied } = driver();
    const host = await startTestHost({ plugin, devices: ['inverter_1'] });
    await host.write('inverter_1/battery_control_power', 2000);
    await host.write('inverter_1/battery_control_target_soc', 80);
    assert.deepEqual(applied, [], 'nothing to apply in normal mode');
    await host.write('inverter_1/battery_control_mode', 'charge');
    await host.write('inverter_1/battery_control_target_soc', 90);
    await host.write('inverter_1/battery_control_mode', 'Hold');
    await host.write('inverter_1/battery_control_power', 1000);
    assert.deepEqual(applied, [
      { mode: 'charge', powerW: 2000, targetSoc: 80 },
      { mode: 'charge', powerW: 2000, targetSoc: 90 },
      { mode: 'hold', powerW: 2000, targetSoc: 90 },
    ]);
    assert.equal(host.value('inverter_1/battery_control_mode'), 'Hold');
    assert.equal(host.value('inverter_1/battery_control_power'), 1000);
    await host.stop();
  });

  test('refuses unsupported modes, power above the mode limit and targets below the minimum SOC', async () => {
    const { plugin, applied } = driver();
    const host = await startTestHost({ plugin, devices: ['inverter_1'] });
    await assert.rejects(host.write('inverter_1/battery_control_mode', 'Discharge'), /Discharge/);
    await assert.rejects(host.write('inverter_1/battery_control_target_soc', 5), /10/);
    await assert.rejects(host.write('inverter_1/battery_control_power', 6000), /5000/);
    // 4000 W fits the setting's range (the discharge limit) but not the charge limit.
    await host.write('inverter_1/battery_control_power', 4000);
    await assert.rejects(
      host.write('inverter_1/battery_control_mode', 'Charge'),
      /charge power 4000 W is above the battery's max charge power 3000 W/,
    );
    assert.equal(host.value('inverter_1/battery_control_mode'), 'Normal');
    assert.deepEqual(applied, []);
    await host.stop();
  });

  test('a device that refuses keeps the command in force and reports the refusal', async () => {
    const { plugin, applied, device } = driver();
    const host = await startTestHost({ plugin, devices: ['inverter_1'] });
    await host.write('inverter_1/battery_control_power', 2500);
    await host.write('inverter_1/battery_control_mode', 'Charge');
    device.refuse = true;
    await assert.rejects(host.write('inverter_1/battery_control_target_soc', 70), /the device refused/);
    assert.equal(host.value('inverter_1/battery_control_target_soc'), 100);
    device.refuse = false;
    await host.write('inverter_1/battery_control_mode', 'Normal');
    assert.deepEqual(applied.at(-1), { mode: 'normal', powerW: 2500, targetSoc: 100 });
    await host.stop();
  });

  test('the command in force is stored and given back after a restart; one that no longer fits is ignored', async () => {
    const { plugin } = driver();
    const host = await startTestHost({ plugin, devices: ['inverter_1'] });
    await host.write('inverter_1/battery_control_power', 2500);
    await host.write('inverter_1/battery_control_target_soc', 80);
    await host.write('inverter_1/battery_control_mode', 'Charge');
    const store = Object.fromEntries(host.store);
    await host.stop();
    assert.deepEqual(store.battery_control, { mode: 'charge', powerW: 2500, targetSoc: 80 });

    const again = await startTestHost({ plugin, devices: ['inverter_1'], store });
    assert.equal(again.value('inverter_1/battery_control_mode'), 'Charge');
    assert.equal(again.value('inverter_1/battery_control_target_soc'), 80);
    await again.stop();

    const unsupported = { battery_control: { mode: 'discharge', powerW: 1000, targetSoc: 50 } };
    const third = await startTestHost({ plugin, devices: ['inverter_1'], store: unsupported });
    assert.equal(third.value('inverter_1/battery_control_mode'), 'Normal', 'this device has no discharge');
    await third.stop();
  });

  test('limits that make no sense are a programming error', () => {
    assert.throws(() => batteryControl({ limits: { ...LIMITS, modes: ['hold'] }, apply: async () => {} }), /normal/);
    assert.throws(() => batteryControl({ limits: { ...LIMITS, capacityKwh: 0 }, apply: async () => {} }), /capacity/);
    assert.throws(() => batteryControl({ limits: { ...LIMITS, minSoc: 120 }, apply: async () => {} }), /minSoc/);
  });

  test('commandProblem names what is wrong with a command', () => {
    assert.equal(commandProblem(LIMITS, { mode: 'charge', powerW: 3000, targetSoc: 100 }), null);
    assert.match(
      commandProblem(
        { ...LIMITS, modes: ['normal', 'discharge'] },
        { mode: 'discharge', powerW: 5001, targetSoc: 20 },
      )!,
      /discharge power 5001 W is above the battery's max discharge power 5000 W/,
    );
    assert.match(commandProblem(LIMITS, { mode: 'hold', powerW: 0, targetSoc: 9 })!, /target SOC 9 %/);
  });
});
