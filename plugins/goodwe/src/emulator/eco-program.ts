/**
 * The emulated ET's eco mode groups and work mode, as the goodwe library describes them
 * (marcelblijleven/goodwe goodwe/et.py settings, goodwe/sensor.py `EcoModeV2` / `EcoModeV1`,
 * goodwe/inverter.py `OperationMode`): four V2 groups of 6 registers from 47547 (ARM firmware
 * 19 and later), the same groups seen as V1 (4 registers from 47515: times, power, on/off and
 * days; a V1 write sets the V2 group with SOC 100), and the peak shaving group at 47589. In
 * work mode Eco (47000 = 3) the first group in force by the device's clock steers the battery
 * (eco-mode.ts `inForce`): a negative power charges from the grid at that share of the rated
 * power up to the group's SOC and then holds, a positive one discharges down to the minimum
 * SOC; outside its groups, and in the other work modes, the inverter is in self-use.
 */
import {
  decodeGroup,
  ECO,
  GROUPS_V1,
  GROUPS_V2,
  inForce,
  permille,
  type DeviceTime,
  type EcoGroup,
} from '../eco-mode.js';

/** What the group in force does to the battery. */
export interface EcoEffect {
  group: number;
  /** W, + charging from the grid, − discharging. */
  powerW: number;
  /** Charging stops at this SOC. */
  toSoc: number;
}

/** A group switched off, as sensor.py `Schedule.encode_off` writes it: 48:00..48:00, 100 %, SOC 100. */
const OFF_V2 = [0x3000, 0x3000, 0x0000, 100, 100, 0];
/** The peak shaving group off (sensor.py `PeakShavingMode`: schedule type 3, power in tens of W). */
const PEAK_SHAVING_OFF = [0x3000, 0x3000, 0x0300, 10, 100, 0];
export const PEAK_SHAVING = 47589;

const validTime = (word: number) => {
  const h = word >> 8;
  const m = word & 0xff;
  return (h <= 23 || h === 48) && m <= 59;
};
const signedByte = (byte: number) => (byte >= 0x80 ? byte - 0x100 : byte);
const signedWord = (word: number) => (word >= 0x8000 ? word - 0x10000 : word);

/** Whether `words` is a group the library reads without error (sensor.py `Schedule.read_value`). */
function validGroup(words: readonly number[]): boolean {
  const onOff = signedByte(words[2]! >> 8);
  if (!validTime(words[0]!) || !validTime(words[1]!)) return false;
  if (!((onOff >= -7 && onOff <= 6) || onOff === 85)) return false;
  const power = signedWord(words[3]!);
  const range = onOff === -7 || onOff === 6 ? 1000 : onOff === -1 || onOff === 0 ? 100 : Infinity;
  return Math.abs(power) <= range && words[4]! <= 100;
}

export class EcoProgram {
  workMode = 0;
  /** The four V2 groups' registers. */
  readonly groups: number[][] = GROUPS_V2.map(() => [...OFF_V2]);
  peakShaving = [...PEAK_SHAVING_OFF];

  /** Whether `address` is one of the groups' registers (V1 or V2) or peak shaving's. */
  owns(address: number): boolean {
    return (
      this.v2At(address) !== null ||
      this.v1At(address) !== null ||
      (address >= PEAK_SHAVING && address < PEAK_SHAVING + 6)
    );
  }

  /** The registers of the groups, V2 and V1, and peak shaving. */
  registers(): Map<number, number> {
    const r = new Map<number, number>();
    this.groups.forEach((words, i) => {
      words.forEach((w, j) => r.set(GROUPS_V2[i]! + j, w));
      // sensor.py `as_eco_mode_v1`: on only for an eco group in % (on/off byte 0xFF), else 0.
      const v1 = [words[0]!, words[1]!, words[3]!, (words[2]! & 0xff00) === 0xff00 ? words[2]! : words[2]! & 0xff];
      v1.forEach((w, j) => r.set(GROUPS_V1[i]! + j, w));
    });
    this.peakShaving.forEach((w, j) => r.set(PEAK_SHAVING + j, w));
    return r;
  }

  /**
   * Writes `values` from `address` into the groups; false (nothing written) when a group would
   * then not read as one (an hour past 23, a power out of range).
   */
  write(address: number, values: readonly number[]): boolean {
    const groups = this.groups.map((g) => [...g]);
    const peak = [...this.peakShaving];
    for (let i = 0; i < values.length; i++) {
      const at = address + i;
      const v2 = this.v2At(at);
      const v1 = this.v1At(at);
      if (v2) groups[v2.group]![v2.offset] = values[i]!;
      else if (v1) {
        const g = groups[v1.group]!;
        const word = values[i]!;
        if (v1.offset < 2) g[v1.offset] = word;
        else if (v1.offset === 2) g[3] = word;
        // V1's on/off byte is 0 or 0xFF (an eco group); V1 has no SOC: 100.
        else [g[2], g[4], g[5]] = [word, 100, 0];
      } else peak[at - PEAK_SHAVING] = values[i]!;
    }
    if (!groups.every(validGroup) || !validGroup(peak)) return false;
    groups.forEach((g, i) => (this.groups[i] = g));
    this.peakShaving = peak;
    return true;
  }

  /** The groups as eco-mode.ts reads them. */
  decoded(): EcoGroup[] {
    return this.groups.map((g) => decodeGroup(g, 'v2'));
  }

  /** What the program does at the device's time `now` with the rated power `ratedW`; null when it does not force the battery. */
  effect(now: DeviceTime, ratedW: number): EcoEffect | null {
    if (this.workMode !== ECO) return null;
    const groups = this.decoded();
    const index = groups.findIndex((g) => inForce(g, now));
    if (index < 0) return null;
    const g = groups[index]!;
    const share = g.power / (permille(g) ? 1000 : 100);
    return { group: index + 1, powerW: -share * ratedW, toSoc: g.soc };
  }

  private v2At(address: number): { group: number; offset: number } | null {
    const group = GROUPS_V2.findIndex((base) => address >= base && address < base + 6);
    return group < 0 ? null : { group, offset: address - GROUPS_V2[group]! };
  }

  private v1At(address: number): { group: number; offset: number } | null {
    const group = GROUPS_V1.findIndex((base) => address >= base && address < base + 4);
    return group < 0 ? null : { group, offset: address - GROUPS_V1[group]! };
  }
}
