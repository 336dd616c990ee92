/*
 * The Solis hybrid's registers (Solis RS485 Modbus hybrid protocol, as ha-solarman's
 * `solis_hybrid.yaml` maps it): input registers 33000.. for readings, holding 43000.. for
 * settings. 32-bit values are high word first. The battery's power and current are given
 * with a separate direction register (33135: 0 charging, 1 discharging), so the signed
 * values are derived; grid power is derived from the house load and the inverter's AC
 * power, which needs no assumption about the meter's sign.
 */
import { batteryMetrics, inverterMetrics, pvStringMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap } from '@heliograph/plugins-sdk/connections';

const [, pvVoltage1, pvCurrent1, , pvVoltage2, pvCurrent2] = pvStringMetrics(2);
const kWhTenths = { type: 'u16', scale: 0.1 } as const;
/** + charging from a magnitude and the direction register. */
const directed = ({ magnitude, direction }: Record<string, number>) =>
  Math.abs(magnitude!) * (direction === 1 ? -1 : 1);

export const STORAGE_MODES = [
  { value: 0x21, label: 'Self use' },
  { value: 0x22, label: 'Optimized revenue' },
  { value: 0x23, label: 'Time of use' },
  { value: 0x24, label: 'Off-grid' },
] as const;

export const solisMap = defineRegisterMap({
  table: 'input',
  maxGap: 12,
  registers: [
    { ...inverterMetrics.pv_energy_today, address: 33035, ...kWhTenths },
    { ...pvVoltage1!, address: 33049, type: 'u16', scale: 0.1 },
    { ...pvCurrent1!, address: 33050, type: 'u16', scale: 0.1 },
    { ...pvVoltage2!, address: 33051, type: 'u16', scale: 0.1 },
    { ...pvCurrent2!, address: 33052, type: 'u16', scale: 0.1 },
    { ...inverterMetrics.pv_power, address: 33057, type: 'u32' },
    { ...inverterMetrics.grid_voltage, address: 33073, type: 'u16', scale: 0.1 },
    { ...inverterMetrics.output_power, address: 33079, type: 's32' },
    { ...inverterMetrics.temperature, address: 33093, type: 's16', scale: 0.1 },
    { ...inverterMetrics.grid_frequency, address: 33094, type: 'u16', scale: 0.01 },
    { ...batteryMetrics.voltage, device: 'battery', address: 33133, type: 'u16', scale: 0.1 },
    {
      name: 'current_magnitude',
      displayName: 'Battery current',
      address: 33134,
      type: 's16',
      scale: 0.1,
      device: 'battery',
      internal: true,
    },
    {
      name: 'direction',
      displayName: 'Battery direction',
      address: 33135,
      type: 'u16',
      device: 'battery',
      internal: true,
    },
    { name: 'direction', displayName: 'Battery direction', address: 33135, type: 'u16', internal: true },
    { ...batteryMetrics.state_of_charge, device: 'battery', address: 33139, type: 'u16' },
    { ...batteryMetrics.state_of_health, device: 'battery', address: 33140, type: 'u16' },
    { ...inverterMetrics.load_power, address: 33147, type: 'u16' },
    {
      name: 'power_magnitude',
      displayName: 'Battery power',
      address: 33149,
      type: 's32',
      device: 'battery',
      internal: true,
    },
    { name: 'power_magnitude', displayName: 'Battery power', address: 33149, type: 's32', internal: true },
    { ...inverterMetrics.battery_charge_energy_today, address: 33163, ...kWhTenths },
    { ...inverterMetrics.battery_discharge_energy_today, address: 33167, ...kWhTenths },
    { ...inverterMetrics.grid_import_energy_today, address: 33171, ...kWhTenths },
    { ...inverterMetrics.grid_export_energy_today, address: 33175, ...kWhTenths },
    { ...inverterMetrics.load_energy_today, address: 33179, ...kWhTenths },
    {
      name: 'storage_mode',
      displayName: 'Storage control mode',
      table: 'holding',
      address: 43110,
      type: 'u16',
      options: STORAGE_MODES,
      writable: true,
      writeSingle: true, // ha-solarman writes it with function 0x06
    },
  ],
  derived: [
    {
      ...batteryMetrics.power,
      device: 'battery',
      derive: {
        of: ['power_magnitude', 'direction'],
        expression: (v) => directed({ magnitude: v.power_magnitude!, direction: v.direction! }),
      },
    },
    {
      ...batteryMetrics.current,
      device: 'battery',
      derive: {
        of: ['current_magnitude', 'direction'],
        expression: (v) => directed({ magnitude: v.current_magnitude!, direction: v.direction! }),
      },
    },
    {
      ...inverterMetrics.battery_power,
      derive: {
        of: ['power_magnitude', 'direction'],
        expression: (v) => directed({ magnitude: v.power_magnitude!, direction: v.direction! }),
      },
    },
    // + import: what the house draws beyond what the inverter delivers.
    { ...inverterMetrics.grid_power, derive: { difference: ['load_power', 'output_power'] } },
  ],
});
