// Issue 43's fail-safe on a Huawei SUN2000 with a LUNA2000: the real server (a child process)
// has the emulator grid charge through the forcible charge/discharge, then the link goes
// silent, the server is killed (SIGKILL) or stopped (SIGTERM). What the device does is read
// from its registers as wlcrs/huawei-solar-lib's registers.py places them: the forcible command
// at 47100 (0 stop, 1 charge, 2 discharge) and its charge power at 47247 (U32 W), the storage's
// charge/discharge power at 37765 (I32, + charging) and the meter's active power at 37113 (I32,
// + feeding the grid). The forcible period runs on the emulator's own clock, which the tests
// move on to let a lease run out.
import { HuaweiDevice } from '@heliograph/plugin-huawei/emulator';
import { type DeviceReading, driverEntry, leaseOnDeviceTests, onModbusUnitAtNight } from './fail-safe-setup.js';

const s32 = ([high, low]: number[]) => ((high! << 16) | low!) >> 0;

/**
 * What the inverter does now by its registers: a forced charge is the forcible command 1 at a
 * power above 0 with the battery taking power; normal is the command stopped, the battery not
 * charging at night and nothing fed to the grid (it covers at most the house).
 */
function readHuawei(device: HuaweiDevice): DeviceReading {
  const words = (address: number, count: number) => device.readHoldingRegisters({ address, count });
  const [command] = words(47100, 1);
  const chargePowerW = s32(words(47247, 2));
  const batteryW = s32(words(37765, 2));
  const meterW = s32(words(37113, 2));
  const seen = { command, period: words(47083, 1)[0], chargePowerW, batteryW, meterW };
  if (command === 1 && chargePowerW > 0 && batteryW > 0) return { mode: 'charge', seen };
  return { mode: command === 0 && batteryW <= 0 && meterW <= 0 ? 'normal' : 'other', seen };
}

leaseOnDeviceTests('huawei', () =>
  onModbusUnitAtNight({
    plugin: driverEntry('huawei', { timeoutMs: 300, connectDelayMs: 100 }, ['inverter_1']),
    transport: 'tcp',
    unit: 1,
    make: (options) => new HuaweiDevice(options),
    powerW: 2000,
    read: readHuawei,
  }),
);
