/**
 * An emulated Huawei SUN2000 hybrid inverter with a LUNA2000 battery and a power meter, built
 * from the driver's own register map (and the registers wlcrs/huawei-solar-lib reads besides
 * it: the string count, storage unit 1, the system time, the forcible registers). PV follows
 * the sun on two strings, the house draws the household load; in its working mode the battery
 * takes the PV surplus up to the maximum charging power and covers the deficit down to the
 * end-of-discharge SOC. The forcible charge/discharge (47100) runs as the library's users
 * see it: by duration (47246 = 0) for the period 47083 in minutes, counted by the device's own
 * clock (the given one moved on by `clockOffsetMs`), after which the command reads 0 again and
 * the working mode is back; a write of the command or the period restarts the countdown from
 * the period then in force. To a SOC (47246 = 1) it runs until the battery reaches 47101.
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
import {
  DEVICE_STATUS,
  FORCIBLE,
  FORCIBLE_COMMANDS,
  huaweiMap,
  identityMap,
  METER_STATUS,
  STORAGE_STATUS,
  WORKING_MODES,
} from '../register-map.js';

/** Blocks the unit answers (registers.py's ranges that this emulator fills). */
const READABLE = [
  [30000, 30300],
  [32000, 32300],
  [37000, 37140],
  [37700, 37830],
  [40000, 40001],
  [47000, 47110],
  [47200, 47300],
] as const;
const PEAK_PV_W = [3000, 2400];
/** The share of the surplus or deficit the battery follows: a real unit's meter loop lags a little, so the meter reads a small flow. */
const FOLLOW = 0.98;
const CAPACITY_WH = 10_000;
/** What the LUNA2000 can take and give (registers.py STORAGE_MAXIMUM_CHARGE_POWER 37046, ..._DISCHARGE_POWER 37048). */
const BATTERY_MAX_W = 5000;
const RATED_W = 6000;

/** The settings a write may change: register, words, and the check of its value. */
const WRITABLE: Record<number, { words: 1 | 2; valid: (value: number) => boolean }> = {
  47075: { words: 2, valid: (v) => v <= 25_000 }, // max charging power, W
  47077: { words: 2, valid: (v) => v <= 25_000 }, // max discharging power, W
  47081: { words: 1, valid: (v) => v >= 900 && v <= 1000 }, // end-of-charge SOC, 0.1 %
  47082: { words: 1, valid: (v) => v <= 200 }, // end-of-discharge SOC, 0.1 %
  [FORCIBLE.period]: { words: 1, valid: (v) => v <= 1440 }, // minutes
  47086: { words: 1, valid: (v) => v <= 5 }, // working mode
  47087: { words: 1, valid: (v) => v <= 1 }, // charge from grid
  [FORCIBLE.command]: { words: 1, valid: (v) => v <= 2 },
  [FORCIBLE.targetSoc]: { words: 1, valid: (v) => v <= 1000 },
  [FORCIBLE.settingMode]: { words: 1, valid: (v) => v <= 1 },
  [FORCIBLE.chargePower]: { words: 2, valid: (v) => v <= 25_000 },
  [FORCIBLE.dischargePower]: { words: 2, valid: (v) => v <= 25_000 },
};
/** A write to these (re)starts the forcible countdown. */
const COUNTDOWN = new Set<number>([FORCIBLE.period, FORCIBLE.command]);

const labelOf = (options: ReadonlyArray<{ value: number; label: string }>, value: number) =>
  options.find((o) => o.value === value)!.label;

/** The flows of one moment, W: + charging for the battery, + import for the grid. */
interface Flows {
  strings: Array<{ volts: number; amps: number }>;
  pv: number;
  load: number;
  battery: number;
  output: number;
  grid: number;
}

