// The battery planner commanding a Deye inverter (its emulator, over Modbus TCP) through a
// cheap night and a dear evening with a manual clock shared by the server and the emulator:
// the time-of-use program the emulator runs by its clock grid charges at night and not at the
// evening peak, and the emulator's battery follows. Each forced command is a lease of 30 min
// on the device, renewed by the planner. Prices and the PV forecast come from the simulator
// (one inverter, no battery).
import { describe, test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { DeyeDevice } from '@heliograph/plugin-deye/emulator';
import { deviceGoneTest, EVENING_BEFORE, plannerCommandsDevice, startWithUnit } from './planner-setup.js';

const clock = new ManualClock(EVENING_BEFORE);

/** The deye emulator on the shared clock, the simulator for prices and forecast, the planner. */
function start(plannerConfig: Record<string, unknown> = {}) {
  const device = new DeyeDevice({ now: () => new Date(clock.now()), soc: 30, peakPvW: 300 });
  // Zero export to CT: the clock moves an hour at a step, past the lease between two renewals;
  // in Selling first a Deye's timer would sell the battery in the self-use slot meanwhile.
  device.settings.workMode = 2;
  const battery = { capacityKwh: 5.12, maxChargeW: 2500, maxDischargeW: 2500, minSoc: 20 };
  return startWithUnit(clock, 'deye', device, battery, plannerConfig);
}

describe('battery planner on a Deye inverter', () => {
  test('charges through the time-of-use program at night and spends the battery at the evening peak', async () => {
    const { device, server } = await start();
    try {
      // Grid charging as the emulator's program has it now: the slot in force charges from the grid.
      await plannerCommandsDevice(server, clock, {
        instance: 'deye',
        charging: () => device.programNow()?.gridChargeToSoc != null,
      });
    } finally {
      await server.close();
    }
  });

  deviceGoneTest(start);
});
