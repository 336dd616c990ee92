// The planner's night-and-evening contract for a driver family whose emulated device shows
// forced grid charging in its registers: a family test is a definition (its emulator and
// driver entry, how its registers read, what grid charging looks like in them) and its
// evidence (what every charging sample and the stopped device must show), not a copy.
import { describe, test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import type { ModbusDevice } from '@heliograph/plugins-sdk/emulator';
import { deviceGoneTest, EVENING_BEFORE, plannerCommandsDevice, startWithModbusDevice } from './planner-setup.js';
import { startWithUnit, type ModbusDevicePlugin } from './planner-setup.js';

/** A driver family under the planner, with `S` the sample its registers read as. */
export interface PlannerFamily<S> {
  /** The device, for the suite's name: `a Huawei SUN2000`. */
  family: string;
  /** The test's name: how the device charges at night. */
  test: string;
  /** The driver's plugins.json entry (its `plugin` by default its `id`, its devices `inverter_2` and `battery_1`). */
  driver: Pick<ModbusDevicePlugin, 'id' | 'config' | 'transport'> & { plugin?: string };
  /** The emulated device on the test's clock `now`: its units and how its registers read now. */
  start: (now: () => Date) => { units: ModbusDevicePlugin['units']; read: () => S };
  /** Grid charging as the registers have it: every sample where it holds is kept for `evidence`. */
  charging: (s: S) => boolean;
  /** What must hold as well for a charging sample to count as the night's charging (the battery taking power); by default nothing. */
  flowing?: (s: S) => boolean;
  /** Forced by hand at the end: whether the registers show it. */
  forced: (s: S) => boolean;
  /** Asserts what every kept charging sample must show (power within the limits, a bounded lease). */
  evidence: (held: S[]) => void;
  /** Asserts what the registers must show after the server stopped. */
  stopped: (s: S) => void;
}

/** The suite of `family`: {@link plannerCommandsDevice} on its emulator, then its evidence. */
export function plannerFamilyContract<S>(family: PlannerFamily<S>): void {
  const clock = new ManualClock(EVENING_BEFORE);
  describe(`battery planner on ${family.family}`, () => {
    test(family.test, async () => {
      const { units, read } = family.start(() => new Date(clock.now()));
      const { id, plugin = id, config, transport } = family.driver;
      const devices = ['inverter_2', 'battery_1'];
      const { server } = await startWithModbusDevice(clock, { id, plugin, devices, config, transport, units });
      try {
        const held: S[] = [];
        await plannerCommandsDevice(server, clock, {
          instance: id,
          charging: () => {
            const s = read();
            const on = family.charging(s);
            if (on) held.push(s);
            return on && (family.flowing?.(s) ?? true);
          },
          forced: () => family.forced(read()),
        });
        family.evidence(held);
      } finally {
        await server.close();
      }
      family.stopped(read());
    });
  });
}

/**
 * A driver family whose unit (unit id 1, over Modbus TCP) runs forced commands by the test's
 * clock, under the planner: `D` its emulated device.
 */
export interface PlannerUnitFamily<D extends ModbusDevice> {
  /** The device, for the suite's name: `a Deye inverter`. */
  family: string;
  /** The test's name: how the device charges at night. */
  test: string;
  /** The driver: its plugin and its instance's id. */
  id: string;
  /** The driver's `battery` config. */
  battery: Record<string, number>;
  /** The emulated unit on the test's clock `now`. */
  make: (now: () => Date) => D;
  /** Grid charging as the unit's registers have it now. */
  charging: (device: D) => boolean;
}

/**
 * The suite of `family`: {@link plannerCommandsDevice} on its unit, then {@link deviceGoneTest},
 * both on one clock from {@link EVENING_BEFORE}.
 */
export function plannerUnitContract<D extends ModbusDevice>(family: PlannerUnitFamily<D>): void {
  const clock = new ManualClock(EVENING_BEFORE);
  const { id, battery } = family;
  const start = (plannerConfig: Record<string, unknown> = {}) =>
    startWithUnit(
      clock,
      id,
      family.make(() => new Date(clock.now())),
      battery,
      plannerConfig,
    );
  describe(`battery planner on ${family.family}`, () => {
    test(family.test, async () => {
      const { device, server } = await start();
      try {
        await plannerCommandsDevice(server, clock, { instance: id, charging: () => family.charging(device) });
      } finally {
        await server.close();
      }
    });

    deviceGoneTest(start);
  });
}
