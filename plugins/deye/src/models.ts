/*
 * The Deye / Sunsynk models this driver knows, chosen by the device type in register 0. The
 * codes are those both public definitions agree on (kellerza/sunsynk `identity.py`,
 * ha-solarman `deye_hybrid.yaml`); string inverters (2), microinverters (4) and the codes
 * the two disagree on (0x0103, 0x0200) are refused with their code.
 */
import {
  chooseModel,
  defineRegisterMap,
  type ModelChoice,
  type RegisterMap,
} from '@heliograph/plugins-sdk/connections';
import type { GridPowerSource } from './map-parts.js';
import { singlePhaseMap } from './single-phase-map.js';
import { threePhaseMap } from './three-phase-map.js';

/**
 * Time-of-use programme registers (six slots each), per family, and what battery control
 * reads and writes beside them: the single-phase units hold the programme at 248..279, the
 * three-phase ones at 146..177 (kellerza/sunsynk `single_phase.py`, `three_phase_common.py`;
 * ha-solarman `deye_hybrid.yaml`, `deye_p3.yaml`).
 */
export interface TouRegisters {
  /**
   * Bit 0 "use timer"; bits 1..7 the days it runs, Monday..Sunday ("Prog Monday Enabled" ..
   * "Prog Sunday Enabled", `three_phase_common.py`; ha-solarman's "Time of Use" lists the same
   * days at 248 in `deye_hybrid.yaml` as at 146 in `deye_p3.yaml`, where kellerza/sunsynk's
   * `single_phase.py` names only bit 0, "Use Timer").
   */
  enable: number;
  /** First of the 30 programme registers: 6 times (HHMM), 6 powers, 6 voltages, 6 SOCs, 6 flags. */
  times: number;
  power: number;
  voltage: number;
  soc: number;
  /** Grid/generator charge bits (mask 0x03) and the mode bits (mask 0x1c). */
  flags: number;
  /** W per unit of the slot power registers: 1, 10 on the HV units (three_phase_hv.py "Prog1 power" factor 10). */
  powerUnitW: number;
  /** The largest slot power word the device takes (ha-solarman's range: 12000; 32000 LV, 12800 HV). */
  maxPowerWord: number;
  /** Grid charge enabled (bit 0) and the grid charge current, A. */
  gridChargeEnabled: number;
  gridChargeCurrent: number;
  /**
   * The device's clock, three registers: (year − 2000) << 8 | month, day << 8 | hour,
   * minute << 8 | second ("Date time" 22..24 on single-phase units, 62..64 on three-phase ones).
   */
  clock: number;
  /** The battery's SOC (%) and voltage (`batteryVoltageScale` V per unit) now. */
  batterySoc: number;
  batteryVoltage: number;
  batteryVoltageScale: number;
  /** Largest grid charge current the device takes, A. */
  maxGridChargeA: number;
}

export interface DeyeModel {
  id: 'single-phase' | 'three-phase-lv' | 'three-phase-hv';
  /** Where the rated power (u32, low word first, 0.1 W) lives. */
  ratedPowerAddress: number;
  map(options: { ratedW: number; gridPowerSource: GridPowerSource }): RegisterMap;
  tou: TouRegisters;
}

const SINGLE_PHASE_TOU: TouRegisters = {
  enable: 248,
  times: 250,
  power: 256,
  voltage: 262,
  soc: 268,
  flags: 274,
  powerUnitW: 1,
  maxPowerWord: 12_000,
  gridChargeEnabled: 232,
  gridChargeCurrent: 230,
  clock: 22,
  batterySoc: 184,
  batteryVoltage: 183,
  batteryVoltageScale: 0.01,
  maxGridChargeA: 185,
};
const THREE_PHASE_LV_TOU: TouRegisters = {
  enable: 146,
  times: 148,
  power: 154,
  voltage: 160,
  soc: 166,
  flags: 172,
  powerUnitW: 1,
  maxPowerWord: 32_000,
  gridChargeEnabled: 130,
  gridChargeCurrent: 128,
  clock: 62,
  batterySoc: 588,
  batteryVoltage: 587,
  batteryVoltageScale: 0.01,
  // "Grid Charge Battery current" (128) max 185 A, as the grid_charge_current setting has it.
  maxGridChargeA: 185,
};
// Slot power in tens of W: 50 kW is 5000, well within a register (ha-solarman: up to 12800, 128 kW).
const THREE_PHASE_HV_TOU: TouRegisters = {
  ...THREE_PHASE_LV_TOU,
  powerUnitW: 10,
  maxPowerWord: 12_800,
  batteryVoltageScale: 0.1,
  maxGridChargeA: 50,
};

export const DEYE_MODELS: ReadonlyArray<ModelChoice<DeyeModel>> = [
  {
    codes: [0x0003, 0x0300],
    label: 'Single-phase hybrid',
    value: { id: 'single-phase', ratedPowerAddress: 16, map: singlePhaseMap, tou: SINGLE_PHASE_TOU },
  },
  {
    codes: [0x0005, 0x0500],
    label: 'Three-phase hybrid (LV)',
    value: {
      id: 'three-phase-lv',
      ratedPowerAddress: 20,
      map: ({ ratedW }) => threePhaseMap({ hv: false, ratedW }),
      tou: THREE_PHASE_LV_TOU,
    },
  },
  {
    codes: [0x0006, 0x0007, 0x0008, 0x0600, 0x0601, 0x0602],
    label: 'Three-phase hybrid (HV)',
    value: {
      id: 'three-phase-hv',
      ratedPowerAddress: 20,
      map: ({ ratedW }) => threePhaseMap({ hv: true, ratedW }),
      tou: THREE_PHASE_HV_TOU,
    },
  },
];

/** The model for a device type code; ConfigError naming the code when this driver does not know it. */
export function deyeModel(code: number): ModelChoice<DeyeModel> {
  return chooseModel(DEYE_MODELS, code, 'register 0 (device type)');
}

/** Read once per connection: the device type (register 0) and the serial number (3..7). */
export const identityMap = defineRegisterMap({
  registers: [
    { name: 'device_type', displayName: 'Device type', address: 0, type: 'u16' },
    { name: 'serial', displayName: 'Serial number', address: 3, type: 'string', length: 5 },
  ],
});

/** The rated power of a model (u32 in 0.1 W, low word first). */
export function ratedPowerMap(model: DeyeModel): RegisterMap {
  return defineRegisterMap({
    registers: [
      {
        name: 'rated_power',
        displayName: 'Rated power',
        unit: 'W',
        address: model.ratedPowerAddress,
        type: 'u32',
        wordOrder: 'low-first',
        scale: 0.1,
      },
    ],
  });
}
