/**
 * An emulated Growatt storage inverter with its battery (an SPH hybrid with its own PV, or
 * an SPA beside an existing PV inverter on the same AC bus), built from the driver's own
 * register maps: the site's flows (PV from the sun, a household load, a battery steered by
 * the energy priority, its SOC limits and power rates, the grid for the rest) are written
 * into the registers through `registerMapImage`, so the emulator and the driver cannot
 * disagree on an address or scale without the driver's tests against the public layout
 * noticing. Settings are the holding words themselves; a write is checked against the map's
 * writable entries (range, options, bit fields) as the device checks it.
 */
import { registerMapImage, type RegisterEntry, type RegisterMap } from '@heliograph/plugins-sdk/connections';
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
import { identityMap, sphMap } from '../register-map.js';
import { spaMap } from '../spa-map.js';

export const GROWATT_EMULATOR_MODELS = ['sph', 'spa'] as const;
export type GrowattEmulatorModel = (typeof GROWATT_EMULATOR_MODELS)[number];

type Ranges = ReadonlyArray<readonly [number, number]>;

/** Each family's map, the DTC it reports, and the ranges it answers (protocol v1.24's register ranges). */
const LAYOUTS: Record<GrowattEmulatorModel, { map: RegisterMap; dtc: number; input: Ranges; holding: Ranges }> = {
  // SPH: 03 and 04 answer 0..124 and 1000..1124 (and 608 for the SOC floor).
  sph: {
    map: sphMap,
    dtc: 3502,
    input: [
      [0, 124],
      [600, 624],
      [1000, 1124],
    ],
    holding: [
      [0, 124],
      [600, 624],
      [1000, 1124],
    ],
  },
  // SPA: 03 answers 0..124 and 1000..1124; 04 answers 1000..1124, 1125..1249 and 2000..2124.
  spa: {
    map: spaMap,
    dtc: 3701,
    input: [
      [1000, 1249],
      [2000, 2124],
    ],
    holding: [
      [0, 124],
      [1000, 1124],
    ],
  },
};

/** Holding words at power-on; settings not listed start at 0. */
const DEFAULT_WORDS: ReadonlyArray<[number, number]> = [
  [608, 10], // SPH: discharge stop SOC
  [1070, 100], // grid first discharge rate
  [1071, 10], // grid first stop SOC
  [1090, 100], // battery first charge rate
  [1091, 100], // battery first charge stop SOC
];
const MAX_BATTERY_W = 3000;
/** The SPA's own discharge floor in load first (it has no SOC floor register in 1000..1124). */
const SPA_FLOOR_SOC = 10;

export interface GrowattSettings {
  minSoc: number;
  /** 0 load first, 1 battery first, 2 grid first. */
  priority: number;
  chargeStopSoc: number;
  gridCharge: number;
}

export interface GrowattDeviceOptions {
  now?: () => Date;
  soc?: number;
  serial?: string;
  capacityWh?: number;
  /** Which family to be (default `sph`). */
  model?: GrowattEmulatorModel;
  /** The device type code reported in holding 43 (default the family's: SPH 3502, SPA 3701). */
  deviceTypeCode?: number;
}

export class GrowattDevice extends EmulatedSite implements ModbusDevice {
  readonly model: GrowattEmulatorModel;
  readonly serial: string;
  readonly deviceTypeCode: number;
  /** The settings' holding words, by address. */
  readonly holding = new Map<number, number>();
  private readonly capacityWh: number;
  private readonly layout: (typeof LAYOUTS)[GrowattEmulatorModel];
  private readonly writable: RegisterEntry[];

  constructor(options: GrowattDeviceOptions = {}) {
    super(options);
    this.model = options.model ?? 'sph';
    this.layout = LAYOUTS[this.model];
    this.capacityWh = options.capacityWh ?? 6500;
    this.serial = options.serial ?? 'GRT1234567';
    this.deviceTypeCode = options.deviceTypeCode ?? this.layout.dtc;
    this.writable = this.layout.map.registers.filter((e) => e.writable && e.table === 'holding');
    const defaults = new Map(DEFAULT_WORDS);
    for (const entry of this.writable) this.holding.set(entry.address, defaults.get(entry.address) ?? 0);
  }

  /** The battery settings as the flows use them. */
  get settings(): GrowattSettings {
    const word = (address: number) => this.holding.get(address) ?? 0;
    return {
      minSoc: this.model === 'sph' ? word(608) : SPA_FLOOR_SOC,
      priority: word(1044),
      chargeStopSoc: word(1091),
      gridCharge: word(1092),
    };
  }

