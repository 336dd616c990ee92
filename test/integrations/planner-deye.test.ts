// The battery planner commanding a Deye inverter (its emulator, over Modbus TCP) through a
// cheap night and a dear evening with a manual clock shared by the server and the emulator:
// the time-of-use program the emulator runs by its clock grid charges at night and not at the
// evening peak, and the emulator's battery follows. Each forced command is a lease of 30 min
// on the device, renewed by the planner. Prices and the PV forecast come from the simulator
// (one inverter, no battery).
import { DeyeDevice } from '@heliograph/plugin-deye/emulator';
import { plannerUnitContract } from './planner-family.js';

plannerUnitContract({
  family: 'a Deye inverter',
  test: 'charges through the time-of-use program at night and spends the battery at the evening peak',
  id: 'deye',
  battery: { capacityKwh: 5.12, maxChargeW: 2500, maxDischargeW: 2500, minSoc: 20 },
  make: (now) => {
    const device = new DeyeDevice({ now, soc: 30, peakPvW: 300 });
    // Zero export to CT: the clock moves an hour at a step, past the lease between two renewals;
    // in Selling first a Deye's timer would sell the battery in the self-use slot meanwhile.
    device.settings.workMode = 2;
    return device;
  },
  // Grid charging as the emulator's program has it now: the slot in force charges from the grid.
  charging: (device) => device.programNow()?.gridChargeToSoc != null,
});
