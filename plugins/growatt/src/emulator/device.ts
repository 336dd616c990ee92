/**
 * An emulated Growatt storage inverter with its battery (an SPH hybrid with its own PV, or
 * an SPA beside an existing PV inverter on the same AC bus), built from the driver's own
 * register maps: the site's flows (PV from the sun, a household load, a battery steered by
 * the time slots, SOC limits and power rates, the grid for the rest) are written into the
 * registers through `registerMapImage`. Its settings are the holding words themselves, checked
 * as the Growatt Modbus RTU protocol v1.24 gives their ranges; its clock (holding 45..50,
 * settable, and a `clockOffsetMs` tests move) runs the time slots (slots.ts), so a forced slot
 * ends by the emulator's own clock. The device type code is in holding 30000 (the VPP
 * protocol's Table 3-1 code) on a unit with the VPP range, and holding 43 holds what the
 * options say (default 0: the public copies give no SPH or SPA value for it).
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
import { identityMap, sphMap, vppTypeMap } from '../register-map.js';
import { spaMap } from '../spa-map.js';
import { CLOCK, clockTime, clockWords, slotsInForce, validControlWord } from './slots.js';

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
/** The VPP protocol's basic parameters (holding 30000..30099) on a unit that has them. */
const VPP_RANGE = [30000, 30099] as const;

/**
 * Holding words at power-on, an owner's settings (each its own value, so a swapped address
 * shows); settings not listed start at 0.
 */
const DEFAULT_WORDS: ReadonlyArray<[number, number]> = [
  [608, 10], // SPH: discharge stop SOC
  [1070, 100], // grid first discharge rate
  [1071, 12], // grid first stop SOC
  [1090, 95], // battery first charge rate
  [1091, 98], // battery first charge stop SOC
  [1092, 1], // battery first: AC charge allowed
  // The owner's own schedule in slot 2 (slot 1 of each priority is battery control's): battery
  // first 08:30..09:30, topping the battery up before the day's load.
  [1103, (8 << 8) | 30],
  [1104, (9 << 8) | 30],
  [1105, 1],
];
/**
 * Load first covers the house from the battery short of this margin, W: a unit regulating its
 * battery to the grid meter keeps a little import rather than export the battery.
 */
const IMPORT_MARGIN_W = 20;
/** 100 % of the rate registers, W. */
export const MAX_BATTERY_W = 3000;
/** The SPA's own discharge floor in load first (it has no SOC floor register in 1000..1124). */
const SPA_FLOOR_SOC = 10;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface GrowattSettings {
  minSoc: number;
  /** The priority in force by the time slots: 0 load first, 1 battery first, 2 grid first. */
  priority: number;
  chargeStopSoc: number;
  gridCharge: number;
}

/** The battery and grid flows at one moment, W. */
export interface GrowattFlows {
  pv: number;
  load: number;
  charge: number;
  discharge: number;
  /** + import. */
  grid: number;
  priority: number;
}

export interface GrowattDeviceOptions {
  now?: () => Date;
  soc?: number;
  serial?: string;
  capacityWh?: number;
  /** Which family to be (default `sph`). */
  model?: GrowattEmulatorModel;
  /** The Table 3-1 code in holding 30000 (default the family's: SPH 3502, SPA 3701). */
  deviceTypeCode?: number;
  /** Whether the unit answers the VPP range (holding 30000..30099); default true. */
  vpp?: boolean;
  /** What holding 43 holds (default 0). */
  holding43?: number;
  /** How far the device's clock is ahead of `now` (ms); default 0. */
  clockOffsetMs?: number;
  /** The site's PV at noon (the SPH's own, or the SPA's neighbour inverter), W; default 5000. */
  peakPvW?: number;
}

export class GrowattDevice extends EmulatedSite implements ModbusDevice {
  readonly model: GrowattEmulatorModel;
  readonly serial: string;
  readonly deviceTypeCode: number;
  /** The settings' holding words, by address. */
  readonly holding = new Map<number, number>();
  /** How far the device's clock is ahead of the true time (ms); writing holding 45..50 sets it. */
  clockOffsetMs: number;
  private readonly capacityWh: number;
  private readonly layout: (typeof LAYOUTS)[GrowattEmulatorModel];
  private readonly writable: RegisterEntry[];
  private readonly vpp: boolean;
  private readonly holding43: number;
  private readonly peakPvW: number;
  /** The moment the battery was last brought up to. */
  private last: number;

