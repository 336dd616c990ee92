// Issue 43's fail-safe on a SunSpec hybrid inverter: the real server (a child process) has
// the SunSpec emulator grid charge through model 124, then the link goes silent, the server is
// killed (SIGKILL) or stopped (SIGTERM). What the device does is read from its registers as
// sunspec/models places the points (json/model_124.json, model_802.json, model_203.json):
// StorCtl_Mod, OutWRte, InWRte, ChaGriSet and InOutWRte_RvrtTms in model 124, the battery's W in
// model 802 (+ discharging), the grid meter's W in model 203 (+ import). The revert timeout runs
// on the emulator's own clock, which the tests move on to let a lease run out.
import { SunSpecDevice } from '@heliograph/plugin-sunspec/emulator';
import { modelsOf } from '../drivers/sunspec-layouts.js';
import { type DeviceReading, driverEntry, leaseOnDeviceTests, onModbusUnitAtNight } from './fail-safe-setup.js';

const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);

/**
 * What the inverter does now by its registers: a forced charge is the discharge limit on
 * (StorCtl_Mod bit 1) at a negative OutWRte with grid charging allowed, and the battery taking
 * power; normal is no limit in force (StorCtl_Mod 0), the battery not charging at night and no
 * power sent to the grid (it covers at most the house).
 */
function readSunSpec(device: SunSpecDevice): DeviceReading {
  const models = modelsOf(device);
  const storage = models.get(124)!.data; // InOutWRte_SF -2: rates in hundredths of a %
  const batteryW = signed(models.get(802)!.data[45]!); // W_SF 0
  const gridW = signed(models.get(203)!.data[16]!); // W_SF 0
  const seen = {
    storCtlMod: storage[3],
    outWRtePct: signed(storage[10]!) / 100,
    inWRtePct: signed(storage[11]!) / 100,
    rvrtTmsS: storage[13],
    chaGriSet: storage[15],
    batteryW,
    gridW,
  };
  if ((seen.storCtlMod! & 2) === 2 && seen.outWRtePct < 0 && seen.chaGriSet === 1 && batteryW < 0)
    return { mode: 'charge', seen };
  return { mode: seen.storCtlMod === 0 && batteryW >= 0 && gridW >= 0 ? 'normal' : 'other', seen };
}

leaseOnDeviceTests('sunspec', () =>
  onModbusUnitAtNight({
    plugin: driverEntry('sunspec', { timeoutMs: 300 }, ['inverter_1']),
    transport: 'tcp',
    unit: 1,
    make: (options) => new SunSpecDevice(options),
    powerW: 1500,
    read: readSunSpec,
  }),
);