export class HuaweiDevice extends EmulatedSite implements ModbusDevice {
  /** 47075 / 47077, W: the owner's settings, within what the LUNA2000 can. */
  maxChargingW = 4800;
  maxDischargingW = 4500;
  /** 47081 / 47082, %. */
  chargeCutoffSoc = 100;
  dischargeCutoffSoc = 10;
  /** 47086 (register_values.py StorageWorkingModesC); the emulated battery self-consumes in every mode. */
  workingMode = 2;
  /** 47087. */
  chargeFromGrid = 1;
  /** Whether a LUNA2000 is connected: without, the storage's rated capacity (37758) reads 0 and nothing charges. */
  lunaPresent = true;
  /** The forcible charge/discharge registers as written (47101 in %). */
  readonly forcible = { period: 120, command: 0, settingMode: 0, chargePower: 0, dischargePower: 0, targetSoc: 100 };
  /** When the forcible command in force ends (ms, the device's clock); null while none runs or it runs to a SOC. */
  forcibleEndsAt: number | null = null;
  private readonly offset: { ms: number };
  /** The device's time of the last step, ms. */
  private stepped: number;
  private readonly lifetime = {
    yieldWh: 8_123_400,
    importWh: 2_345_600,
    exportWh: 4_567_800,
    chargeWh: 1_234_500,
    dischargeWh: 1_123_400,
  };

  constructor(options: { now?: () => Date; soc?: number } = {}) {
    const offset = { ms: 0 };
    const clock = options.now ?? (() => new Date());
    super({
      now: () => new Date(clock().getTime() + offset.ms),
      ...(options.soc === undefined ? {} : { soc: options.soc }),
    });
    this.offset = offset;
    this.stepped = this.now().getTime();
    this.seedToday();
  }

  /** Moves the device's clock on from the given one (ms), so a test can let a forcible period run out. */
  get clockOffsetMs(): number {
    return this.offset.ms;
  }

  set clockOffsetMs(ms: number) {
    this.offset.ms = ms;
  }

