/**
 * An emulated GoodWe ET hybrid (a GW10K-ET, platform 205, ARM firmware 23) with its battery,
 * answering every request the goodwe library's ET class makes (marcelblijleven/goodwe
 * goodwe/et.py `read_device_info`, `read_runtime_data`, `read_settings_data`): the device
 * information block 35000..35032, the running data 35100..35224, the meter 36000..36044, the
 * battery (BMS) 37000..37023, and the settings 45127..45482 and 47000..47935 (the eco mode
 * groups at 47515.. and 47547.., peak shaving at 47589). Its clock (45200, and the running
 * data's timestamp at 35100) is the true time plus `clockOffsetMs`; the eco program
 * (eco-program.ts) runs by it and the battery and the grid follow, minute by minute.
 */
import {
  clamp,
  DeviceClockSteps,
  householdLoad,
  ModbusException,
  ModbusExceptionCode,
  sunFraction,
  textWords,
  wordsOf32,
  type DayIntegrator,
  type ModbusDevice,
} from '@heliograph/plugins-sdk/emulator';
import { CLOCK, clockWords, deviceTime, EMS_MODE, WORK_MODE } from '../eco-mode.js';
import { EcoProgram, type EcoEffect } from './eco-program.js';

/** The blocks the ET answers; the rest is an illegal data address (so the library leaves out battery 2 and the MPPT block). */
const READABLE = [
  [35000, 35299],
  [36000, 36124],
  [37000, 37099],
  [45000, 45499],
  [47000, 47999],
] as const;
const MAX_BATTERY_W = 5000;
const CAPACITY_WH = 10_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;
/** Minimum SOC on grid: et.py reads 45356 "battery_discharge_depth" as 100 − DoD (`get_ongrid_battery_dod`). */
const MIN_SOC_REGISTER = 45356;

/** The one-register settings the library reads, with their values at the start and the largest value a write may set. */
const SETTINGS: ReadonlyArray<readonly [address: number, value: number, max: number]> = [
  [45127, 0xf7, 247], // comm_address
  [45132, 0, 0], // modbus_baud_rate (Long, high word)
  [45133, 9600, 0xffff],
  [45246, 0, 1], // sensitivity_check
  [45248, 0, 4], // cold_start
  [45251, 0, 1], // shadow_scan
  [45252, 1, 1], // backup_supply
  [45264, 0, 1], // unbalanced_output
  [45288, 0, 1], // pen_relay
  [45350, 200, 1000], // battery_capacity, Ah
  [45351, 4, 16], // battery_modules
  [45352, 576, 600], // battery_charge_voltage, 0.1 V
  [45353, 1000, 2500], // battery_charge_current, 0.1 A
  [45354, 470, 600], // battery_discharge_voltage
  [45355, 1000, 2500], // battery_discharge_current
  [MIN_SOC_REGISTER, 10, 100], // battery_discharge_depth: 100 − DoD
  [45357, 470, 600], // battery_discharge_voltage_offline
  [45358, 10, 100], // battery_discharge_depth_offline
  [45482, 100, 100], // power_factor, 0.01
  [47010, 0, 1], // dred
  [47120, 0, 1000], // meter_target_power_offset
  [47500, 1, 1], // battery_soc_protection
  [47509, 1, 1], // grid_export (enabled)
  [47510, 10_000, 10_000], // grid_export_limit, W
  [EMS_MODE, 1, 11], // ems_mode: 1 AUTO (inverter.py EMSMode)
  [47512, 0, 10_000], // ems_power_limit
  [47514, 287, 0xffff], // battery_protocol_code
  [47542, 0, 0xffff], // peak_shaving_power_limit (Long)
  [47543, 0, 0xffff],
  [47544, 100, 100], // peak_shaving_soc
  [47545, 0, 1], // fast_charging
  [47546, 100, 100], // fast_charging_soc
  [47595, 0, 2], // load_control_mode
  [47596, 0, 1], // load_control_switch
  [47597, 0, 100], // load_control_soc
  [47599, 0, 0xffff], // hardware_feed_power
  [47602, 0, 1], // dod_holding
  [47603, 100, 100], // fast_charging_power, %
  [47605, 0, 1], // backup_mode_enable
  [47606, 5000, 10_000], // max_charge_power
  [47609, 0, 1], // smart_charging_enable
  [47612, 0, 1], // eco_mode_enable
  [47760, 100, 100], // soc_upper_limit
];

export interface GoodweDeviceOptions {
  /** The true time (the sun, the load, the battery); default the system clock. */
  now?: () => Date;
  /** How far the device's own clock is ahead of `now`, ms. */
  clockOffsetMs?: number;
  /** Starting state of charge, %. */
  soc?: number;
  peakPvW?: number;
}

