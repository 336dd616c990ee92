import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  batteryCommandSchema,
  batteryConfigSchema,
  batteryControl,
  batteryModeLabel,
  batteryModeOf,
  BATTERY_LEASE_MS,
  BATTERY_MODES,
  commandProblem,
  loadBatteryCommand,
  definePlugin,
  DeviceRefusedError,
  z,
  type BatteryCommand,
  type BatteryLimits,
  type BatteryMode,
  type PluginStore,
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

/** A {@link driver} whose device is in `mode` at its start, on a test host, polled once. */
async function polledOnce(mode: BatteryMode) {
  const started = driver();
  started.device.mode = mode;
  const host = await startTestHost({ plugin: started.plugin, devices: ['inverter_1'] });
  await host.runJob('poll');
  return { ...started, host };
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
    const forced = await polledOnce('charge');
    assert.deepEqual(forced.applied, [{ mode: 'normal', powerW: 5000, targetSoc: 100 }], 'Normal written once');
    await forced.host.stop();

    const calm = await polledOnce('normal');
    assert.deepEqual(calm.applied, [], 'nothing written to a device already normal');
    await calm.host.stop();
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
    const forced = await polledOnce('normal');
    const { host } = forced;
    await host.write('inverter_1/battery_control_power', 2000);
    await host.write('inverter_1/battery_control_mode', 'Charge');
    await host.stop();
    assert.deepEqual(forced.applied.at(-1), { mode: 'normal', powerW: 2000, targetSoc: 100 }, 'Normal at the stop');
    assert.equal(forced.leases.at(-1), null);

    const calm = await polledOnce('normal');
    await calm.host.stop();
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

  test('the declarations clients see: the info rows, and the three settings with their labels, units and ranges', () => {
    const control = batteryControl({
      limits: { ...LIMITS, minSoc: 10.5, modes: ['normal', 'hold', 'charge', 'discharge'] },
      apply: async () => {},
      boundedOnDevice: false,
      now: Date.now,
    });
    const info = (name: string, displayName: string, unit: string) => ({
      name,
      displayName,
      unit,
      group: 'Info',
      recorded: false,
      deviceClass: null,
      stateClass: null,
    });
    assert.deepEqual(control.metrics, [
      info('battery_capacity', 'Battery capacity', 'kWh'),
      info('battery_max_charge_power', 'Battery max charge power', 'W'),
      info('battery_max_discharge_power', 'Battery max discharge power', 'W'),
      info('battery_min_soc', 'Battery minimum SOC', '%'),
      info('battery_control_lease', 'Battery control lease (0: not bounded on the device)', 's'),
    ]);
    // Everything but the write handler, as a client reads the declaration.
    const [mode, power, target] = control.settings.map((setting) =>
      Object.fromEntries(Object.entries(setting).filter(([key]) => key !== 'write')),
    );
    assert.deepEqual(mode, {
      name: 'battery_control_mode',
      displayName: 'Battery control mode',
      options: [
        { value: 'normal', label: 'Normal' },
        { value: 'hold', label: 'Hold' },
        { value: 'charge', label: 'Charge' },
        { value: 'discharge', label: 'Discharge' },
      ],
      initial: 'Normal',
    });
    assert.deepEqual(power, {
      name: 'battery_control_power',
      displayName: 'Battery control power',
      unit: 'W',
      min: 0,
      max: 5000,
      step: 1,
      initial: 5000,
    });
    assert.deepEqual(target, {
      name: 'battery_control_target_soc',
      displayName: 'Battery control target SOC',
      unit: '%',
      deviceClass: null,
      min: 11,
      max: 100,
      step: 1,
      initial: 100,
    });
    assert.equal(control.info.battery_control_lease, 0, 'not bounded on the device: no lease published');
  });

  test('a discharge: applied with its lease, re-applied at a power or target write, shown as Discharge with its end', async () => {
    const limits: BatteryLimits = { ...LIMITS, modes: ['normal', 'hold', 'charge', 'discharge'] };
    const applied: Array<{ command: BatteryCommand; until: number | null }> = [];
    const clock = { now: Date.parse('2026-11-27T18:00:00Z') };
    // No store: a driver without one still works.
    const control = batteryControl({
      limits,
      apply: ({ command, until }) => {
        applied.push({ command, until });
        return Promise.resolve();
      },
      boundedOnDevice: true,
      now: () => clock.now,
    });
    const [mode, power, target] = control.settings;
    const signal = new AbortController().signal;
    assert.equal(control.until(), null, 'normal: no end');
    await power!.write({ value: 4000, label: '4000', signal } as never);
    await mode!.write({ value: 'discharge', label: 'Discharge', signal } as never);
    const end = clock.now + BATTERY_LEASE_MS;
    await target!.write({ value: 30, label: '30', signal } as never);
    assert.deepEqual(applied, [
      { command: { mode: 'discharge', powerW: 4000, targetSoc: 100 }, until: end },
      { command: { mode: 'discharge', powerW: 4000, targetSoc: 30 }, until: end },
    ]);
    assert.equal(control.until(), end);
    assert.deepEqual(control.values(), {
      battery_capacity: 10,
      battery_max_charge_power: 3000,
      battery_max_discharge_power: 5000,
      battery_min_soc: 10,
      battery_control_lease: 1800,
      battery_control_mode: 'Discharge',
      battery_control_power: 4000,
      battery_control_target_soc: 30,
    });
    clock.now = end;
    assert.equal(control.until(), null, 'the lease ran out: no end');
    assert.equal(control.values().battery_control_mode, 'Normal');
    assert.deepEqual(control.current(), { mode: 'normal', powerW: 4000, targetSoc: 30 });
  });

  test('startClean reads the device with the poll signal and answers what it found; stopClean answers whether it wrote', async () => {
    const writes: string[] = [];
    const signals: AbortSignal[] = [];
    const found: { mode: BatteryMode | null } = { mode: 'hold' };
    const control = batteryControl({
      limits: LIMITS,
      apply: async () => {},
      boundedOnDevice: true,
      now: Date.now,
      read: ({ signal }) => {
        signals.push(signal);
        return Promise.resolve(found.mode);
      },
    });
    const site = {
      write: async ({ topic, value }: { topic: string; value: string | number | boolean }) => {
        writes.push(`${topic}=${String(value)}`);
        await control.settings[0]!.write({ value: String(value).toLowerCase(), label: String(value), signal } as never);
      },
    };
    const signal = new AbortController().signal;
    assert.equal(await control.startClean({ site, device: 'inverter_1', signal }), 'hold');
    assert.equal(signals[0], signal);
    found.mode = 'normal';
    assert.equal(await control.startClean({ site, device: 'inverter_1', signal }), 'normal');
    assert.deepEqual(writes, ['inverter_1/battery_control_mode=normal']);
    assert.equal(await control.stopClean({ site, device: 'inverter_1' }), false, 'normal: nothing to end');
    await control.settings[0]!.write({ value: 'hold', label: 'Hold', signal } as never);
    assert.equal(await control.stopClean({ site, device: 'inverter_1' }), true, 'the hold ended');
    assert.deepEqual(writes, ['inverter_1/battery_control_mode=normal', 'inverter_1/battery_control_mode=normal']);
  });

  test('a mode written together with its power and target (SDK 1.4) is one apply of the whole command', async () => {
    const applied: BatteryCommand[] = [];
    const control = batteryControl({
      limits: LIMITS,
      apply: ({ command }) => {
        applied.push(command);
        return Promise.resolve();
      },
      boundedOnDevice: true,
      now: Date.now,
    });
    const signal = new AbortController().signal;
    const together = { battery_control_power: 2500, battery_control_target_soc: 80 };
    await control.settings[0]!.write({ value: 'charge', label: 'Charge', signal, together } as never);
    assert.deepEqual(applied, [{ mode: 'charge', powerW: 2500, targetSoc: 80 }], 'one apply, the merged command');
    assert.deepEqual([control.values().battery_control_power, control.values().battery_control_target_soc], [2500, 80]);
    // A companion over the limit refuses the whole command: nothing applied, nothing kept.
    await assert.rejects(
      control.settings[0]!.write({
        value: 'charge',
        label: 'Charge',
        signal,
        together: { battery_control_power: 4000, battery_control_target_soc: 80 },
      } as never),
      /charge power 4000 W is above the battery's max charge power 3000 W/,
    );
    assert.equal(applied.length, 1);
    assert.deepEqual(control.current(), { mode: 'charge', powerW: 2500, targetSoc: 80 });
  });

  test('modes by identifier: one copy of the labels', () => {
    assert.deepEqual(BATTERY_MODES.map(batteryModeLabel), ['Normal', 'Hold', 'Charge', 'Discharge']);
    assert.deepEqual(['Charge', 'charge', ' HOLD ', 'Normal', 'Discharge', 'Boost', null, 3].map(batteryModeOf), [
      'charge',
      'charge',
      'hold',
      'normal',
      'discharge',
      null,
      null,
      null,
    ]);
  });

  test('an initial power or target that no longer fits the limits falls back to full power to 100 %', () => {
    const rest = { apply: async () => {}, boundedOnDevice: true, now: Date.now };
    const shown = (initial: Partial<BatteryCommand>) => {
      const v = batteryControl({ limits: LIMITS, initial, ...rest }).values();
      return [v.battery_control_mode, v.battery_control_power, v.battery_control_target_soc];
    };
    assert.deepEqual(shown({ powerW: 5000, targetSoc: 80 }), ['Normal', 5000, 80], 'the largest power fits');
    assert.deepEqual(shown({ powerW: 2000, targetSoc: 10, mode: 'charge' }), ['Normal', 2000, 10], 'never forced');
    assert.deepEqual(shown({ powerW: 5001, targetSoc: 80 }), ['Normal', 5000, 100], 'above the largest power');
    assert.deepEqual(shown({ powerW: 2000, targetSoc: 9 }), ['Normal', 5000, 100], 'below the minimum SOC');
  });

  test('limits: each nonsense named, the edges accepted', () => {
    const rest = { apply: async () => {}, boundedOnDevice: true, now: Date.now };
    const make = (limits: Partial<BatteryLimits>) => batteryControl({ limits: { ...LIMITS, ...limits }, ...rest });
    assert.throws(() => make({ maxChargeW: -1 }), /battery control: maxChargeW and maxDischargeW must be 0 or more/);
    assert.throws(() => make({ maxDischargeW: -1 }), /maxChargeW and maxDischargeW must be 0 or more/);
    assert.throws(() => make({ minSoc: -1 }), /battery control: minSoc must be from 0 to 100, not -1/);
    assert.throws(() => make({ modes: ['normal', 'boost' as BatteryMode] }), /battery control: unknown mode "boost"/);
    // A device that only discharges (max charge 0), one that only charges, a minimum SOC at either end.
    assert.equal(make({ maxChargeW: 0 }).values().battery_max_charge_power, 0);
    assert.equal(make({ maxDischargeW: 0 }).values().battery_max_discharge_power, 0);
    assert.equal(make({ minSoc: 0 }).values().battery_min_soc, 0);
    assert.equal(make({ minSoc: 100 }).values().battery_min_soc, 100);
    assert.equal(make({ modes: ['normal', 'hold', 'charge', 'discharge'] }).settings[0]!.options?.length, 4);
  });

  test('commandProblem: the messages, and the edges that fit', () => {
    const all: BatteryLimits = { ...LIMITS, modes: ['normal', 'hold', 'charge', 'discharge'] };
    assert.equal(
      commandProblem(LIMITS, { mode: 'discharge', powerW: 1000, targetSoc: 50 }),
      'this device does not support the mode discharge',
    );
    assert.equal(
      commandProblem(all, { mode: 'charge', powerW: -1, targetSoc: 50 }),
      'power must be 0 W or more, not -1',
    );
    assert.equal(
      commandProblem(all, { mode: 'hold', powerW: Number.NaN, targetSoc: 50 }),
      'power must be 0 W or more, not NaN',
    );
    assert.equal(
      commandProblem(all, { mode: 'charge', powerW: 1000, targetSoc: 101 }),
      "target SOC 101 % is outside the battery's range 10..100 %",
    );
    assert.equal(commandProblem(all, { mode: 'charge', powerW: 0, targetSoc: 10 }), null, 'the minimum SOC fits');
    assert.equal(commandProblem(all, { mode: 'discharge', powerW: 5000, targetSoc: 10 }), null, 'the max power fits');
    // The other modes carry the power along: no limit applies to it.
    assert.equal(commandProblem(all, { mode: 'hold', powerW: 6000, targetSoc: 50 }), null);
    assert.equal(
      commandProblem(
        { ...all, maxChargeW: 5000, maxDischargeW: 3000 },
        { mode: 'charge', powerW: 4000, targetSoc: 90 },
      ),
      null,
      'the charge limit is the one for a charge',
    );
  });

  test('the config field a driver offers: its form (titles, descriptions, defaults, ranges) and what it accepts', () => {
    assert.deepEqual(z.toJSONSchema(batteryConfigSchema, { io: 'input', unrepresentable: 'any' }), {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      title: 'Battery control',
      description: 'The battery behind the inverter, for battery control. Without it, none is offered.',
      properties: {
        capacityKwh: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: 1000,
          title: 'Usable capacity',
          description: 'Usable capacity of the battery in kWh.',
        },
        maxChargeW: {
          type: 'integer',
          minimum: 0,
          maximum: 100000,
          default: 5000,
          title: 'Max charge power',
          description: 'Largest charging power in W.',
        },
        maxDischargeW: {
          type: 'integer',
          minimum: 0,
          maximum: 100000,
          default: 5000,
          title: 'Max discharge power',
          description: 'Largest discharging power in W.',
        },
        minSoc: {
          type: 'integer',
          minimum: 0,
          maximum: 100,
          default: 20,
          title: 'Minimum state of charge',
          description: 'The battery is never discharged below this state of charge (%).',
        },
      },
      required: ['capacityKwh'],
      additionalProperties: false,
    });
    assert.deepEqual(batteryConfigSchema.parse({ capacityKwh: 10.24 }), {
      capacityKwh: 10.24,
      maxChargeW: 5000,
      maxDischargeW: 5000,
      minSoc: 20,
    });
    const edges = { capacityKwh: 1000, maxChargeW: 100_000, maxDischargeW: 0, minSoc: 100 };
    assert.deepEqual(batteryConfigSchema.parse(edges), edges);
    assert.deepEqual(batteryConfigSchema.parse({ ...edges, maxChargeW: 0, maxDischargeW: 100_000, minSoc: 0 }), {
      ...edges,
      maxChargeW: 0,
      maxDischargeW: 100_000,
      minSoc: 0,
    });
    for (const wrong of [
      { capacityKwh: 0 },
      { capacityKwh: 1001 },
      { capacityKwh: 10, maxChargeW: 100_001 },
      { capacityKwh: 10, maxDischargeW: -1 },
      { capacityKwh: 10, minSoc: 101 },
      { capacityKwh: 10, extra: 1 },
    ])
      assert.equal(batteryConfigSchema.safeParse(wrong).success, false, JSON.stringify(wrong));
  });

  test('a stored command of any mode is read back; a damaged one is not', async () => {
    const stored = (value: unknown): PluginStore => ({
      get: <T>() => Promise.resolve(value as T),
      set: async () => {},
      delete: async () => {},
    });
    for (const mode of ['normal', 'hold', 'charge', 'discharge'] as const) {
      const command = { mode, powerW: 2000, targetSoc: 80 };
      assert.deepEqual(await loadBatteryCommand(stored(command)), command);
      assert.equal(batteryCommandSchema.safeParse(command).success, true);
    }
    assert.equal(await loadBatteryCommand(stored({ mode: 'boost', powerW: 2000, targetSoc: 80 })), undefined);
    assert.equal(await loadBatteryCommand(stored(undefined)), undefined);
  });
});
