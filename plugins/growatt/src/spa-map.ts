/*
 * The Growatt SPA (AC-coupled storage inverter: SPA 1000-3000TL BL, SPA 3000-6000TL,
 * SPA 4000-10000TL3 BH) per the Growatt Inverter Modbus RTU Protocol v1.24: input registers
 * 1000..1124 (the storage block it shares with the SPH) and 2000..2124 ("thirteen group for
 * Storage power's SPA": Inverter Status 2000, Pac 2035, Fac 2037, Vac1 2038, Temp1 2093), no
 * input 0..124 and so no PV inputs; holding 0..124 and 1000..1124, where its priority, SOC
 * limits, power rates and time slots live (Grid First 1070/1071 and 1080..1082, Bat First
 * 1090..1092 and 1100..1102; times as hour in the high byte, minute in the low byte).
 * Battery temperature is input 1040 ("Battery Temperature", lead-acid/lithium), as on the SPH.
 */
import { inverterMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap, type RegisterEntry } from '@heliograph/plugins-sdk/connections';
import {
  INVERTER_STATES,
  labelsOf,
  OFF_ON,
  percentSetting,
  prioritySettings,
  signedFlows,
  socSetting,
  storageReferences,
  storageRegisters,
  tenths32,
  V124,
} from './storage-block.js';

/**
 * One time slot of a priority as settings: start and stop (hour in the high byte, minute in
 * the low byte of one register each) and its on/off switch at `address + 2`.
 */
export function timeSlotSettings(name: string, displayName: string, address: number): RegisterEntry[] {
  const part = (suffix: string, label: string, at: number, mask: number, max: number): RegisterEntry => ({
    name: `${name}_${suffix}`,
    displayName: `${displayName}: ${label}`,
    table: 'holding',
    address: at,
    type: 'u16',
    mask,
    writable: { min: 0, max, step: 1 },
  });
  return [
    part('start_hour', 'start hour', address, 0xff00, 23),
    part('start_minute', 'start minute', address, 0x00ff, 59),
    part('stop_hour', 'stop hour', address + 1, 0xff00, 23),
    part('stop_minute', 'stop minute', address + 1, 0x00ff, 59),
    {
      name: `${name}_enabled`,
      displayName: `${displayName}: enabled`,
      table: 'holding',
      address: address + 2,
      type: 'u16',
      options: OFF_ON,
      writable: true,
    },
  ];
}

export const spaMap = defineRegisterMap({
  table: 'input',
  maxGap: 12,
  registers: [
    { ...inverterMetrics.device_mode, address: 2000, type: 'u16', options: INVERTER_STATES },
    { ...inverterMetrics.output_power, address: 2035, ...tenths32 },
    { ...inverterMetrics.grid_frequency, address: 2037, type: 'u16', scale: 0.01 },
    { ...inverterMetrics.grid_voltage, address: 2038, type: 'u16', scale: 0.1 },
    { ...inverterMetrics.temperature, address: 2093, type: 'u16', scale: 0.1 },
    ...storageRegisters,
    ...prioritySettings,
    percentSetting('grid_first_discharge_rate', 'Grid first: discharge power rate', 1070),
    socSetting('grid_first_stop_soc', 'Grid first: discharge stop SOC', 1071),
    ...timeSlotSettings('grid_first_slot_1', 'Grid first slot 1', 1080),
    percentSetting('battery_first_charge_rate', 'Battery first: charge power rate', 1090),
    ...timeSlotSettings('battery_first_slot_1', 'Battery first slot 1', 1100),
  ],
  derived: [...signedFlows],
  references: [
    ...[
      {
        name: 'device_mode',
        address: 2000,
        type: 'u16' as const,
        labels: labelsOf(INVERTER_STATES),
        row: '2000 Inverter Status (0 waiting, 1 normal, 3 fault)',
      },
      { name: 'output_power', address: 2035, type: 'u32' as const, scale: 0.1, row: '2035-2036 Pac H/L (0.1 W)' },
      { name: 'grid_frequency', address: 2037, type: 'u16' as const, scale: 0.01, row: '2037 Fac (0.01 Hz)' },
      { name: 'grid_voltage', address: 2038, type: 'u16' as const, scale: 0.1, row: '2038 Vac1 (0.1 V)' },
      { name: 'temperature', address: 2093, type: 'u16' as const, scale: 0.1, row: '2093 Temp1 (0.1 °C)' },
    ].map(({ row, ...reference }) => ({
      ...reference,
      source: `${V124}, input registers, "thirteen group for Storage power's SPA": ${row}`,
    })),
    ...storageReferences,
    ...[
      { name: 'grid_first_discharge_rate', address: 1070, row: '1070 GridFirstDischargePowerRate (0-100)' },
      { name: 'grid_first_stop_soc', address: 1071, row: '1071 GridFirstStopSOC (0-100)' },
      { name: 'grid_first_slot_1_enabled', address: 1082, row: '1082 Grid First Stop Switch 1 (Enable 1, Disable 0)' },
      { name: 'battery_first_charge_rate', address: 1090, row: '1090 BatFirstPowerRate (0-100)' },
      {
        name: 'battery_first_slot_1_enabled',
        address: 1102,
        row: '1102 BatFirst on/off Switch 1 (Enable 1, Disable 0)',
      },
    ].map(({ row, ...reference }) => ({
      ...reference,
      table: 'holding' as const,
      type: 'u16' as const,
      ...(reference.name.endsWith('_enabled') && { labels: labelsOf(OFF_ON) }),
      source: `${V124}, holding registers, "Priority set": ${row}`,
    })),
  ],
});