/** The site's flows at one moment, W, all positive. */
export interface GoodweFlows {
  pv: number;
  load: number;
  charge: number;
  discharge: number;
  /** + import. */
  grid: number;
}

export class GoodweDevice implements ModbusDevice {
  /** State of charge, % (fractional; the registers show it rounded). */
  soc: number;
  /** How far the device's clock is ahead of the true time (ms); tests move it to run a lease out; writing 45200.. sets it. */
  clockOffsetMs: number;
  readonly program = new EcoProgram();
  readonly ratedW = 10_000;
  readonly settings = new Map<number, number>(SETTINGS.map(([address, value]) => [address, value]));
  private readonly now: () => Date;
  /** The battery moved on a minute of the device's clock at a time, and today's counters. */
  private readonly steps: DeviceClockSteps;
  private readonly day: DayIntegrator;
  private readonly peakPvW: number;
  /** Lifetime counters, kWh, before today. */
  private readonly totals = {
    pv: 12_345.6,
    export: 4_321,
    import: 2_345.6,
    load: 9_876.5,
    charge: 1_234.5,
    discharge: 1_111.1,
  };

  constructor(options: GoodweDeviceOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.clockOffsetMs = options.clockOffsetMs ?? 0;
    this.steps = new DeviceClockSteps(this.now, () => this.clockOffsetMs);
    this.day = this.steps.day;
    this.soc = options.soc ?? 50;
    this.peakPvW = options.peakPvW ?? 6000;
    this.seedToday();
  }

  /**
   * Today's counters as the site's self-use would have made them from midnight to the start
   * (ten-minute steps), so a device read at a frozen clock shows a day under way.
   */
  private seedToday(): void {
    const start = this.now();
    const midnight = new Date(start.getFullYear(), start.getMonth(), start.getDate()).getTime();
    const step = 10 * MINUTE;
    for (let t = midnight; t + step <= start.getTime(); t += step) {
      const time = new Date(t);
      const pv = this.peakPvW * sunFraction(time);
      const load = householdLoad(time);
      const battery = clamp(pv - load, -MAX_BATTERY_W, MAX_BATTERY_W);
      const hours = step / HOUR;
      for (const [name, watts] of [
        ['pv', pv],
        ['load', load],
        ['charge', battery],
        ['discharge', -battery],
        ['import', load + battery - pv],
        ['export', pv - load - battery],
      ] as const)
        this.day.add(name, watts, hours);
    }
  }

  /** The work mode (47000): 0 General .. 3 Eco .. 5 Self use. */
  get workMode(): number {
    return this.program.workMode;
  }

  set workMode(mode: number) {
    this.program.workMode = mode;
  }

  /** The device's own clock now. */
  clock(): Date {
    return new Date(this.now().getTime() + this.clockOffsetMs);
  }

  /** What the eco program does now, by the device's clock; null when it does not force the battery. */
  programNow(): EcoEffect | null {
    return this.program.effect(deviceTime(clockWords(this.clock())), this.ratedW);
  }

  /** The flows now (the battery brought up to now first). */
  flowsNow(): GoodweFlows {
    return this.step();
  }

