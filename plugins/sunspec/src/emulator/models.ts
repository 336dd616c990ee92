/**
 * The SunSpec model blocks of the emulated device, laid out as the public model definitions
 * (sunspec/models, json/model_<ID>.json) place their points. Each builder returns the whole
 * block: ID, L, then L registers. Points a real single-phase hybrid leaves out read "not
 * implemented" (0xFFFF uint16/enum16, 0x8000 int16/sunssf, 0 acc32), so a driver's null
 * handling is exercised.
 */
import { textWords, toWord, wordsOf32 } from '@heliograph/plugins-sdk/emulator';
import { RATE_SF, type StorageControls } from './storage-control.js';

export const NI_U16 = 0xffff;
export const NI_S16 = 0x8000;

/** What the blocks show at one moment. */
export interface Snapshot {
  /** Per MPPT: W and V. */
  strings: Array<{ watts: number; volts: number; lifetimeWh: number }>;
  /** AC output, W (+ produced). */
  acW: number;
  acLifetimeWh: number;
  gridVolts: number;
  hz: number;
  /** At the grid connection, W, + import. */
  meterW: number;
  importWh: number;
  exportWh: number;
  /** %, fractional. */
  soc: number;
  /** Battery W, + discharging (SunSpec's battery sign). */
  batteryW: number;
  batteryVolts: number;
  /** Model 124's writable points. */
  controls: Readonly<StorageControls>;
  cycles: number;
}

/** A block of `length` data registers filled with `fill`, with points set by data offset (JSON offset - 2). */
function block(id: number, length: number, fill: number, points: Record<number, number | number[]>): number[] {
  const data = Array<number>(length).fill(fill);
  for (const [offset, value] of Object.entries(points)) {
    const words = Array.isArray(value) ? value : [value];
    words.forEach((word, i) => (data[Number(offset) + i] = word));
  }
  return [id, length, ...data];
}

/** Model 1, common: who made the device. */
export function commonModel(identity: {
  manufacturer: string;
  model: string;
  version: string;
  serial: string;
}): number[] {
  return block(1, 66, 0, {
    0: textWords(identity.manufacturer, 16),
    16: textWords(identity.model, 16),
    // 32: Opt left all NUL: "not implemented" for a string.
    40: textWords(identity.version, 8),
    48: textWords(identity.serial, 16),
    64: 1,
    65: NI_S16,
  });
}

/** Model 101, single-phase inverter (integer + scale factors); phases B and C not implemented. */
export function inverterModel(s: Snapshot): number[] {
  const dcW = s.strings.reduce((sum, x) => sum + x.watts, 0);
  const dcV = s.strings[0]?.volts ?? 0;
  const producing = dcW > 0;
  return block(101, 50, NI_U16, {
    0: Math.round((Math.abs(s.acW) / s.gridVolts) * 100),
    1: Math.round((Math.abs(s.acW) / s.gridVolts) * 100),
    4: toWord(-2), // A_SF
    8: Math.round(s.gridVolts * 10),
    11: toWord(-1), // V_SF
    12: toWord(s.acW),
    13: 0, // W_SF
    14: Math.round(s.hz * 100),
    15: toWord(-2), // Hz_SF
    16: toWord(Math.abs(s.acW)),
    17: 0, // VA_SF
    18: NI_S16, // VAr
    19: NI_S16, // VAr_SF
    20: 100, // PF, %
    21: 0, // PF_SF
    22: wordsOf32(s.acLifetimeWh),
    24: 0, // WH_SF
    25: dcV > 0 ? Math.round((dcW / dcV) * 100) : 0,
    26: toWord(-2), // DCA_SF
    27: Math.round(dcV * 10),
    28: toWord(-1), // DCV_SF
    29: toWord(dcW),
    30: 0, // DCW_SF
    31: toWord(380 + (dcW / 100) * 2), // TmpCab, 0.1 °C
    32: toWord(400 + (dcW / 100) * 3), // TmpSnk
    33: NI_S16, // TmpTrns
    34: NI_S16, // TmpOt
    35: toWord(-1), // Tmp_SF
    36: producing ? 4 : 2, // St: MPPT by day, SLEEPING at night
    // 37 StVnd stays not implemented
    38: [0, 0], // Evt1
    40: [0, 0], // Evt2
  });
}

/** Model 160, multiple MPPT: one module group of 20 registers per string. */
export function mpptModel(s: Snapshot): number[] {
  const modules = s.strings.flatMap((string, i) =>
    block(0, 20, 0, {
      0: i + 1,
      1: textWords(`String ${i + 1}`, 8),
      9: string.volts > 0 ? Math.round((string.watts / string.volts) * 100) : 0,
      10: Math.round(string.volts * 10),
      11: Math.round(string.watts),
      12: wordsOf32(string.lifetimeWh),
      14: [NI_U16, NI_U16], // Tms: not implemented
      16: NI_S16, // Tmp
      17: string.watts > 0 ? 4 : 2,
      18: [0, 0],
    }).slice(2),
  );
  const head = block(160, 8, 0, {
    0: toWord(-2),
    1: toWord(-1),
    2: 0,
    3: 0,
    4: [0, 0],
    6: s.strings.length,
    7: NI_U16,
  });
  return [160, 8 + modules.length, ...head.slice(2), ...modules];
}

