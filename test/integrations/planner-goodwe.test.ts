// The battery planner commanding a GoodWe ET (its emulator, over Modbus RTU over TCP) through a
// cheap night and a dear evening with a manual clock shared by the server and the emulator:
// the eco mode group the emulator runs by its clock grid charges at night (work_mode 47000 = 3
// Eco, eco_mode_1 at 47547 in force at a negative power: marcelblijleven/goodwe goodwe/et.py
// and goodwe/sensor.py `Schedule`), each time a window of at most 30 minutes that the planner's
// renewals move on, and not at the evening peak; the emulator's battery follows, and the stop
// leaves the device in General. Prices and the PV forecast come from the simulator (one
// inverter, no battery).
import assert from 'node:assert/strict';
import { GoodweDevice } from '@heliograph/plugin-goodwe/emulator';
import { plannerFamilyContract } from './planner-family.js';

const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);
const minutes = (word: number) => (word >> 8) * 60 + (word & 0xff);

/** The work mode, eco group 1 (on, its power, its window in minutes) and whether a group is in force by the device's clock. */
function eco(device: GoodweDevice) {
  const [workMode] = device.readHoldingRegisters({ address: 47000, count: 1 });
  const g = device.readHoldingRegisters({ address: 47547, count: 6 });
  return {
    workMode: workMode!,
    groupOn: g[2]! >> 8 === 0xff,
    power: signed(g[3]!),
    windowMin: (minutes(g[1]!) - minutes(g[0]!) + 1440) % 1440,
    inForce: device.programNow() !== null,
  };
}

plannerFamilyContract({
  family: 'a GoodWe ET',
  test: 'charges through eco group 1 at night and spends the battery at the evening peak',
  driver: {
    id: 'goodwe',
    config: { timeoutMs: 400, battery: { capacityKwh: 10, maxChargeW: 5000, maxDischargeW: 5000, minSoc: 10 } },
    transport: 'rtu-over-tcp',
  },
  start: (now) => {
    const device = new GoodweDevice({ now, soc: 30, peakPvW: 300 });
    return { units: new Map([[0xf7, device]]), read: () => eco(device) };
  },
  // Grid charging as the registers have it: Eco, group 1 on and in force by the device's clock, a charging power.
  charging: (e) => e.workMode === 3 && e.groupOn && e.power < -1 && e.inForce,
  forced: (e) => e.workMode === 3,
  evidence: (held) =>
    assert.ok(
      held.every((e) => e.windowMin > 0 && e.windowMin <= 30),
      `each window at most 30 min: ${held.map((e) => e.windowMin).join(' ')}`,
    ),
  stopped: (e) => {
    assert.equal(e.workMode, 0, 'the stop leaves the work mode General');
    assert.equal(e.inForce, false, 'and no group in force');
  },
});
