// The battery planner commanding a Solis hybrid (its emulator, over RTU over TCP) through a
// cheap night and a dear evening with a manual clock shared by the server and the emulator:
// the remote control registers show the commanded force charge at night (holding 43135 = 1 at
// a power in 43136), each under an RC timeout (43282) of at most 30 minutes that the planner's
// renewals keep running, and none at the evening peak; the emulator's battery follows, and the
// stop leaves the inverter without a force. Prices and the PV forecast come from the simulator
// (one inverter, no battery).
import assert from 'node:assert/strict';
import { SolisDevice } from '@heliograph/plugin-solis/emulator';
import { plannerFamilyContract } from './planner-family.js';

/** The remote control registers as the emulator holds them (Pho3niX90/solis_modbus RC_*_REG). */
function rc(device: SolisDevice) {
  const [force] = device.readHoldingRegisters({ address: 43135, count: 1 });
  const [chargePower] = device.readHoldingRegisters({ address: 43136, count: 1 });
  const [timeoutMin] = device.readHoldingRegisters({ address: 43282, count: 1 });
  return { force: force!, chargeW: chargePower! * 10, timeoutMin: timeoutMin! };
}

plannerFamilyContract({
  family: 'a Solis hybrid',
  test: 'force charges through the RC registers at night and spends the battery at the evening peak',
  driver: {
    id: 'solis',
    config: { timeoutMs: 400, battery: { capacityKwh: 5, maxChargeW: 3000, maxDischargeW: 3000, minSoc: 20 } },
    transport: 'rtu-over-tcp',
  },
  start: (now) => {
    const device = new SolisDevice({ now, soc: 30 });
    return { units: new Map([[1, device]]), read: () => rc(device) };
  },
  charging: (c) => c.force === 1 && c.chargeW > 0,
  forced: (c) => c.force !== 0,
  evidence: (held) =>
    assert.ok(
      held.every((c) => c.chargeW <= 3000 && c.timeoutMin >= 1 && c.timeoutMin <= 30),
      `each within the max charge power, under an RC timeout of at most 30 min: ${JSON.stringify(held)}`,
    ),
  stopped: (c) => assert.equal(c.force, 0, 'the stop leaves the inverter without a force'),
});
