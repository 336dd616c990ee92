/**
 * An emulated GoodWe ET hybrid with its battery, built from the driver's own register map:
 * the site's flows are written into the registers through `registerMapImage` (grid + export
 * and battery + discharging, as GoodWe counts them).
 */
import { registerMapImage } from '@heliograph/plugins-sdk/connections';
import {
  clamp,
  EmulatedSite,
  householdLoad,
  imageWords,
  ModbusException,
  ModbusExceptionCode,
  sunFraction,
  type ModbusDevice,
} from '@heliograph/plugins-sdk/emulator';
import { goodweMap, WORK_MODES } from '../register-map.js';

/** Blocks the ET answers (goodwe reads 35100+125, 37000+24, and settings at 47000..47599). */
const READABLE = [
  [35000, 35299],
  [37000, 37099],
  [47000, 47599],
] as const;
const MAX_BATTERY_W = 5000;

export class GoodweDevice extends EmulatedSite implements ModbusDevice {
  workMode = 0;
  exportLimitW = 10_000;

  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    return imageWords(READABLE, address, count, () => this.image().holding);
  }

  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    const [value] = values;
    if (values.length !== 1 || value === undefined)
      throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    if (address === 47000 && value <= 5) this.workMode = value;
    else if (address === 47510 && value <= 10_000) this.exportLimitW = value;
    else if (address === 47000 || address === 47510)
      throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    else throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
  }

  private image() {
    const time = this.now();
    const hours = this.day.advance();
    const pv = Math.round(6000 * sunFraction(time));
    const load = householdLoad(time);
    let battery = clamp(pv - load, -MAX_BATTERY_W, MAX_BATTERY_W); // + charging
    if ((battery > 0 && this.soc >= 100) || (battery < 0 && this.soc <= 10)) battery = 0;
    let grid = load + battery - pv; // + import
    if (-grid > this.exportLimitW) grid = -this.exportLimitW; // PV throttled to the limit
    this.soc = clamp(this.soc + (battery * hours * 100) / 10_000, 0, 100);
    for (const [name, watts] of [
      ['pv', pv],
      ['charge', Math.max(battery, 0)],
      ['discharge', Math.max(-battery, 0)],
      ['load', load],
    ] as const)
      this.day.add(name, watts, hours);
    const volts = 50 + 0.06 * this.soc;
    const pv1 = Math.round(pv * 0.5);
    const inverter = {
      pv_voltage_1: pv > 0 ? 410 : 0,
      pv_current_1: pv > 0 ? Math.round((pv1 / 410) * 10) / 10 : 0,
      pv_power_1: pv1,
      pv_voltage_2: pv > 0 ? 405 : 0,
      pv_current_2: pv > 0 ? Math.round(((pv - pv1) / 405) * 10) / 10 : 0,
      pv_power_2: pv - pv1,
      grid_voltage: 231.4,
      grid_frequency: 49.99,
      output_power: Math.round(load - grid),
      grid_power: Math.round(grid),
      load_power: load,
      temperature: 41.3,
      battery_power: Math.round(battery),
      pv_energy_today: this.day.kWh('pv'),
      load_energy_today: this.day.kWh('load'),
      battery_charge_energy_today: this.day.kWh('charge'),
      battery_discharge_energy_today: this.day.kWh('discharge'),
      work_mode: WORK_MODES[this.workMode]!.label,
      grid_export_limit: this.exportLimitW,
    };
    const batteryValues = {
      voltage: Math.round(volts * 10) / 10,
      current: Math.round((battery / volts) * 10) / 10,
      power: Math.round(battery),
      temperature: 24.1,
      state_of_charge: Math.round(this.soc),
      state_of_health: 100,
    };
    return registerMapImage(goodweMap, { inverter, battery: batteryValues });
  }
}