  /** The minimum SOC on grid (45356). */
  get minSoc(): number {
    return this.settings.get(MIN_SOC_REGISTER)!;
  }

  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    if (!READABLE.some(([from, to]) => address >= from && address + count - 1 <= to))
      throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
    const registers = this.registers(this.step());
    return Array.from({ length: count }, (_, i) => registers.get(address + i) ?? 0);
  }

  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    const refuse = (code: number): never => {
      throw new ModbusException({ code });
    };
    const last = address + values.length - 1;
    this.step();
    if (address >= CLOCK && last < CLOCK + 3) {
      const words = clockWords(this.clock());
      values.forEach((v, i) => (words[address - CLOCK + i] = v));
      try {
        deviceTime(words);
      } catch {
        refuse(ModbusExceptionCode.illegalDataValue);
      }
      const b = words.flatMap((w) => [w >> 8, w & 0xff]);
      const time = new Date(2000 + b[0]!, b[1]! - 1, b[2], b[3], b[4], b[5]);
      this.clockOffsetMs = time.getTime() - this.now().getTime();
      return;
    }
    if (values.every((_, i) => this.program.owns(address + i))) {
      if (!this.program.write(address, values)) refuse(ModbusExceptionCode.illegalDataValue);
      return;
    }
    const checks = values.map((value, i) => {
      const at = address + i;
      if (at === WORK_MODE) return value <= 5;
      const setting = SETTINGS.find(([a]) => a === at);
      return setting ? value <= setting[2] : refuse(ModbusExceptionCode.illegalDataAddress);
    });
    if (checks.includes(false)) refuse(ModbusExceptionCode.illegalDataValue);
    values.forEach((value, i) => {
      if (address + i === WORK_MODE) this.program.workMode = value;
      else this.settings.set(address + i, value);
    });
  }

  /** The flows at the true time `time`, by the program in force then on the device's clock. */
  private flowsAt(time: Date): GoodweFlows {
    const pv = Math.round(this.peakPvW * sunFraction(time));
    const load = householdLoad(time);
    const effect = this.program.effect(
      deviceTime(clockWords(new Date(time.getTime() + this.clockOffsetMs))),
      this.ratedW,
    );
    const max = MAX_BATTERY_W;
    let battery: number; // + charging
    if (effect && effect.powerW > 0) {
      // A charge group: from the grid (and PV) up to its SOC, then the battery holds.
      battery = this.soc < effect.toSoc ? Math.min(effect.powerW, max) : 0;
    } else if (effect && effect.powerW < 0) {
      battery = this.soc > this.minSoc ? Math.max(effect.powerW, -max) : 0;
    } else {
      battery = clamp(pv - load, -max, max);
      if ((battery > 0 && this.soc >= 100) || (battery < 0 && this.soc <= this.minSoc)) battery = 0;
    }
    let grid = load + battery - pv;
    const limit = this.settings.get(47509) ? this.settings.get(47510)! : Infinity;
    let producing = pv;
    if (-grid > limit) {
      // PV throttled to the export limit.
      producing -= -grid - limit;
      grid = -limit;
    }
    return { pv: Math.round(producing), load, charge: Math.max(battery, 0), discharge: Math.max(-battery, 0), grid };
  }

  /** Moves the battery and today's counters on to now a minute of the device's clock at a time (at most the last hour). */
  private step(): GoodweFlows {
    return this.flowsAt(this.steps.run((from, hours) => this.integrate(from, hours)));
  }

  private integrate(from: Date, hours: number): void {
    const flows = this.flowsAt(from);
    const effect = this.program.effect(
      deviceTime(clockWords(new Date(from.getTime() + this.clockOffsetMs))),
      this.ratedW,
    );
    let soc = clamp(this.soc + ((flows.charge - flows.discharge) * hours * 100) / CAPACITY_WH, 0, 100);
    if (flows.discharge > 0) soc = Math.max(soc, Math.min(this.soc, this.minSoc));
    if (effect && effect.powerW > 0 && flows.charge > 0) soc = Math.min(soc, Math.max(this.soc, effect.toSoc));
    this.soc = soc;
    this.day.add('pv', flows.pv, hours);
    this.day.add('import', flows.grid, hours);
    this.day.add('export', -flows.grid, hours);
    this.day.add('charge', flows.charge, hours);
    this.day.add('discharge', flows.discharge, hours);
    this.day.add('load', flows.load, hours);
  }

  private registers(flows: GoodweFlows): Map<number, number> {
    const r = new Map<number, number>(this.settings);
    const set = (address: number, ...words: number[]) => words.forEach((w, i) => r.set(address + i, w & 0xffff));
    const set32 = (address: number, value: number) => set(address, ...wordsOf32(Math.round(value)));
    const tenths = (kWh: number) => Math.round(kWh * 10);
    const clock = clockWords(this.clock());

    // Device information, et.py read_device_info: 35000 modbus version, 35001 rated power, 35002
    // AC output type (1: three phases, 4 wires), 35003..35010 serial, 35011..35015 model name,
    // 35016..35020 DSP and ARM versions, 35021..35026 and 35027..35032 the firmware names.
    set(35000, 2, this.ratedW, 1, ...textWords('9010KETU000W0000', 8), ...textWords('GW10K-ET  ', 5));
    set(35016, 10, 10, 167, 23, 237, ...textWords('04029-10-S11', 6), ...textWords('02041-23-S00', 6));

    // Running data, et.py __all_sensors from 35100 (GoodWe counts active power + export, battery + discharging).
    const battery = flows.discharge - flows.charge;
    const active = -flows.grid;
    const output = flows.load - flows.grid;
    const volts = 50 + 0.06 * this.soc;
    const pv1 = Math.round(flows.pv * 0.55);
    const pvString = (address: number, watts: number, v: number) => {
      set(address, watts > 0 ? v * 10 : 0, watts > 0 ? Math.round((watts / v) * 10) : 0);
      set32(address + 2, watts);
    };
    set(35100, ...clock);
    pvString(35103, pv1, 410);
    pvString(35107, flows.pv - pv1, 405);
    set(35119, 0, flows.pv > 0 ? 0x0202 : 0); // PV modes: 2 "PV panels connected, producing power"
    for (let phase = 0; phase < 3; phase++) {
      const at = 35121 + 5 * phase;
      set(at, 2314 - 8 * phase, Math.round((Math.abs(output) / 3 / 231) * 10), 4999);
      set(at + 4, Math.round(output / 3));
      set(35145 + 6 * phase, 2302, 0, 4999, 1, 0, 0); // back-up: voltage, current, frequency, load mode, -, power
      set(35164 + 2 * phase, Math.round(flows.load / 3));
    }
    set(35136, 1); // grid mode: connected
    set(35138, Math.round(output));
    set(35140, Math.round(active));
    set(35142, 120);
    set(35144, Math.round(Math.abs(output)) + 50);
    set(35170, 0);
    set(35172, flows.load);
    set(35173, 0);
    set(35174, 352, 387, 413); // temperatures: air, module, radiator, 0.1 °C
    set(35177, 0, 6012, 3006); // function bit, bus and N-bus voltage
    set(35180, Math.round(volts * 10), Math.round((battery / volts) * 10));
    set32(35182, battery);
    set(35184, battery > 0 ? 2 : battery < 0 ? 3 : 1); // battery mode: 2 discharge, 3 charge, 1 standby
    set(35185, 0, 1, 1, this.program.workMode); // warning, safety country, work mode "Normal (On-Grid)", operation mode
    set32(35189, 0);
    const day = this.day;
    set32(35191, tenths(this.totals.pv + day.kWh('pv')));
    set32(35193, tenths(day.kWh('pv')));
    set32(35195, tenths(this.totals.export + day.kWh('export')));
    set32(35197, 8_760);
    set(35199, tenths(day.kWh('export')));
    set32(35200, tenths(this.totals.import + day.kWh('import')));
    set(35202, tenths(day.kWh('import')));
    set32(35203, tenths(this.totals.load + day.kWh('load')));
    set(35205, tenths(day.kWh('load')));
    set32(35206, tenths(this.totals.charge + day.kWh('charge')));
    set(35208, tenths(day.kWh('charge')));
    set32(35209, tenths(this.totals.discharge + day.kWh('discharge')));
    set(35211, tenths(day.kWh('discharge')));
    set32(35220, 0);

    meterWords(set, set32, active, {
      exportKWh: this.totals.export + day.kWh('export'),
      importKWh: this.totals.import + day.kWh('import'),
    });

    // The battery (BMS), et.py __all_sensors_battery from 37000.
    // bms, index, status, temperature, charge and discharge limit (A), error, SOC, SOH, modules, warning,
    // protocol, error and warning high words, software and hardware version, cell IDs, cell temperatures and voltages.
    const bms = [0x0101, 0, 1, 241, 100, 100, 0, Math.round(this.soc), 100, 4, 0, 287, 0, 0, 1, 1, 1, 2, 3, 4];
    set(37000, ...bms, 252, 238, 3350, 3310);

    // Settings: the clock, the work mode, the eco program and the BMS readings at 47900.
    set(CLOCK, ...clock);
    set(WORK_MODE, this.program.workMode);
    for (const [address, word] of this.program.registers()) r.set(address, word);
    set(47900, 1, 4, 576, 1000, 470, 1000, Math.round(volts * 10), Math.round((-battery / volts) * 10) & 0xffff);
    set(47908, Math.round(this.soc), 100, 241, 0, 0, 0, 0, 1, 0, 5120);
    return r;
  }
}

