/**
 * An emulated Growatt SPH with its battery, built from the driver's own register map: the
 * site's flows (PV from the sun, a household load, a battery steered by the energy priority
 * and its SOC limits, the grid for the rest) are written into the registers through
 * `registerMapImage`, so the emulator and the driver cannot disagree on an address or scale
 * without the driver's test against the public layout noticing.
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
import { growattMap, identityMap } from '../register-map.js';

/** Register ranges the SPH answers (protocol v1.24: 0-124 and 1000-1124; 608 for the SOC floor). */
const READABLE = [
  [0, 124],
  [600, 624],
  [1000, 1124],
] as const;
const PRIORITIES = ['Load first', 'Battery first', 'Grid first'] as const;
const MAX_BATTERY_W = 3000;

export interface GrowattSettings {
  minSoc: number;
  /** 0 load first, 1 battery first, 2 grid first. */
  priority: number;
  chargeStopSoc: number;
  gridCharge: number;
}

export class GrowattDevice extends EmulatedSite implements ModbusDevice {
  readonly settings: GrowattSettings = { minSoc: 10, priority: 0, chargeStopSoc: 100, gridCharge: 0 };
  private readonly capacityWh: number;

  constructor(options: { now?: () => Date; soc?: number; serial?: string; capacityWh?: number } = {}) {
    super(options);
    this.capacityWh = options.capacityWh ?? 6500;
    this.serial = options.serial ?? 'GRT1234567';
  }

  readonly serial: string;

  readInputRegisters({ address, count }: { address: number; count: number }): number[] {
    return imageWords(READABLE, address, count, () => this.image().input);
  }

  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    return imageWords(READABLE, address, count, () => this.image().holding);
  }

  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    values.forEach((value, i) => {
      const at = address + i;
      const ok =
        at === 608 || at === 1091
          ? value >= 10 && value <= 100
          : at === 1044
            ? value <= 2
            : at === 1092
              ? value <= 1
              : undefined;
      if (ok === undefined) throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
      if (!ok) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    });
    values.forEach((value, i) => {
      const at = address + i;
      if (at === 608) this.settings.minSoc = value;
      if (at === 1044) this.settings.priority = value;
      if (at === 1091) this.settings.chargeStopSoc = value;
      if (at === 1092) this.settings.gridCharge = value;
    });
  }

  /** Moves the battery and today's counters on, and writes the values into the map's registers. */
  private image() {
    const time = this.now();
    const hours = this.day.advance();
    const pv = Math.round(5000 * sunFraction(time));
    const load = householdLoad(time);
    const { minSoc, priority, chargeStopSoc, gridCharge } = this.settings;
    let charge = 0;
    let discharge = 0;
    if (priority === 1 && this.soc < chargeStopSoc) {
      charge = Math.min(MAX_BATTERY_W, gridCharge ? MAX_BATTERY_W : Math.max(pv, 0));
    } else if (priority === 0) {
      const surplus = pv - load;
      if (surplus > 0 && this.soc < 100) charge = Math.min(surplus, MAX_BATTERY_W);
      if (surplus < 0 && this.soc > minSoc) discharge = Math.min(-surplus, MAX_BATTERY_W);
    }
    const grid = load + charge - discharge - pv; // + import
    this.soc = clamp(this.soc + ((charge - discharge) * hours * 100) / this.capacityWh, 0, 100);
    for (const [name, watts] of [
      ['import', Math.max(grid, 0)],
      ['export', Math.max(-grid, 0)],
      ['charge', charge],
      ['discharge', discharge],
      ['load', load],
    ] as const)
      this.day.add(name, watts, hours);
    const volts = 360 + 20 * Math.sin(time.getTime() / 60_000);
    const pv1 = Math.round(pv * 0.6);
    const inverter = {
      device_mode: 'Normal',
      pv_power: pv,
      pv_power_1: pv1,
      pv_power_2: pv - pv1,
      pv_voltage_1: pv > 0 ? Math.round(volts * 10) / 10 : 0,
      pv_current_1: pv > 0 ? Math.round((pv1 / volts) * 10) / 10 : 0,
      pv_voltage_2: pv > 0 ? Math.round(volts * 10) / 10 : 0,
      pv_current_2: pv > 0 ? Math.round(((pv - pv1) / volts) * 10) / 10 : 0,
      output_power: Math.max(pv + discharge - charge, 0),
      grid_frequency: 50,
      grid_voltage: 230.4,
      temperature: 35.5,
      charge_power: charge,
      discharge_power: discharge,
      import_power: Math.max(grid, 0),
      export_power: Math.max(-grid, 0),
      load_power: load,
      grid_import_energy_today: this.day.kWh('import'),
      grid_export_energy_today: this.day.kWh('export'),
      battery_charge_energy_today: this.day.kWh('charge'),
      battery_discharge_energy_today: this.day.kWh('discharge'),
      load_energy_today: this.day.kWh('load'),
      min_soc: minSoc,
      energy_priority: PRIORITIES[priority]!,
      charge_stop_soc: chargeStopSoc,
      grid_charge: gridCharge ? 'On' : 'Off',
    };
    const battery = {
      charge_power: charge,
      discharge_power: discharge,
      voltage: Math.round((48 + 0.08 * this.soc) * 10) / 10,
      state_of_charge: Math.round(this.soc),
      temperature: 21.5,
    };
    const image = registerMapImage(growattMap, { inverter, battery });
    for (const [address, word] of registerMapImage(identityMap, { inverter: { serial: this.serial } }).holding)
      image.holding.set(address, word);
    return image;
  }
}
