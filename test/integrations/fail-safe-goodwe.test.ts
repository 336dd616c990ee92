// Issue 43's fail-safe on a GoodWe ET: the real server (a child process) has the goodwe
// emulator grid charge through eco group 1, then the link goes silent, the server is killed
// (SIGKILL) or stopped (SIGTERM). The driver talks Modbus RTU over TCP to it (an RS485
// gateway; the emulator's other transport is the Wi-Fi module's UDP). What the device does is
// read from its registers as the goodwe library places them (marcelblijleven/goodwe
// goodwe/et.py): work_mode 47000 (3 Eco), eco_mode_1 at 47547 (EcoModeV2, goodwe/sensor.py
// `Schedule`: start and end hour/minute bytes, on/off byte and weekday bits, power s16 %
// negative charging, SOC), the inverter's clock at 45200 (Timestamp), pbattery1 at 35182 (s32,
// + discharging) and active_power at 35140 (s16, + export). The groups run on the emulator's
// own clock, which the tests move on to let a lease run out.
import { GoodweDevice } from '@heliograph/plugin-goodwe/emulator';
import { type DeviceReading, driverEntry, leaseOnDeviceTests, onModbusUnitAtNight } from './fail-safe-setup.js';

const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);

/**
 * What the inverter does now by its registers: a forced charge is work mode Eco with group 1
 * on, in force by the inverter's clock (its weekday bit, start <= minute < end), at a negative
 * power, and the battery taking power; normal is no group in force, the battery not charging
 * at night and no power sent to the grid (it covers at most the house).
 */
function readGoodwe(device: GoodweDevice): DeviceReading {
  const read = (address: number, count: number) => device.readHoldingRegisters({ address, count });
  const [workMode] = read(47000, 1);
  const g = read(47547, 6);
  const [ym, dh, ms] = read(45200, 3);
  const clock = new Date(2000 + (ym! >> 8), (ym! & 0xff) - 1, dh! >> 8, dh! & 0xff, ms! >> 8, ms! & 0xff);
  const minute = clock.getHours() * 60 + clock.getMinutes();
  const start = (g[0]! >> 8) * 60 + (g[0]! & 0xff);
  const end = (g[1]! >> 8) * 60 + (g[1]! & 0xff);
  const on = g[2]! >> 8 === 0xff && (g[2]! & (1 << clock.getDay())) !== 0;
  const inForce = workMode === 3 && on && minute >= start && minute < end;
  const [high, low] = read(35182, 2);
  const batteryW = ((high! << 16) | low!) >> 0; // + discharging
  const activeW = signed(read(35140, 1)[0]!); // + export
  const seen = { workMode, group1: g, clock: clock.toString(), inForce, power: signed(g[3]!), batteryW, activeW };
  if (inForce && signed(g[3]!) < -1 && batteryW < 0) return { mode: 'charge', seen };
  return { mode: !inForce && batteryW >= 0 && activeW <= 0 ? 'normal' : 'other', seen };
}

leaseOnDeviceTests('goodwe', () =>
  onModbusUnitAtNight({
    plugin: driverEntry('goodwe', {
      timeoutMs: 300,
      battery: { capacityKwh: 10, maxChargeW: 5000, maxDischargeW: 5000, minSoc: 10 },
    }),
    transport: 'rtu-over-tcp',
    unit: 0xf7,
    make: (options) => new GoodweDevice(options),
    powerW: 3000,
    read: readGoodwe,
  }),
);
