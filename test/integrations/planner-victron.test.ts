// The battery planner commanding a Victron GX (its emulator, over Modbus TCP) through a cheap
// night and a dear evening with a manual clock shared by the server and the emulator: Dynamic
// ESS schedule slot 0 on unit 100 (victronenergy/dbus_modbustcp attributes.csv: 5424..5430,
// /DynamicEss/Active 5400) shows the commanded grid charging at night, each time as a window
// that ends at most 30 minutes on by the GX's clock (830) and that the planner's renewals move
// on, and none at the evening peak; the emulator's battery follows, and the stop leaves the GX
// without a window. Prices and the PV forecast come from the simulator (one inverter, no battery).
import assert from 'node:assert/strict';
import type { ModbusDevice } from '@heliograph/plugins-sdk/emulator';
import { victronUnits, VictronSite } from '@heliograph/plugin-victron/emulator';
import { plannerFamilyContract } from './planner-family.js';

const signed = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);

/** Slot 0, whether Dynamic ESS runs a window, the GX's time (s) and the battery, from unit 100's registers. */
function slot(system: ModbusDevice) {
  const read = (address: number, count: number) => system.readHoldingRegisters({ address, count });
  const [feedIn, durationS, restrictions, soc, startHigh, startLow, strategy] = read(5424, 7);
  const clockWords = read(830, 4);
  const [batteryWord, batterySoc] = read(842, 2);
  return {
    active: read(5400, 1)[0]!,
    feedIn: feedIn!,
    durationS: durationS!,
    restrictions: restrictions!,
    soc: soc!,
    start: startHigh! * 0x10000 + startLow!,
    strategy: strategy!,
    nowS: clockWords[2]! * 0x10000 + clockWords[3]!,
    batteryW: signed(batteryWord!),
    batterySoc: batterySoc!,
  };
}

plannerFamilyContract({
  family: 'a Victron GX',
  test: 'charges from the grid through Dynamic ESS slot 0 at night and spends the battery at the evening peak',
  driver: {
    id: 'gx',
    plugin: 'victron',
    config: {
      timeoutMs: 400,
      batteryUnit: 225,
      battery: { capacityKwh: 10, maxChargeW: 5000, maxDischargeW: 5000, minSoc: 20 },
    },
    transport: 'tcp',
  },
  start: (now) => {
    const units = victronUnits(new VictronSite({ now, soc: 30 }));
    const system = units.get(100)!;
    return { units, read: () => slot(system) };
  },
  // Grid charging as Dynamic ESS runs it: a Target SOC window in force above the battery's SOC,
  // grid to battery not restricted, the battery taking power.
  charging: (s) => s.active === 1 && s.strategy === 0 && s.soc > s.batterySoc && (s.restrictions & 2) === 0,
  flowing: (s) => s.batteryW > 0,
  forced: (s) => s.start !== 0,
  evidence: (held) =>
    assert.ok(
      held.every((s) => s.start <= s.nowS && s.start + s.durationS - s.nowS <= 1800),
      `each window ends within 30 min of the GX's time: ${JSON.stringify(held)}`,
    ),
  stopped: (s) => assert.equal(s.start, 0, 'the stop leaves slot 0 without a window'),
});