  constructor(options: GrowattDeviceOptions = {}) {
    super(options);
    this.model = options.model ?? 'sph';
    this.layout = LAYOUTS[this.model];
    this.capacityWh = options.capacityWh ?? 6500;
    this.serial = options.serial ?? 'GRT1234567';
    this.deviceTypeCode = options.deviceTypeCode ?? this.layout.dtc;
    this.vpp = options.vpp ?? true;
    this.holding43 = options.holding43 ?? 0;
    this.clockOffsetMs = options.clockOffsetMs ?? 0;
    this.peakPvW = options.peakPvW ?? 5000;
    this.writable = this.layout.map.registers.filter((e) => e.writable && e.table === 'holding');
    for (const [address, word] of DEFAULT_WORDS) this.holding.set(address, word);
    this.last = this.now().getTime();
    // Today's counters as a morning would have left them, so that a frozen clock reads non-zero energies.
    for (const [name, kWh] of [
      ['import', 3.2],
      ['export', 1.4],
      ['charge', 2.6],
      ['discharge', 1.9],
      ['load', 5.7],
    ] as const)
      this.day.add(name, kWh * 1000, 1);
  }

  /** The device's own clock now. */
  clock(): Date {
    return new Date(this.now().getTime() + this.clockOffsetMs);
  }

  /** The battery settings as the flows use them now. */
  get settings(): GrowattSettings {
    return {
      minSoc: this.model === 'sph' ? this.word(608) : SPA_FLOOR_SOC,
      priority: slotsInForce(this.holding, this.clock()),
      chargeStopSoc: this.word(1091),
      gridCharge: this.word(1092),
    };
  }

  /** The flows now (the battery brought up to now first). */
  flowsNow(): GrowattFlows {
    this.step();
    return this.flowsAt(this.now());
  }

