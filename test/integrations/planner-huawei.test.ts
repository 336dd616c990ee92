// The battery planner commanding a Huawei SUN2000 with a LUNA2000 (its emulator, over Modbus
// TCP) through a cheap night and a dear evening with a manual clock shared by the server and
// the emulator: the forcible registers (wlcrs/huawei-solar-lib registers.py: 47100 command,
// 47247 charge power, 47083 period, 47246 setting mode) show the commanded grid charging at
// night, each time by duration for at most 30 minutes, which the planner's renewals keep
// running, and none at the evening peak; the emulator's battery follows, and the stop leaves
// the device stopped. Prices and the PV forecast come from the simulator (one inverter, no
// battery).
import assert from 'node:assert/strict';
import { HuaweiDevice } from '@heliograph/plugin-huawei/emulator';
import { plannerFamilyContract } from './planner-family.js';

/** The forcible registers as the emulator's registers hold them. */
function forcible(device: HuaweiDevice) {
  const words = (address: number, count: number) => device.readHoldingRegisters({ address, count });
  const [high, low] = words(47247, 2);
  return {
    command: words(47100, 1)[0]!,
    period: words(47083, 1)[0]!,
    settingMode: words(47246, 1)[0]!,
    chargeW: high! * 0x10000 + low!,
  };
}

plannerFamilyContract({
  family: 'a Huawei SUN2000',
  test: 'charges from the grid through the forcible charge at night and spends the battery at the evening peak',
  driver: {
    id: 'huawei',
    config: { timeoutMs: 400, connectDelayMs: 50 },
    transport: 'tcp',
  },
  start: (now) => {
    const device = new HuaweiDevice({ now, soc: 30 });
    return { units: new Map([[1, device]]), read: () => forcible(device) };
  },
  charging: (f) => f.command === 1 && f.chargeW > 0,
  forced: (f) => f.command !== 0,
  evidence: (held) => {
    assert.ok(
      held.every((f) => f.chargeW <= 4800),
      `within the LUNA2000's max charging power: ${JSON.stringify(held)}`,
    );
    assert.ok(
      held.every((f) => f.settingMode === 0 && f.period >= 1 && f.period <= 30),
      `each by duration for at most 30 min: ${JSON.stringify(held)}`,
    );
  },
  stopped: (f) => assert.equal(f.command, 0, 'the stop leaves the forcible charge/discharge stopped'),
});