  /** The device's clock: the given one plus `clockOffsetMs`. */
  time(): Date {
    return this.now();
  }

  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    return imageWords(READABLE, address, count, () => this.image(this.step()));
  }

  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    const writes: Array<{ address: number; value: number }> = [];
    for (let i = 0; i < values.length;) {
      const at = address + i;
      const setting = WRITABLE[at];
      if (!setting || i + setting.words > values.length)
        throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
      const value = setting.words === 2 ? values[i]! * 0x10000 + values[i + 1]! : values[i]!;
      if (!setting.valid(value)) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
      writes.push({ address: at, value });
      i += setting.words;
    }
    this.step();
    for (const { address: at, value } of writes) this.set(at, value);
    if (writes.some((w) => COUNTDOWN.has(w.address))) this.restartCountdown();
  }

  /**
   * Today's counters as a self-consuming day up to now would have left them (quarter-hour steps
   * from local midnight), so a device started at noon shows a morning's energy.
   */
  private seedToday(): void {
    const now = this.now();
    const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
    for (let t = midnight; t + 900_000 <= now.getTime(); t += 900_000) {
      const time = new Date(t);
      const pv = PEAK_PV_W.reduce((sum, peak) => sum + peak, 0) * sunFraction(time);
      const surplus = pv - householdLoad(time);
      const battery = surplus >= 0 ? Math.min(surplus, this.maxChargingW) : -Math.min(-surplus, this.maxDischargingW);
      this.day.add('yield', pv - battery, 0.25);
      this.day.add('charge', battery, 0.25);
      this.day.add('discharge', -battery, 0.25);
    }
  }

  /** Stops the forcible command, as the end of its period does. */
  stopForcible(): void {
    this.forcible.command = 0;
    this.forcibleEndsAt = null;
  }

  private restartCountdown(): void {
    const { command, settingMode, period } = this.forcible;
    if (command === 0) this.forcibleEndsAt = null;
    else if (settingMode === 0) this.forcibleEndsAt = this.stepped + period * 60_000;
    else this.forcibleEndsAt = null;
    if (command !== 0 && settingMode === 0 && period === 0) this.stopForcible();
  }

  private set(address: number, value: number): void {
    const f = this.forcible;
    if (address === 47075) this.maxChargingW = value;
    else if (address === 47077) this.maxDischargingW = value;
    else if (address === 47081) this.chargeCutoffSoc = value / 10;
    else if (address === 47082) this.dischargeCutoffSoc = value / 10;
    else if (address === FORCIBLE.period) f.period = value;
    else if (address === 47086) this.workingMode = value;
    else if (address === 47087) this.chargeFromGrid = value;
    else if (address === FORCIBLE.command) f.command = value;
    else if (address === FORCIBLE.targetSoc) f.targetSoc = value / 10;
    else if (address === FORCIBLE.settingMode) f.settingMode = value;
    else if (address === FORCIBLE.chargePower) f.chargePower = value;
    else if (address === FORCIBLE.dischargePower) f.dischargePower = value;
  }

  /** Moves the battery and the counters on to now: under the forcible command until its period ran out (when it did meanwhile), in the working mode after. */
  private step(): Flows {
    const hours = this.day.advance();
    const now = this.now().getTime();
    const from = this.stepped;
    this.stepped = now;
    const end = this.forcibleEndsAt;
    if (end === null || end > now) return this.integrate(hours);
    const forced = now > from ? clamp((end - from) / (now - from), 0, 1) : 0;
    this.integrate(hours * forced);
    this.stopForcible();
    return this.integrate(hours * (1 - forced));
  }

  private integrate(hours: number): Flows {
    const flows = this.flows();
    this.soc = clamp(this.soc + (flows.battery * hours * 100) / CAPACITY_WH, 0, 100);
    for (const [name, watts] of [
      ['yield', flows.output],
      ['charge', flows.battery],
      ['discharge', -flows.battery],
    ] as const)
      this.day.add(name, watts, hours);
    const l = this.lifetime;
    l.yieldWh += Math.max(flows.output, 0) * hours;
    l.importWh += Math.max(flows.grid, 0) * hours;
    l.exportWh += Math.max(-flows.grid, 0) * hours;
    l.chargeWh += Math.max(flows.battery, 0) * hours;
    l.dischargeWh += Math.max(-flows.battery, 0) * hours;
    const f = this.forcible;
    if (f.command === 1 && f.settingMode === 1 && this.soc >= f.targetSoc) this.stopForcible();
    if (f.command === 2 && f.settingMode === 1 && this.soc <= f.targetSoc) this.stopForcible();
    return flows;
  }

  private flows(): Flows {
    const time = this.now();
    const sun = sunFraction(time);
    const strings = PEAK_PV_W.map((peak, i) => {
      const volts = sun > 0 ? Math.round((360 + 40 * sun - 15 * i) * 10) / 10 : 0;
      return { volts, amps: volts > 0 ? Math.round(((peak * sun) / volts) * 100) / 100 : 0 };
    });
    const pv = Math.round(strings.reduce((sum, s) => sum + s.volts * s.amps, 0));
    const load = householdLoad(time);
    const luna = this.lunaPresent ? 1 : 0;
    const canCharge = this.soc < this.chargeCutoffSoc ? luna * Math.min(this.maxChargingW, BATTERY_MAX_W) : 0;
    const canDischarge = this.soc > this.dischargeCutoffSoc ? luna * Math.min(this.maxDischargingW, BATTERY_MAX_W) : 0;
    const f = this.forcible;
    let battery: number;
    if (f.command === 1) battery = Math.min(f.chargePower, canCharge);
    else if (f.command === 2) battery = -Math.min(f.dischargePower, canDischarge);
    else
      battery = pv >= load ? Math.min((pv - load) * FOLLOW, canCharge) : -Math.min((load - pv) * FOLLOW, canDischarge);
    battery = Math.round(battery) || 0;
    const output = pv - battery;
    return { strings, pv, load, battery, output, grid: load - output };
  }

  private image(flows: Flows): Map<number, number> {
    const time = this.now();
    const f = this.forcible;
    const volts = Math.round((48 + 0.08 * this.soc) * 10) / 10;
    const inverter = {
      pv_voltage_1: flows.strings[0]!.volts,
      pv_current_1: flows.strings[0]!.amps,
      pv_voltage_2: flows.strings[1]!.volts,
      pv_current_2: flows.strings[1]!.amps,
      pv_power: flows.pv,
      grid_voltage: 231.4,
      output_power: flows.output,
      grid_frequency: 49.98,
      temperature: 38.6,
      device_mode: labelOf(DEVICE_STATUS, flows.pv > 0 || flows.battery !== 0 ? 0x0200 : 0x0002),
      pv_energy_total: Math.round(this.lifetime.yieldWh / 10) / 100,
      pv_energy_today: Math.round(this.day.kWh('yield') * 100) / 100,
      meter_status: labelOf(METER_STATUS, 1),
      meter_voltage: 232.1,
      grid_power: flows.grid,
      grid_frequency_meter: 50.01,
      grid_export_energy_total: Math.round(this.lifetime.exportWh / 10) / 100,
      grid_import_energy_total: Math.round(this.lifetime.importWh / 10) / 100,
      battery_state_of_charge: Math.round(this.soc * 10) / 10,
      battery_power: flows.battery,
      battery_charge_energy_today: Math.round(this.day.kWh('charge') * 100) / 100,
      battery_discharge_energy_today: Math.round(this.day.kWh('discharge') * 100) / 100,
      max_charging_power: this.maxChargingW,
      max_discharging_power: this.maxDischargingW,
      charging_cutoff_soc: this.chargeCutoffSoc,
      discharging_cutoff_soc: this.dischargeCutoffSoc,
      forcible_period: f.period,
      working_mode: labelOf(WORKING_MODES, this.workingMode),
      charge_from_grid: this.chargeFromGrid === 1 ? 'Enabled' : 'Disabled',
      forcible_command: labelOf(FORCIBLE_COMMANDS, f.command),
      model: 'SUN2000-6KTL-M1',
      serial: 'HV2250123456',
      rated_power: RATED_W,
    };
    const battery = {
      temperature: 24.7,
      rated_capacity: this.lunaPresent ? CAPACITY_WH / 1000 : 0,
      state_of_charge: Math.round(this.soc * 10) / 10,
      running_status: labelOf(STORAGE_STATUS, 2),
      voltage: volts,
      current: Math.round((flows.battery / volts) * 10) / 10,
      power: flows.battery,
      total_charge_energy: Math.round(this.lifetime.chargeWh / 10) / 100,
      total_discharge_energy: Math.round(this.lifetime.dischargeWh / 10) / 100,
    };
    const words = new Map([
      ...registerMapImage(identityMap, { inverter }).holding,
      ...registerMapImage(huaweiMap, { inverter, battery }).holding,
    ]);
    const u32 = (address: number, value: number) => {
      words.set(address, Math.floor(value / 0x10000) & 0xffff);
      words.set(address + 1, value & 0xffff);
    };
    words.set(30071, 2); // NB_PV_STRINGS
    words.set(30072, 2); // NB_MPP_TRACKS
    u32(30075, RATED_W); // P_MAX
    // Storage unit 1 (registers.py BATTERY_REGISTERS): status, power (+ charging), bus voltage, SOC.
    words.set(37000, 2);
    u32(37001, flows.battery >>> 0);
    words.set(37003, Math.round(volts * 10));
    words.set(37004, Math.round(this.soc * 10));
    u32(37046, BATTERY_MAX_W);
    u32(37048, BATTERY_MAX_W);
    words.set(37125, 0); // METER_TYPE: single phase
    u32(40000, Math.floor(time.getTime() / 1000)); // SYSTEM_TIME
    words.set(47000, 2); // STORAGE_UNIT_1_PRODUCT_MODEL: HUAWEI_LUNA2000
    words.set(FORCIBLE.targetSoc, Math.round(f.targetSoc * 10));
    words.set(FORCIBLE.settingMode, f.settingMode);
    u32(FORCIBLE.chargePower, f.chargePower);
    u32(FORCIBLE.dischargePower, f.dischargePower);
    return words;
  }
}
