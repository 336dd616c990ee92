import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  batteryControl,
  BATTERY_LEASE_MS,
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
  const leases: Array<number | null> = [];
  const device = { refuse: false, mode: null as BatteryCommand['mode'] | null };
  const plugin = definePlugin({
    id: 'acme-battery',
    configSchema: z.object({}),
    async setup(ctx) {
      const control = batteryControl({
        limits,
        store: ctx.store,
        initial: await loadBatteryCommand(ctx.store),
        boundedOnDevice: true,
        now: () => ctx.now(),
        read: () => Promise.resolve(device.mode),
        apply: ({ command, until }) => {
          if (device.refuse)
            return Promise.reject(new DeviceRefusedError({ answer: 'exception 3 (illegal data value)' }));
          applied.push(command);
          leases.push(until);
          return Promise.resolve();
        },
      });
      ctx.topics.declare({ device: 'inverter_1', metrics: control.metrics, settings: control.settings });
      ctx.topics.publish({ device: 'inverter_1', values: control.values() });
      let started = false;
      ctx.scheduler.every({
        name: 'poll',
        intervalMs: 60_000,
        run: async ({ signal }) => {
          if (!started) await control.startClean({ site: ctx.site, device: 'inverter_1', signal });
          started = true;
          ctx.topics.publish({ device: 'inverter_1', values: control.values() });
        },
      });
      return async () => {
        await control.stopClean({ site: ctx.site, device: 'inverter_1' });
      };
    },
  });
  return { plugin, applied, leases, device };
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
    assert.equal(host.value('inverter_1/battery_control_lease'), 1800, 'a lease of 30 minutes on the device');
    await host.stop();
  });

  test('a forced command carries a lease that a write of the mode renews; once it ends the mode reads Normal', async () => {
    const { plugin, leases } = driver();
    const start = Date.parse('2026-11-27T14:00:00Z');
    const host = await startTestHost({ plugin, devices: ['inverter_1'], now: start });
    await host.runJob('poll');
    await host.write('inverter_1/battery_control_power', 2000);
    await host.write('inverter_1/battery_control_mode', 'Charge');
    assert.deepEqual(
      leases,
      [null, start + BATTERY_LEASE_MS],
      'Normal at start (the device could not tell), then the lease',
    );
    host.advance(15 * 60_000);
    await host.write('inverter_1/battery_control_mode', 'Charge');
    assert.deepEqual(leases.at(-1), start + 15 * 60_000 + BATTERY_LEASE_MS, 'renewed from the write on');
    await host.runJob('poll');
    assert.equal(host.value('inverter_1/battery_control_mode'), 'Charge');
    host.advance(BATTERY_LEASE_MS);
    await host.runJob('poll');
    assert.equal(host.value('inverter_1/battery_control_mode'), 'Normal', 'the lease ran out: the device is normal');
    await host.write('inverter_1/battery_control_mode', 'Normal');
    assert.equal(leases.at(-1), null, 'normal carries no lease');
    await host.stop();
  });

  test('at start a forced command found on the device is ended through the write path; a normal one is left', async () => {
    const forced = driver();
    forced.device.mode = 'charge';
    const host = await startTestHost({ plugin: forced.plugin, devices: ['inverter_1'] });
    await host.runJob('poll');
    assert.deepEqual(forced.applied, [{ mode: 'normal', powerW: 5000, targetSoc: 100 }], 'Normal written once');
    await host.stop();

    const calm = driver();
    calm.device.mode = 'normal';
    const again = await startTestHost({ plugin: calm.plugin, devices: ['inverter_1'] });
    await again.runJob('poll');
    assert.deepEqual(calm.applied, [], 'nothing written to a device already normal');
    await again.stop();
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

  test('a stop ends a forced command through the write path before the driver goes; a normal device is left alone', async () => {
    const forced = driver();
    forced.device.mode = 'normal';
    const host = await startTestHost({ plugin: forced.plugin, devices: ['inverter_1'] });
    await host.runJob('poll');
    await host.write('inverter_1/battery_control_power', 2000);
    await host.write('inverter_1/battery_control_mode', 'Charge');
    await host.stop();
    assert.deepEqual(forced.applied.at(-1), { mode: 'normal', powerW: 2000, targetSoc: 100 }, 'Normal at the stop');
    assert.equal(forced.leases.at(-1), null);

    const calm = driver();
    calm.device.mode = 'normal';
    const again = await startTestHost({ plugin: calm.plugin, devices: ['inverter_1'] });
    await again.runJob('poll');
    await again.stop();
    assert.deepEqual(calm.applied, [], 'nothing written at a stop in normal');
  });

  test('power and target are given back after a restart, a forced mode never', async () => {
    const { plugin } = driver();
    const host = await startTestHost({ plugin, devices: ['inverter_1'] });
    await host.write('inverter_1/battery_control_power', 2500);
    await host.write('inverter_1/battery_control_target_soc', 80);
    await host.write('inverter_1/battery_control_mode', 'Charge');
    const store = Object.fromEntries(host.store);
    await host.stop();
    assert.deepEqual(store.battery_control, { mode: 'charge', powerW: 2500, targetSoc: 80 });

    const again = await startTestHost({ plugin, devices: ['inverter_1'], store });
    assert.equal(again.value('inverter_1/battery_control_mode'), 'Normal', 'nobody renews it: not restored');
    assert.equal(again.value('inverter_1/battery_control_target_soc'), 80);
    assert.equal(again.value('inverter_1/battery_control_power'), 2500);
    await again.stop();
  });

  test('limits that make no sense are a programming error', () => {
    const rest = { apply: async () => {}, boundedOnDevice: true, now: Date.now };
    assert.throws(() => batteryControl({ limits: { ...LIMITS, modes: ['hold'] }, ...rest }), /normal/);
    assert.throws(() => batteryControl({ limits: { ...LIMITS, capacityKwh: 0 }, ...rest }), /capacity/);
    assert.throws(() => batteryControl({ limits: { ...LIMITS, minSoc: 120 }, ...rest }), /minSoc/);
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