/** Model 203, three-phase wye meter at the grid connection, + import; only phase A is wired. */
export function meterModel(s: Snapshot): number[] {
  const amps = Math.round((Math.abs(s.meterW) / s.gridVolts) * 100);
  return block(203, 105, NI_S16, {
    0: amps,
    1: amps,
    4: toWord(-2), // A_SF
    5: Math.round(s.gridVolts * 10),
    6: Math.round(s.gridVolts * 10),
    13: toWord(-1), // V_SF
    14: Math.round(s.hz * 100),
    15: toWord(-2), // Hz_SF
    16: toWord(s.meterW),
    17: toWord(s.meterW),
    20: 0, // W_SF
    36: [...wordsOf32(s.exportWh), 0, 0, 0, 0, 0, 0], // TotWhExp, per phase not implemented
    44: [...wordsOf32(s.importWh), 0, 0, 0, 0, 0, 0],
    52: 0, // TotWh_SF
    53: Array<number>(16).fill(0), // TotVAh*: acc32 not implemented
    70: Array<number>(32).fill(0), // TotVArh*: acc32 not implemented
    103: [0, 0], // Evt
  });
}

/** AHRtg of model 802, Ah: the capacity rating model 124's StorAval counts in. */
const AH_RATING = 200;

/**
 * Model 124, basic storage controls: WChaMax, the ramps, StorCtl_Mod, MinRsvPct, the rates,
 * the three timers and ChaGriSet are writable (VAChaMax is not implemented).
 */
export function storageModel(s: Snapshot): number[] {
  const chaSt = s.batteryW < 0 ? 4 : s.batteryW > 0 ? 3 : s.soc >= 100 ? 5 : 6;
  const c = s.controls;
  return block(124, 24, NI_U16, {
    0: c.maxChargeW,
    1: c.chargeRamp, // WChaGra
    2: c.dischargeRamp, // WDisChaGra
    3: c.mode, // StorCtl_Mod
    5: c.minReservePct,
    6: Math.round(s.soc * 10),
    // StorAval: "ChaState minus MinRsvPct times AhrRtg", Ah.
    7: Math.round((Math.max(0, s.soc - c.minReservePct) / 100) * AH_RATING),
    8: Math.round(s.batteryVolts * 10),
    9: chaSt,
    10: c.outRate, // OutWRte
    11: c.inRate, // InWRte
    12: c.winTms,
    13: c.rvrtTms,
    14: c.rmpTms,
    15: c.gridCharge, // ChaGriSet
    16: 0, // WChaMax_SF
    17: 0, // WChaDisChaGra_SF
    18: NI_S16, // VAChaMax_SF
    19: 0, // MinRsvPct_SF
    20: toWord(-1), // ChaState_SF
    21: 0, // StorAval_SF
    22: toWord(-1), // InBatV_SF
    23: toWord(RATE_SF), // InOutWRte_SF
  });
}

/** Model 802, battery base: + discharging for A and W. */
export function batteryModel(s: Snapshot): number[] {
  const chaSt = s.batteryW < 0 ? 4 : s.batteryW > 0 ? 3 : s.soc >= 100 ? 5 : 6;
  const cellMv = Math.round((s.batteryVolts / 16) * 1000);
  return block(802, 62, NI_U16, {
    0: AH_RATING, // AHRtg
    1: 10240, // WHRtg
    2: 5000, // WChaRteMax
    3: 5000, // WDisChaRteMax
    5: 1000, // SoCMax, 100.0 %
    6: Math.round(s.controls.minReservePct * 10),
    9: Math.round(s.soc * 10),
    11: 98, // SoH
    12: wordsOf32(s.cycles),
    14: chaSt,
    15: 1, // LocRemCtl: remote
    18: 0, // AlmRst
    19: 4, // Typ: lithium-ion
    20: 3, // State: connected
    24: [0, 0, 0, 0, 0, 0, 0, 0], // Evt1, Evt2, EvtVnd1, EvtVnd2
    32: Math.round(s.batteryVolts * 10),
    35: cellMv + 8,
    38: cellMv - 6,
    41: cellMv,
    42: toWord((s.batteryW / s.batteryVolts) * 10),
    43: 100,
    44: 100,
    45: toWord(s.batteryW),
    47: NI_S16, // ReqW
    48: 0, // SetOp
    49: 0, // SetInvState
    50: 0, // AHRtg_SF
    51: 0, // WHRtg_SF
    52: 0, // WChaDisChaMax_SF
    53: NI_S16, // DisChaRte_SF
    54: toWord(-1), // SoC_SF
    55: NI_S16, // DoD_SF
    56: 0, // SoH_SF
    57: toWord(-1), // V_SF
    58: toWord(-3), // CellV_SF
    59: toWord(-1), // A_SF
    60: 0, // AMax_SF
    61: 0, // W_SF
  });
}
