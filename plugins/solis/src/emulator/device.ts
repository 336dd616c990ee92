/**
 * An emulated Solis hybrid with its battery, built from the driver's own register map: the
 * site's flows are written into the registers through `registerMapImage`, battery power as
 * a magnitude with the direction register, as the device gives it.
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
import { solisMap, STORAGE_MODES } from '../register-map.js';

const READABLE = { input: [[33000, 33299]], holding: [[43000, 43299]] } as const;
const MAX_BATTERY_W = 3000;

export class SolisDevice extends EmulatedSite implements ModbusDevice {
  /** Register value of the storage control mode (43110). */
  storageMode = 0x21;

  readInputRegisters({ address, count }: { address: number; count: number }): number[] {
    return imageWords(READABLE.input, address, count, () => this.image().input);
  }

  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    return imageWords(READABLE.holding, address, count, () => this.image().holding);
  }

  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    if (address !== 43110 || values.length !== 1)
      throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
    if (!STORAGE_MODES.some((m) => m.value === values[0]))
      throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    this.storageMode = values[0]!;
  }

  private image() {
    const time = this.now();
    const hours = this.day.advance();
    const pv = Math.round(5000 * sunFraction(time));
    const load = householdLoad(time);
    // Self use: the battery takes the surplus and covers the shortfall; off-grid never imports.
    let battery = clamp(pv - load, -MAX_BATTERY_W, MAX_BATTERY_W); // + charging
    if ((battery > 0 && this.soc >= 100) || (battery < 0 && this.soc <= 10)) battery = 0;
    if (this.storageMode === 0x23) battery = 0; // time of use outside its slots: idle
    const output = pv - battery; // AC the inverter delivers (+) or draws (−)
    const grid = load - output;
    this.soc = clamp(this.soc + (battery * hours * 100) / 5000, 0, 100);
    for (const [name, watts] of [
      ['pv', pv],
      ['charge', Math.max(battery, 0)],
      ['discharge', Math.max(-battery, 0)],
      ['import', Math.max(grid, 0)],
      ['export', Math.max(-grid, 0)],
      ['load', load],
    ] as const)
      this.day.add(name, watts, hours);
    const volts = 48 + 0.08 * this.soc;
    const direction = battery >= 0 ? 0 : 1;
    const magnitude = Math.abs(battery);
    const inverter = {
      pv_energy_today: this.day.kWh('pv'),
      pv_voltage_1: pv > 0 ? 380 : 0,
      pv_current_1: pv > 0 ? Math.round((pv * 0.5 * 10) / 380) / 10 : 0,
      pv_voltage_2: pv > 0 ? 370 : 0,
      pv_current_2: pv > 0 ? Math.round((pv * 0.5 * 10) / 370) / 10 : 0,
      pv_power: pv,
      grid_voltage: 229.8,
      output_power: Math.round(output),
      temperature: 38.2,
      grid_frequency: 50.01,
      direction,
      load_power: load,
      power_magnitude: magnitude,
      battery_charge_energy_today: this.day.kWh('charge'),
      battery_discharge_energy_today: this.day.kWh('discharge'),
      grid_import_energy_today: this.day.kWh('import'),
      grid_export_energy_today: this.day.kWh('export'),
      load_energy_today: this.day.kWh('load'),
      storage_mode: STORAGE_MODES.find((m) => m.value === this.storageMode)!.label,
    };
    const battery_ = {
      voltage: Math.round(volts * 10) / 10,
      current_magnitude: Math.round((magnitude / volts) * 10) / 10,
      direction,
      state_of_charge: Math.round(this.soc),
      state_of_health: 99,
      power_magnitude: magnitude,
    };
    return registerMapImage(solisMap, { inverter, battery: battery_ });
  }
}