  readInputRegisters({ address, count }: { address: number; count: number }): number[] {
    return imageWords(this.layout.input, address, count, () => this.image().input);
  }

  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    const ranges = this.vpp ? [...this.layout.holding, VPP_RANGE] : this.layout.holding;
    return imageWords(ranges, address, count, () => this.image().holding);
  }

  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    const clock = clockWords(this.clock());
    values.forEach((value, i) => {
      const at = address + i;
      if (at >= CLOCK && at < CLOCK + 6) clock[at - CLOCK] = value;
      else this.check(at, value);
    });
    const setClock = values.some((_, i) => address + i >= CLOCK && address + i < CLOCK + 6);
    const time = setClock ? clockTime(clock) : null;
    if (setClock && !time) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    this.step();
    if (time) this.clockOffsetMs = time.getTime() - this.now().getTime();
    values.forEach((value, i) => {
      if (address + i < CLOCK || address + i >= CLOCK + 6) this.holding.set(address + i, value);
    });
  }

  private word(address: number): number {
    return this.holding.get(address) ?? 0;
  }

  /**
   * Exception 2 for a register that is not a setting, 3 for a value a setting does not take:
   * the time-slot block by the document's ranges (slots.ts), the map's settings by their own.
   */
  private check(address: number, word: number): void {
    const control = validControlWord(address, word);
    const entries = this.writable.filter((e) => e.address === address);
    if (control === null && !entries.length)
      throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
    if (control === false) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
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

  /** The flows at `time` (true time), by the slots in force on the device's clock then. */
  private flowsAt(time: Date): GrowattFlows {
    const pv = Math.round(this.peakPvW * sunFraction(time));
    const load = householdLoad(time);
    const priority = slotsInForce(this.holding, new Date(time.getTime() + this.clockOffsetMs));
    const { charge, discharge } = this.battery(priority, pv, load);
    return { pv, load, charge, discharge, grid: load + charge - discharge - pv, priority };
  }

  /**
   * Battery charge and discharge (W): battery first charges up to its stop SOC at its rate,
   * from the grid with AC charge on, else from PV alone, and never discharges; grid first
   * discharges at its rate down to its stop SOC; load first covers the load from the battery
   * (short of a small import margin) down to the floor and stores the PV surplus (an SPA
   * measures both at the grid).
   */
  private battery(priority: number, pv: number, load: number): { charge: number; discharge: number } {
    const rate = (address: number) => Math.round((this.word(address) * MAX_BATTERY_W) / 100);
    if (priority === 1) {
      if (this.soc >= this.word(1091)) return { charge: 0, discharge: 0 };
      const limit = rate(1090);
      return { charge: Math.min(limit, this.word(1092) ? limit : Math.max(pv, 0)), discharge: 0 };
    }
    if (priority === 2) return { charge: 0, discharge: this.soc > this.word(1071) ? rate(1070) : 0 };
    const floor = this.model === 'sph' ? this.word(608) : SPA_FLOOR_SOC;
    const surplus = pv - load;
    if (surplus > 0 && this.soc < 100) return { charge: Math.min(surplus, MAX_BATTERY_W), discharge: 0 };
    if (surplus < -IMPORT_MARGIN_W && this.soc > floor)
      return { charge: 0, discharge: Math.min(-surplus - IMPORT_MARGIN_W, MAX_BATTERY_W) };
    return { charge: 0, discharge: 0 };
  }

  /**
   * Moves the battery and today's counters on to now, a minute of the device's clock at a time
   * so that slot boundaries take effect when they pass (at most the last hour is caught up).
   */
  private step(): void {
    const end = this.now().getTime();
    this.day.advance();
    const from = Math.max(this.last, end - HOUR);
    for (let t = from; t < end;) {
      const next = Math.min(end, t + MINUTE - ((((t + this.clockOffsetMs) % MINUTE) + MINUTE) % MINUTE));
      const hours = (next - t) / HOUR;
      const flows = this.flowsAt(new Date(t));
      let soc = clamp(this.soc + ((flows.charge - flows.discharge) * hours * 100) / this.capacityWh, 0, 100);
      // The stop SOC of the priority in force is where charging or discharging stops.
      if (flows.priority === 1 && flows.charge > 0) soc = Math.min(soc, Math.max(this.soc, this.word(1091)));
      if (flows.priority === 2 && flows.discharge > 0) soc = Math.max(soc, Math.min(this.soc, this.word(1071)));
      this.soc = soc;
      for (const [name, watts] of [
        ['import', Math.max(flows.grid, 0)],
        ['export', Math.max(-flows.grid, 0)],
        ['charge', flows.charge],
        ['discharge', flows.discharge],
        ['load', flows.load],
      ] as const)
        this.day.add(name, watts, hours);
      t = next;
    }
    this.last = Math.max(this.last, end);
  }

  /** Brings the battery up to now and writes the values into the map's registers. */
  private image() {
    this.step();
    const time = this.now();
    const flows = this.flowsAt(time);
    const { charge, discharge } = flows;
    const image = registerMapImage(this.layout.map, {
      inverter: { ...this.inverterValues(time, flows), energy_priority: flows.priority },
      battery: {
        charge_power: charge,
        discharge_power: discharge,
        voltage: Math.round((48 + 0.08 * this.soc) * 10) / 10,
        state_of_charge: Math.round(this.soc),
        temperature: 21.5,
      },
    });
    for (const [address, word] of this.holding) if (address !== 1044) image.holding.set(address, word);
    for (const [address, word] of clockWords(this.clock()).entries()) image.holding.set(CLOCK + address, word);
    const identity = registerMapImage(identityMap, {
      inverter: { serial: this.serial, device_type: this.holding43 },
    });
    for (const [address, word] of identity.holding) image.holding.set(address, word);
    if (this.vpp) {
      image.holding.set(vppTypeMap.registers[0]!.address, this.deviceTypeCode);
      image.holding.set(30099, 201); // protocol version 2.01
    }
    return image;
  }

  /** The inverter's values by entry name (the SPA's map has no PV entries, so they stay out of its image). */
  private inverterValues(time: Date, flows: GrowattFlows) {
    const { pv, charge, discharge, grid, load } = flows;
    const volts = 360 + 20 * Math.sin(time.getTime() / 60_000);
    const pv1 = Math.round(pv * 0.58);
    // The SPH's output includes its PV; the SPA's is its battery's AC side only.
    const output = this.model === 'sph' ? pv + discharge - charge : discharge - charge;
    return {
      device_mode: 'Normal',
      pv_power: pv,
      pv_power_1: pv1,
      pv_power_2: pv - pv1,
      pv_voltage_1: pv > 0 ? Math.round(volts * 10) / 10 : 0,
      pv_current_1: pv > 0 ? Math.round((pv1 / volts) * 10) / 10 : 0,
      pv_voltage_2: pv > 0 ? Math.round((volts - 12.5) * 10) / 10 : 0,
      pv_current_2: pv > 0 ? Math.round(((pv - pv1) / (volts - 12.5)) * 10) / 10 : 0,
      output_power: Math.max(output, 0),
      grid_frequency: 50.02,
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
