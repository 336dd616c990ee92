// The battery planner commanding a Growatt SPH (its emulator, over Modbus TCP) through a cheap
// night and a dear evening with a manual clock shared by the server and the emulator: slot 1
// of battery first with AC charge, which the emulator runs by its clock, grid charges at night
// and not at the evening peak, and the emulator's battery follows. Each forced command is a
// lease of 30 min on the unit, renewed by the planner. Prices and the PV forecast come from the
// simulator (one inverter, no battery).
import { GrowattDevice } from '@heliograph/plugin-growatt/emulator';
import { plannerUnitContract } from './planner-family.js';

plannerUnitContract({
  family: 'a Growatt SPH',
  test: 'charges through a battery-first slot at night and spends the battery at the evening peak',
  id: 'growatt',
  battery: { capacityKwh: 6.5, maxChargeW: 3000, maxDischargeW: 3000, minSoc: 20 },
  make: (now) => new GrowattDevice({ now, soc: 30, peakPvW: 300 }),
  // Grid charging as the emulator's slots have it now: battery first in force with AC charge on.
  charging: (device) => device.settings.priority === 1 && device.settings.gridCharge === 1,
});
