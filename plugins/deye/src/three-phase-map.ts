/*
 * The Deye / Sunsynk three-phase hybrids' holding registers: the low-voltage (48 V battery,
 * SG04LP3 / SG05LP3 ...) and high-voltage (SG01HP3 / SG02HP3 ...) families share one layout
 * from register 500 on, the HV units counting PV and battery power in tens of watts and
 * battery voltage in tenths of a volt. From the public definitions (kellerza/sunsynk
 * `three_phase_common.py`, `three_phase_lv.py`, `three_phase_hv.py`). Their settings live
 * at 108..143, not where the single-phase units have theirs.
 */
import { batteryMetrics, inverterMetrics, pvStringMetrics } from '@heliograph/plugins-sdk';
import { defineRegisterMap, type RegisterEntry } from '@heliograph/plugins-sdk/connections';
import { kWhTenths, pvPowerSum, RUNNING_STATES, settingEntries, temperature } from './register-map.js';

const [pvPower1, pvVoltage1, pvCurrent1, pvPower2, pvVoltage2, pvCurrent2] = pvStringMetrics(2);

const phaseVoltage = (n: number, address: number): RegisterEntry => ({
  name: `grid_voltage_l${n}`,
  displayName: `Grid voltage L${n}`,
  unit: 'V',
  deviceClass: 'voltage',
  stateClass: 'measurement',
  address,
  type: 'u16',
  scale: 0.1,
});

const phasePower = (n: number, address: number): RegisterEntry => ({
  name: `grid_power_l${n}`,
  displayName: `Grid power L${n}`,
  unit: 'W',
  deviceClass: 'power',
  stateClass: 'measurement',
  address,
  type: 's16',
});

/** One poll of a three-phase hybrid; `hv` for the high-voltage family. `ratedW` (registers 20/21) bounds the max sell power. */
export function threePhaseMap({ hv, ratedW }: { hv: boolean; ratedW: number }) {
  const tens = hv ? 10 : 1;
  return defineRegisterMap({
    maxGap: 16,
    registers: [
      { ...inverterMetrics.device_mode, address: 500, type: 'u16', options: RUNNING_STATES },
      { ...inverterMetrics.battery_charge_energy_today, address: 514, ...kWhTenths },
      { ...inverterMetrics.battery_discharge_energy_today, address: 515, ...kWhTenths },
      { ...inverterMetrics.grid_import_energy_today, address: 520, ...kWhTenths },
      { ...inverterMetrics.grid_export_energy_today, address: 521, ...kWhTenths },
      { ...inverterMetrics.load_energy_today, address: 526, ...kWhTenths },
      { ...inverterMetrics.pv_energy_today, address: 529, ...kWhTenths },
      { ...inverterMetrics.temperature, address: 541, ...temperature },
      { ...batteryMetrics.temperature, device: 'battery', address: 586, ...temperature },
      { ...batteryMetrics.voltage, device: 'battery', address: 587, type: 'u16', scale: hv ? 0.1 : 0.01 },
      { ...batteryMetrics.state_of_charge, device: 'battery', address: 588, type: 'u16' },
      { ...batteryMetrics.power, device: 'battery', address: 590, type: 's16', scale: tens, invert: true },
      { ...batteryMetrics.current, device: 'battery', address: 591, type: 's16', scale: 0.01, invert: true },
      { ...inverterMetrics.battery_power, address: 590, type: 's16', scale: tens, invert: true },
      { ...inverterMetrics.grid_voltage, address: 598, type: 'u16', scale: 0.1 },
      phaseVoltage(2, 599),
      phaseVoltage(3, 600),
      { ...inverterMetrics.grid_frequency, address: 609, type: 'u16', scale: 0.01 },
      phasePower(1, 622),
      phasePower(2, 623),
      phasePower(3, 624),
      { ...inverterMetrics.grid_power, address: 625, type: 's16' }, // + import
      { ...inverterMetrics.output_voltage, address: 627, type: 'u16', scale: 0.1 },
      { ...inverterMetrics.output_power, address: 636, type: 's16' },
      { ...inverterMetrics.load_power, address: 653, type: 's16' },
      { ...pvPower1!, address: 672, type: 'u16', scale: tens },
      { ...pvPower2!, address: 673, type: 'u16', scale: tens },
      { ...pvVoltage1!, address: 676, type: 'u16', scale: 0.1 },
      { ...pvCurrent1!, address: 677, type: 'u16', scale: 0.1 },
      { ...pvVoltage2!, address: 678, type: 'u16', scale: 0.1 },
      { ...pvCurrent2!, address: 679, type: 'u16', scale: 0.1 },
      ...settingEntries(
        { maxCharge: 108, maxDischarge: 109, gridCharge: 128, priority: 141, workMode: 142, maxSell: 143 },
        { ratedW, maxAmps: 240, sellScale: tens },
      ),
    ],
    derived: [pvPowerSum(2)],
  });
}
