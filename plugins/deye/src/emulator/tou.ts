/**
 * The emulated Deye's time-of-use program (the "System work mode" timer of the single-phase
 * hybrids, registers as kellerza/sunsynk's single_phase definitions list them): 248 bit 0
 * "use timer", 250..255 the six time points (HHMM), 256..261 their battery power (W),
 * 262..267 their battery voltage (V x0.01), 268..273 their SOC (%), 274..279 bit 0 grid
 * charge and bit 1 generator charge; 232 bit 0 grid charge enabled. With the timer on, the
 * slot in force at the time of day sets a floor for discharging (its SOC), a cap on the
 * battery's discharge power (its power) and, with grid charge on, charges from the grid up
 * to its SOC at the grid charge current.
 */

export const TOU = {
  useTimer: 248,
  gridChargeEnabled: 232,
  time: 250,
  power: 256,
  voltage: 262,
  soc: 268,
  charge: 274,
  slots: 6,
} as const;

/** What the program does at one moment, for the site's flows. */
export interface TouEffect {
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
  readonly time = [0, 400, 800, 1200, 1600, 2000];
  readonly power = [5000, 5000, 5000, 5000, 5000, 5000];
  readonly voltage = [4900, 4900, 4900, 4900, 4900, 4900];
  readonly soc = [20, 20, 20, 20, 20, 20];
  readonly charge = [0, 0, 0, 0, 0, 0];

  /** Whether `address` belongs to the program. */
  static owns(address: number): boolean {
    return (
      address === TOU.useTimer ||
      address === TOU.gridChargeEnabled ||
      (address >= TOU.time && address < TOU.charge + TOU.slots)
    );
  }

  /** The device's check of one write (exception 03 when false). */
  static valid(address: number, value: number): boolean {
    if (address === TOU.useTimer || address === TOU.gridChargeEnabled) return value <= 0xff;
    const block = Math.floor((address - TOU.time) / TOU.slots);
    if (block === 0) return Math.floor(value / 100) < 24 && value % 100 < 60;
    if (block === 1) return value <= 12000;
    if (block === 2) return value >= 4100 && value <= 6000;
    if (block === 3) return value <= 100;
    return value <= 0x1f;
  }

  write(address: number, value: number): void {
    if (address === TOU.useTimer) this.useTimer = value;
    else if (address === TOU.gridChargeEnabled) this.gridChargeEnabled = value;
    else {
      const slot = (address - TOU.time) % TOU.slots;
      const arrays = [this.time, this.power, this.voltage, this.soc, this.charge];
      arrays[Math.floor((address - TOU.time) / TOU.slots)]![slot] = value;
    }
  }

  registers(): Map<number, number> {
    const r = new Map<number, number>([
      [TOU.useTimer, this.useTimer],
      [TOU.gridChargeEnabled, this.gridChargeEnabled],
    ]);
    [this.time, this.power, this.voltage, this.soc, this.charge].forEach((values, block) =>
      values.forEach((value, slot) => r.set(TOU.time + block * TOU.slots + slot, value)),
    );
    return r;
  }

  /** The slot in force at `time` (local time of day): the last time point at or before it, wrapping past midnight. */
  slotAt(time: Date): number {
    const hhmm = time.getHours() * 100 + time.getMinutes();
    let best = -1;
    for (let i = 0; i < TOU.slots; i++) {
      if (this.time[i]! <= hhmm && (best < 0 || this.time[i]! >= this.time[best]!)) best = i;
    }
    if (best >= 0) return best;
    return this.time.indexOf(Math.max(...this.time));
  }

  /** What the program does at `time`; null with the timer off. */
  effect(time: Date): TouEffect | null {
    if ((this.useTimer & 1) === 0) return null;
    const slot = this.slotAt(time);
    const gridCharge = (this.gridChargeEnabled & 1) === 1 && (this.charge[slot]! & 1) === 1;
    return {
      floorSoc: this.soc[slot]!,
      maxDischargeW: this.power[slot]!,
      gridChargeToSoc: gridCharge ? this.soc[slot]! : null,
    };
  }
}
