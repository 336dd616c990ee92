// Issue 43's fail-safe on a Victron GX: the real server (a child process) has the GX emulator
// grid charge through Dynamic ESS schedule slot 0, then the link goes silent, the server is
// killed (SIGKILL) or stopped (SIGTERM). What the GX does is read from its registers on unit 100
// as victronenergy/dbus_modbustcp attributes.csv places them: /DynamicEss/Active (5400), slot 0
// (5424 AllowGridFeedIn, 5425 Duration, 5426 Restrictions, 5427 Soc, 5428 Start int32, 5430
// Strategy), /Dc/Battery/Power (842, int16 W, + charging), /Dc/Battery/Soc (843) and
// /Ac/Grid/L1..L3/Power (820..822, int16 W, + import). The window ends by the emulator's own
// clock, which the tests move on to let a lease run out.
import type { ModbusDevice } from '@heliograph/plugins-sdk/emulator';
import { victronUnits, VictronSite } from '@heliograph/plugin-victron/emulator';
import { type DeviceReading, leaseOnDeviceTests, nightFrom, onModbusEmulator } from './fail-safe-setup.js';

const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);

/**
 * What the GX does now by its registers: a forced charge is a Dynamic ESS window in force
 * (Active 1) with a Target SOC (strategy 0) above the battery's SOC, grid to battery not
 * restricted, and the battery taking power from the grid; normal is no window in force, the
 * battery not charging at night and nothing sent to the grid (it covers at most the house).
 */
function readGx(system: ModbusDevice): DeviceReading {
  const read = (address: number, count: number) => system.readHoldingRegisters({ address, count });
  const [active] = read(5400, 1);
  const [feedIn, durationS, restrictions, slotSoc, startHigh, startLow, strategy] = read(5424, 7);
  const [batteryWord, soc] = read(842, 2);
  const gridW = read(820, 3)
    .map(signed)
    .reduce((a, b) => a + b, 0);
  const batteryW = signed(batteryWord!);
  const seen = {
    active,
    slot: { feedIn, durationS, restrictions, soc: slotSoc, start: startHigh! * 0x10000 + startLow!, strategy },
    soc,
    batteryW,
    gridW,
  };
  if (active === 1 && strategy === 0 && slotSoc! > soc! && (restrictions! & 2) === 0 && batteryW > 0 && gridW > 0)
    return { mode: 'charge', seen };
  return { mode: active === 0 && batteryW <= 0 && gridW >= 0 ? 'normal' : 'other', seen };
}

leaseOnDeviceTests('victron', async () => {
  // A winter evening on the GX: no sun, the night load.
  const site = new VictronSite({ now: nightFrom(new Date(2026, 11, 21, 21, 0)), soc: 50 });
  const units = victronUnits(site);
  return onModbusEmulator({
    plugin: {
      id: 'gx',
      plugin: 'victron',
      devices: ['inverter_1', 'battery_1'],
      config: {
        timeoutMs: 300,
        batteryUnit: 225,
        battery: { capacityKwh: 10, maxChargeW: 5000, maxDischargeW: 5000, minSoc: 20 },
      },
    },
    transport: 'tcp',
    units,
    clocked: site,
    powerW: 1500,
    targetSoc: 90,
    read: () => readGx(units.get(100)!),
  });
});
