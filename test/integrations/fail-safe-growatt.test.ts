// Issue 43's fail-safe on Growatt storage inverters (SPH hybrid and SPA AC-coupled): the real
// server (a child process) has the emulator grid charge through slot 1 of battery first, then
// the link goes silent, the server is killed (SIGKILL) or stopped (SIGTERM). What the unit does
// is read from its registers as the Growatt Inverter Modbus RTU Protocol v1.24 places them,
// independently of the driver's map: holding 45..50 its clock (year − 2000, month, day, hour,
// minute, second; growatt_local's read_device_time in WouterTuinstra/Homeassistant-Growatt-
// Local-Modbus API/growatt.py), "Priority set" 1080..1088 and 1100..1108 the grid-first and battery-first slots (start and stop: hour in the high byte,
// minute in the low byte; a switch, Enable 1), 1091 battery-first stop SOC, 1092 AC charge
// switch; input 1009-1010 Pdischarge1, 1011-1012 Pcharge1, 1029-1030 Pactogrid total (u32 in
// 0.1 W). The slots run on the emulator's own clock, which the tests move on to let a lease run
// out.
import { GrowattDevice, type GrowattEmulatorModel } from '@heliograph/plugin-growatt/emulator';
import { type DeviceReading, driverEntry, leaseOnDeviceTests, onModbusUnitAtNight } from './fail-safe-setup.js';

const BATTERY = { capacityKwh: 6.5, maxChargeW: 3000, maxDischargeW: 3000, minSoc: 20 };

/**
 * What the unit does now by its registers: the slot in force at the time on its clock (battery
 * first, then grid first; outside every slot load first); grid charging is battery first with
 * AC charge on towards the target and the battery taking power; normal is no slot in force, the
 * battery not charging at night and nothing sent to the grid (it covers at most the house).
 */
function readGrowatt(device: GrowattDevice, targetSoc: number): DeviceReading {
  const holding = (address: number, count: number) => device.readHoldingRegisters({ address, count });
  const u32 = (address: number) => {
    const [high, low] = device.readInputRegisters({ address, count: 2 });
    return (high! * 0x10000 + low!) / 10;
  };
  const [, , , hour, minute] = holding(45, 6) as [number, number, number, number, number, number];
  const now = hour * 60 + minute;
  const minutes = (word: number) => (word >> 8) * 60 + (word & 0xff);
  const inForce = (base: number) =>
    [0, 3, 6].some((i) => {
      const [start, stop, enabled] = holding(base + i, 3) as [number, number, number];
      const [from, to] = [minutes(start), minutes(stop)];
      return enabled === 1 && (from <= to ? now >= from && now < to : now >= from || now < to);
    });
  const batteryFirst = inForce(1100);
  const gridFirst = !batteryFirst && inForce(1080);
  const [stopSoc, acCharge] = holding(1091, 2) as [number, number];
  const flows = { charge: u32(1011), discharge: u32(1009), gridExport: u32(1029) };
  const seen = {
    clock: `${hour}:${String(minute).padStart(2, '0')}`,
    batteryFirst: holding(1100, 3),
    gridFirst: holding(1080, 3),
    stopSoc,
    acCharge,
    ...flows,
  };
  if (batteryFirst && acCharge === 1 && stopSoc === targetSoc && flows.charge > 0 && flows.discharge === 0)
    return { mode: 'charge', seen };
  const normal = !batteryFirst && !gridFirst && flows.charge === 0 && flows.gridExport === 0;
  return { mode: normal ? 'normal' : 'other', seen };
}

/** The emulator as `model` on a winter evening: the forced slots stay before midnight. */
function growatt(model: GrowattEmulatorModel) {
  return onModbusUnitAtNight({
    plugin: driverEntry('growatt', { timeoutMs: 400, battery: BATTERY }),
    transport: 'tcp',
    unit: 1,
    make: (options) => new GrowattDevice({ ...options, model }),
    powerW: 2000,
    read: readGrowatt,
  });
}

leaseOnDeviceTests('growatt SPH', () => growatt('sph'));
leaseOnDeviceTests('growatt SPA', () => growatt('spa'));