type SetWords = (address: number, ...words: number[]) => void;

/** The meter, et.py __all_sensors_meter from 36000 (+ export; the lifetime counters as floats of Wh, `Float(..., 1000)`). */
function meterWords(
  set: SetWords,
  set32: (address: number, value: number) => void,
  active: number,
  totals: { exportKWh: number; importKWh: number },
): void {
  set(36000, 1, 0, 1, 1, 1); // commode, RSSI, manufacture code, test status "correct", communication OK
  for (let phase = 0; phase < 3; phase++) {
    set(36005 + phase, Math.round(active / 3));
    set(36010 + phase, 990);
    set32(36019 + 2 * phase, Math.round(active / 3));
    set32(36027 + 2 * phase, 40);
    set32(36035 + 2 * phase, Math.round(Math.abs(active) / 3) + 40);
  }
  set(36008, Math.round(active), 120);
  set(36013, 990, 4999); // power factor, frequency
  const float = (address: number, value: number) => {
    const bytes = Buffer.alloc(4);
    bytes.writeFloatBE(value);
    set(address, bytes.readUInt16BE(0), bytes.readUInt16BE(2));
  };
  float(36015, totals.exportKWh * 1000);
  float(36017, totals.importKWh * 1000);
  set32(36025, Math.round(active));
  set32(36033, 120);
  set32(36041, Math.round(Math.abs(active)) + 120);
  set(36043, 2, 1); // meter type 3P4W, software version
}
