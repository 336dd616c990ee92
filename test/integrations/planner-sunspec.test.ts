// The battery planner commanding a SunSpec hybrid inverter (its emulator, over Modbus TCP)
// through a cheap night and a dear evening with a manual clock shared by the server and the
// emulator: model 124's registers show the commanded grid charging at night (StorCtl_Mod
// with a negative OutWRte, ChaGriSet on), each time under a revert timeout of at most 30
// minutes that the planner's renewals keep running, and none at the evening peak; the
// emulator's battery follows, and the stop leaves the device normal. Prices and the PV
// forecast come from the simulator (one inverter, no battery).
import assert from 'node:assert/strict';
import { SunSpecDevice } from '@heliograph/plugin-sunspec/emulator';
import { plannerFamilyContract } from './planner-family.js';

const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);

/**
 * Model 124's control points as the emulator's registers hold them: StorCtl_Mod, OutWRte and
 * InWRte in %, InOutWRte_RvrtTms in s, ChaGriSet.
 */
function controls(device: SunSpecDevice) {
  const data = device.readHoldingRegisters({ address: device.storageAddress + 2, count: 16 });
  const pct = (word: number) => signed(word) / 100; // InOutWRte_SF -2
  return { mode: data[3]!, out: pct(data[10]!), in: pct(data[11]!), revertS: data[13]!, grid: data[15]! };
}

plannerFamilyContract({
  family: 'a SunSpec inverter',
  test: 'charges from the grid through model 124 at night and spends the battery at the evening peak',
  driver: {
    id: 'sunspec',
    config: { timeoutMs: 400 },
    transport: 'tcp',
  },
  start: (now) => {
    const device = new SunSpecDevice({ now, soc: 30 });
    return { units: new Map([[1, device]]), read: () => controls(device) };
  },
  // Grid charging as model 124 has it: the discharge limit on with a negative OutWRte (forced
  // charging), from the grid (ChaGriSet 1).
  charging: (c) => (c.mode & 2) === 2 && c.out < 0 && c.grid === 1,
  forced: (c) => c.mode !== 0,
  evidence: (held) => {
    assert.ok(
      held.every((c) => c.mode === 3 && c.in === -c.out && c.out >= -100),
      `forced charging within WChaMax: ${JSON.stringify(held)}`,
    );
    assert.ok(
      held.every((c) => c.revertS > 0 && c.revertS <= 1800),
      `each under a revert timeout of at most 30 min: ${JSON.stringify(held)}`,
    );
  },
  stopped: (c) => assert.equal(c.mode, 0, 'the stop leaves model 124 without limits'),
});
