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
import { singlePhaseMap, type GridPowerSource } from './register-map.js';
import { threePhaseMap } from './three-phase-map.js';

/**
 * Time-of-use programme registers (six slots each), per family, for the battery-control
 * settings: the single-phase units hold them at 248..279, the three-phase ones at 146..177.
 */
export interface TouRegisters {
  /** The "use timer" switch (bit 0; on three-phase units bits 1..7 are the weekdays). */
  enable: number;
  times: number;
  power: number;
  voltage: number;
  soc: number;
  /** Grid/generator charge bits (mask 0x03) and the mode bits (mask 0x1c). */
  flags: number;
}

export interface DeyeModel {
  id: 'single-phase' | 'three-phase-lv' | 'three-phase-hv';
  /** Where the rated power (u32, low word first, 0.1 W) lives. */
  ratedPowerAddress: number;
  map(options: { ratedW: number; gridPowerSource: GridPowerSource }): RegisterMap;
  tou: TouRegisters;
}

const SINGLE_PHASE_TOU: TouRegisters = { enable: 248, times: 250, power: 256, voltage: 262, soc: 268, flags: 274 };
const THREE_PHASE_TOU: TouRegisters = { enable: 146, times: 148, power: 154, voltage: 160, soc: 166, flags: 172 };

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
      tou: THREE_PHASE_TOU,
    },
  },
  {
    codes: [0x0006, 0x0007, 0x0008, 0x0600, 0x0601, 0x0602],
    label: 'Three-phase hybrid (HV)',
    value: {
      id: 'three-phase-hv',
      ratedPowerAddress: 20,
      map: ({ ratedW }) => threePhaseMap({ hv: true, ratedW }),
      tou: THREE_PHASE_TOU,
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
