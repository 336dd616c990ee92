/**
 * The emulated Deye's time-of-use program ("System work mode" timer), at each model's own
 * addresses and in its own units, as the public definitions give them:
 * - single-phase (kellerza/sunsynk `single_phase.py`, ha-solarman `deye_hybrid.yaml`): 248
 *   bit 0 "use timer" and bits 1..7 the days it runs, Monday to Sunday (ha-solarman's "Time of
 *   Use" at 0x00F8: 0x0003 Monday .. 0x0081 Sunday, 0x00FF every day, the same list as at 146
 *   on three-phase units; kellerza/sunsynk names only bit 0, "Use Timer"), 250..255 the six
 *   time points (HHMM), 256..261 battery power (W, up to 12000), 262..267 voltage (V x0.01),
 *   268..273 SOC (%), 274..279 bit 0 grid charge and bit 1 generator charge; 232 bit 0 grid
 *   charge enabled;
 * - three-phase (`three_phase_common.py`, `deye_p3.yaml`): 146 bit 0 "use timer" and bits 1..7
 *   the days it runs, Monday to Sunday ("Prog Monday Enabled" ..), 148..177 the same six
 *   slots, 130 grid charge enabled; the LV units count slot power in W (up to 32000), the HV
 *   units in tens of W (`three_phase_hv.py` "Prog1 power" factor 10; ha-solarman scale 10, up
 *   to 12800) and slot voltage in tenths of a volt (ha-solarman scale 0.1).
 * With the timer on and today's bit set (by the device's clock), the slot in force at the time
 * of day (the latest time point at or before it; before the first, the day's last one, past
 * midnight) sets a floor for discharging (its SOC), a cap on the battery's discharge power
 * (its power) and, with grid charge on in the slot and enabled, charges from the grid up to
 * its SOC.
 */
import type { DeyeEmulatorModel } from './models.js';

interface TouLayout {
  useTimer: number;
  gridChargeEnabled: number;
  /** The first of the 30 program registers (times, powers, voltages, SOCs, flags). */
  time: number;
  /** W per unit of the power registers, and the largest word. */
  powerUnitW: number;
  maxPower: number;
  /** The voltage registers' range (kellerza/sunsynk: 41..60 V; 160..700 V on HV units). */
  voltage: readonly [number, number];
}

const LAYOUTS: Record<DeyeEmulatorModel, TouLayout> = {
  'single-phase': {
    useTimer: 248,
    gridChargeEnabled: 232,
    time: 250,
    powerUnitW: 1,
    maxPower: 12_000,
    voltage: [4100, 6000],
  },
  'three-phase-lv': {
    useTimer: 146,
    gridChargeEnabled: 130,
    time: 148,
    powerUnitW: 1,
    maxPower: 32_000,
    voltage: [4100, 6000],
  },
  'three-phase-hv': {
    useTimer: 146,
    gridChargeEnabled: 130,
    time: 148,
    powerUnitW: 10,
    maxPower: 12_800,
    voltage: [1600, 7000],
  },
};

const SLOTS = 6;
const TIME = 0;
const POWER = 1;
const VOLTAGE = 2;
const SOC = 3;
const CHARGE = 4;

/** What the program does at one moment, for the site's flows. */
export interface TouEffect {
  /** The slot in force (0..5). */
  slot: number;
  /** Discharging stops at this SOC (%). */
  floorSoc: number;
  /** Largest discharge power, W. */
  maxDischargeW: number;
  /** Grid charging runs until this SOC (%); null when the slot does not grid charge. */
  gridChargeToSoc: number | null;
}

export class TouProgram {
  useTimer = 0;
  gridChargeEnabled = 0;
  /** The 30 program words: 6 times, 6 powers, 6 voltages, 6 SOCs, 6 charge flags. */
  readonly words: number[];
  private readonly layout: TouLayout;

  constructor(model: DeyeEmulatorModel = 'single-phase') {
    this.layout = LAYOUTS[model];
    const volts = model === 'three-phase-hv' ? 4000 : 4900;
    this.words = [
      ...[0, 400, 800, 1200, 1600, 2000],
      ...new Array<number>(SLOTS).fill(5000 / this.layout.powerUnitW),
      ...new Array<number>(SLOTS).fill(volts),
      ...new Array<number>(SLOTS).fill(20),
      ...new Array<number>(SLOTS).fill(0),
    ];
  }

  private block(address: number): number {
    return Math.floor((address - this.layout.time) / SLOTS);
  }

  /** Whether `address` belongs to the program. */
  owns(address: number): boolean {
    const { useTimer, gridChargeEnabled, time } = this.layout;
    return address === useTimer || address === gridChargeEnabled || (address >= time && address < time + 5 * SLOTS);
  }

  /** The device's check of one write (exception 03 when false). */
  valid(address: number, value: number): boolean {
    const { useTimer, gridChargeEnabled, maxPower, voltage } = this.layout;
    if (address === useTimer || address === gridChargeEnabled) return value <= 0xff;
    const block = this.block(address);
    if (block === TIME) return Math.floor(value / 100) < 24 && value % 100 < 60;
    if (block === POWER) return value <= maxPower;
    if (block === VOLTAGE) return value >= voltage[0] && value <= voltage[1];
    if (block === SOC) return value <= 100;
    return value <= 0xff;
  }

  write(address: number, value: number): void {
    if (address === this.layout.useTimer) this.useTimer = value;
    else if (address === this.layout.gridChargeEnabled) this.gridChargeEnabled = value;
    else this.words[address - this.layout.time] = value;
  }

  registers(): Map<number, number> {
    const r = new Map<number, number>([
      [this.layout.useTimer, this.useTimer],
      [this.layout.gridChargeEnabled, this.gridChargeEnabled],
    ]);
    this.words.forEach((word, i) => r.set(this.layout.time + i, word));
    return r;
  }

  private word(block: number, slot: number): number {
    return this.words[block * SLOTS + slot]!;
  }

  /** The slot in force at `time` (its local time of day): the latest time point at or before it, wrapping past midnight. */
  slotAt(time: Date): number {
    const minutes = (word: number) => Math.floor(word / 100) * 60 + (word % 100);
    const now = time.getHours() * 60 + time.getMinutes();
    let best = -1;
    let latest = 0;
    for (let i = 0; i < SLOTS; i++) {
      const at = minutes(this.word(TIME, i));
      if (at <= now && (best < 0 || at >= minutes(this.word(TIME, best)))) best = i;
      if (at >= minutes(this.word(TIME, latest))) latest = i;
    }
    return best >= 0 ? best : latest;
  }

  /** Whether the program runs at `time` (the device's clock): the timer on and the day's bit (1 Monday .. 7 Sunday). */
  running(time: Date): boolean {
    return (this.useTimer & 1) !== 0 && (this.useTimer & (1 << (time.getDay() || 7))) !== 0;
  }

  /** What the program does at `time` (the device's clock); null when it does not run. */
  effect(time: Date): TouEffect | null {
    if (!this.running(time)) return null;
    const slot = this.slotAt(time);
    const gridCharge = (this.gridChargeEnabled & 1) === 1 && (this.word(CHARGE, slot) & 1) === 1;
    return {
      slot,
      floorSoc: this.word(SOC, slot),
      maxDischargeW: this.word(POWER, slot) * this.layout.powerUnitW,
      gridChargeToSoc: gridCharge ? this.word(SOC, slot) : null,
    };
  }
}
