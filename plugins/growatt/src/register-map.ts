/*
 * The Growatt storage inverters' registers (Growatt Inverter Modbus RTU Protocol v1.20/v1.24).
 * Both families share the storage block (input 1000..1124: battery, grid and load flows and
 * today's energy) and the battery-first settings (holding 1091, 1092; the priority in force,
 * holding 1044, is read-only in both documents: "1044 Priority ... R"); they differ in where
 * the inverter's own values live. The SPH hybrid answers input 0..124 (PV and AC, as
 * OpenInverterGateway's SPH register notes and the sdm_modbus-based Growatt SPH map transcribe
 * it); the SPA (AC-coupled, no PV inputs) answers 2000..2124 instead (`spa-map.ts`). The
 * device reports battery charge and discharge power, and grid import and export power, in
 * separate unsigned registers: they are internal entries, and the signed standard values are
 * derived from them.
 */
import { inverterMetrics, pvStringMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap } from '@heliograph/plugins-sdk/connections';
import {
  INVERTER_STATES,
  labelsOf,
  prioritySettings,
  ref,
  signedFlows,
  socSetting,
  storageReferences,
  storageRegisters,
  tenths32,
} from './storage-block.js';

export { spaMap } from './spa-map.js';

const [pvPower1, pvVoltage1, pvCurrent1, pvPower2, pvVoltage2, pvCurrent2] = pvStringMetrics(2);

/** The SPH hybrid: PV and AC in input 0..124, the storage block, the SOC floor at holding 608. */
export const sphMap = defineRegisterMap({
  table: 'input',
  maxGap: 12,
  registers: [
    { ...inverterMetrics.device_mode, address: 0, type: 'u16', options: INVERTER_STATES },
    { ...inverterMetrics.pv_power, address: 1, ...tenths32 },
    { ...pvVoltage1!, address: 3, type: 'u16', scale: 0.1 },
    { ...pvCurrent1!, address: 4, type: 'u16', scale: 0.1 },
    { ...pvPower1!, address: 5, ...tenths32 },
    { ...pvVoltage2!, address: 7, type: 'u16', scale: 0.1 },
    { ...pvCurrent2!, address: 8, type: 'u16', scale: 0.1 },
    { ...pvPower2!, address: 9, ...tenths32 },
    { ...inverterMetrics.output_power, address: 35, ...tenths32 },
    { ...inverterMetrics.grid_frequency, address: 37, type: 'u16', scale: 0.01 },
    { ...inverterMetrics.grid_voltage, address: 38, type: 'u16', scale: 0.1 },
    { ...inverterMetrics.temperature, address: 93, type: 'u16', scale: 0.1 },
    ...storageRegisters,
    socSetting('min_soc', 'Discharge stop SOC', 608),
    ...prioritySettings,
  ],
  derived: [...signedFlows],
  references: [
    ref(
      { name: 'device_mode', address: 0, type: 'u16', labels: labelsOf(INVERTER_STATES) },
      'input 0 Inverter Status (0 waiting, 1 normal, 3 fault; 4..8 the work modes of input 1000)',
    ),
    ref({ name: 'pv_power', address: 1, type: 'u32', scale: 0.1 }, 'input 1-2 Ppv H/L (0.1 W)'),
    ref({ name: 'pv_voltage_1', address: 3, type: 'u16', scale: 0.1 }, 'input 3 Vpv1 (0.1 V)'),
    ref({ name: 'pv_current_1', address: 4, type: 'u16', scale: 0.1 }, 'input 4 PV1Curr (0.1 A)'),
    ref({ name: 'pv_power_1', address: 5, type: 'u32', scale: 0.1 }, 'input 5-6 Ppv1 H/L (0.1 W)'),
    ref({ name: 'pv_voltage_2', address: 7, type: 'u16', scale: 0.1 }, 'input 7 Vpv2 (0.1 V)'),
    ref({ name: 'pv_current_2', address: 8, type: 'u16', scale: 0.1 }, 'input 8 PV2Curr (0.1 A)'),
    ref({ name: 'pv_power_2', address: 9, type: 'u32', scale: 0.1 }, 'input 9-10 Ppv2 H/L (0.1 W)'),
    ref({ name: 'output_power', address: 35, type: 'u32', scale: 0.1 }, 'input 35-36 Pac H/L (0.1 W)'),
    ref({ name: 'grid_frequency', address: 37, type: 'u16', scale: 0.01 }, 'input 37 Fac (0.01 Hz)'),
    ref({ name: 'grid_voltage', address: 38, type: 'u16', scale: 0.1 }, 'input 38 Vac1 (0.1 V)'),
    ref({ name: 'temperature', address: 93, type: 'u16', scale: 0.1 }, 'input 93 Temp1, inverter temperature (0.1 °C)'),
    ...storageReferences,
    {
      name: 'min_soc',
      address: 608,
      table: 'holding',
      type: 'u16',
      source:
        'not in the V1.24 document: 0xAHA/Growatt_ModbusTCP profiles/sph.py holding 608 load_first_battery_minimum_soc (10-100 %), after the photovoltaikforum.com SPH register thread and homeassistant-solax-modbus plugin_growatt.py',
    },
  ],
});

/**
 * Read once: the serial number (holding 23..27) and holding 43, "DTC" in the v1.20/v1.24
 * documents (whose code list, footnote &*6 of v1.20, is the old per-topology one: 0x0100 "1
 * tracker and 1phase ... TL" .. 0x0C00 "Front 1 tracker PV Storage", as growatt_local reads
 * it: WouterTuinstra/Homeassistant-Growatt-Local-Modbus API/device_type/base.py
 * DEVICE_TYPE_CODES). The codes of Growatt's
 * Table 3-1 (SPH 3501.., SPA 3701..) are those of the VPP protocol's "Equipment type (DTC)",
 * holding 30000 (`vppTypeMap`).
 */
export const identityMap = defineRegisterMap({
  registers: [
    { name: 'serial', displayName: 'Serial number', address: 23, type: 'string', length: 5 },
    { name: 'device_type', displayName: 'Device type code (holding 43)', address: 43, type: 'u16' },
  ],
});

/**
 * The VPP protocol's device type code: holding 30000, "Equipment type (DTC), RO, UINT16, see
 * Table 3-1" (GROWATT VPP COMMUNICATION PROTOCOL OF INVERTER V2.01/V2.03, 2.1 Hold register,
 * as 0xAHA/Growatt_ModbusTCP auto_detection.py async_read_dtc_code reads it). Units without
 * the VPP range (pre-UP firmware) refuse it.
 */
export const vppTypeMap = defineRegisterMap({
  registers: [{ name: 'device_type', displayName: 'Device type code (holding 30000)', address: 30000, type: 'u16' }],
});
