// Issue 43's fail-safe on a Solis hybrid: the real server (a child process) has the Solis
// emulator force charge through its remote control registers, then the link goes silent, the
// server is killed (SIGKILL) or stopped (SIGTERM). What the inverter does is read from its
// registers as the public sources place them: holding 43135 the force (0 none, 1 charge, 2
// discharge), 43136 the charge power (W / 10) and 43282 the RC timeout in minutes
// (Pho3niX90/solis_modbus `__init__.py` RC_*_REG); input 33135 the battery's direction (0
// charging, 1 discharging) and 33149-33150 its power (ha-solarman `solis_hybrid.yaml`), and
// 33263-33264 the meter's total active power, + export (Pho3niX90 `hybrid_sensors.py`). The
// RC timeout runs on the emulator's own clock, which the tests move on to let a lease run out.
import { SolisDevice } from '@heliograph/plugin-solis/emulator';
import { type DeviceReading, driverEntry, leaseOnDeviceTests, onModbusUnitAtNight } from './fail-safe-setup.js';

const s32 = ([high, low]: number[]) => ((high! << 16) | low!) >> 0;

/**
 * What the inverter does now by its registers: a forced charge is 43135 = 1 at a power above
 * 0 with the battery charging; normal is no force, the battery not charging at night and
 * nothing sent to the grid (it covers at most the house).
 */
function readSolis(device: SolisDevice): DeviceReading {
  const holding = (address: number, count = 1) => device.readHoldingRegisters({ address, count });
  const input = (address: number, count = 1) => device.readInputRegisters({ address, count });
  const [force] = holding(43135);
  const [chargePower] = holding(43136);
  const [timeoutMin] = holding(43282);
  const charging = input(33135)[0] === 0;
  const batteryW = s32(input(33149, 2)) * (charging ? 1 : -1); // + charging
  const meterW = s32(input(33263, 2)); // + export
  const seen = { force, chargeW: chargePower! * 10, timeoutMin, batteryW, meterW };
  if (force === 1 && chargePower! > 0 && batteryW > 0) return { mode: 'charge', seen };
  return { mode: force === 0 && batteryW <= 0 && meterW <= 0 ? 'normal' : 'other', seen };
}

leaseOnDeviceTests('solis', () =>
  onModbusUnitAtNight({
    plugin: driverEntry('solis', {
      timeoutMs: 300,
      battery: { capacityKwh: 5, maxChargeW: 3000, maxDischargeW: 3000, minSoc: 20 },
    }),
    transport: 'rtu-over-tcp',
    unit: 1,
    make: (options) => new SolisDevice(options),
    powerW: 1500,
    read: readSolis,
  }),
);