  readInputRegisters({ address, count }: { address: number; count: number }): number[] {
    return imageWords(this.layout.input, address, count, () => this.image().input);
  }

  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    return imageWords(this.layout.holding, address, count, () => this.image().holding);
  }

  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    values.forEach((value, i) => this.check(address + i, value));
    values.forEach((value, i) => this.holding.set(address + i, value));
  }

  /** Exception 2 for a register that is not a setting, 3 for a value a setting does not take. */
  private check(address: number, word: number): void {
    const entries = this.writable.filter((e) => e.address === address);
    if (!entries.length) throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
    for (const entry of entries) {
      const value =
        entry.mask === undefined ? word : (word & entry.mask) >> (31 - Math.clz32(entry.mask & -entry.mask));
      const ok =
        entry.writable === true
          ? (entry.options ?? []).some((o) => o.value === value)
          : value >= entry.writable!.min && value <= entry.writable!.max;
      if (!ok) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    }
  }

  /** Battery charge and discharge (W) for this moment's PV, load and settings. */
  private flows(pv: number, load: number): { charge: number; discharge: number } {
    const { minSoc, priority, chargeStopSoc, gridCharge } = this.settings;
    const rate = (address: number) => Math.round(((this.holding.get(address) ?? 100) * MAX_BATTERY_W) / 100);
    if (priority === 1 && this.soc < chargeStopSoc) {
      const limit = this.model === 'spa' ? rate(1090) : MAX_BATTERY_W;
      return { charge: Math.min(limit, gridCharge ? limit : Math.max(pv, 0)), discharge: 0 };
    }
    if (priority === 2 && this.model === 'spa') {
      const stop = this.holding.get(1071) ?? 10;
      return { charge: 0, discharge: this.soc > stop ? rate(1070) : 0 };
    }
    if (priority !== 0) return { charge: 0, discharge: 0 };
    const surplus = pv - load;
    if (surplus > 0 && this.soc < 100) return { charge: Math.min(surplus, MAX_BATTERY_W), discharge: 0 };
    if (surplus < 0 && this.soc > minSoc) return { charge: 0, discharge: Math.min(-surplus, MAX_BATTERY_W) };
    return { charge: 0, discharge: 0 };
  }

  /** Moves the battery and today's counters on, and writes the values into the map's registers. */
  private image() {
    const time = this.now();
    const hours = this.day.advance();
    const pv = Math.round(5000 * sunFraction(time));
    const load = householdLoad(time);
    const { charge, discharge } = this.flows(pv, load);
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
    const image = registerMapImage(this.layout.map, {
      inverter: this.inverterValues(time, pv, charge, discharge, grid, load),
      battery: {
        charge_power: charge,
        discharge_power: discharge,
        voltage: Math.round((48 + 0.08 * this.soc) * 10) / 10,
        state_of_charge: Math.round(this.soc),
        temperature: 21.5,
      },
    });
    for (const [address, word] of this.holding) image.holding.set(address, word);
    const identity = registerMapImage(identityMap, {
      inverter: { serial: this.serial, device_type: this.deviceTypeCode },
    });
    for (const [address, word] of identity.holding) image.holding.set(address, word);
    return image;
  }

  /** The inverter's values by entry name (the SPA's map has no PV entries, so they stay out of its image). */
  private inverterValues(time: Date, pv: number, charge: number, discharge: number, grid: number, load: number) {
    const volts = 360 + 20 * Math.sin(time.getTime() / 60_000);
    const pv1 = Math.round(pv * 0.6);
    // The SPH's output includes its PV; the SPA's is its battery's AC side only.
    const output = this.model === 'sph' ? pv + discharge - charge : discharge - charge;
    return {
      device_mode: 'Normal',
      pv_power: pv,
      pv_power_1: pv1,
      pv_power_2: pv - pv1,
      pv_voltage_1: pv > 0 ? Math.round(volts * 10) / 10 : 0,
      pv_current_1: pv > 0 ? Math.round((pv1 / volts) * 10) / 10 : 0,
      pv_voltage_2: pv > 0 ? Math.round(volts * 10) / 10 : 0,
      pv_current_2: pv > 0 ? Math.round(((pv - pv1) / volts) * 10) / 10 : 0,
      output_power: Math.max(output, 0),
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
    };
  }
}
