/*
 * What Heliograph reads from each SunSpec model, by point offset in the model's data (the
 * registers after ID and L) as the public definitions (sunspec/models, json/model_<ID>.json)
 * place them. Signs follow Heliograph's vocabulary: meters 201-204 count W + import, as
 * Heliograph's grid_power does; model 802 counts battery W and A + discharging, so those are
 * turned round to + charging.
 */
import type { DeviceIdentity, MetricValue } from '@heliograph/plugins-sdk';
import { round, type ModelData } from './points.js';

export type Values = Record<string, MetricValue>;

/** Inverter models: integer + scale factors (single, split, three phase), and their float twins. */
export const INT_INVERTERS = [101, 102, 103];
export const FLOAT_INVERTERS = [111, 112, 113];
export const MPPT = 160;
/** Meters: single phase, split phase, three-phase wye and delta; one layout for all four. */
export const METERS = [201, 202, 203, 204];
export const STORAGE = 124;
export const BATTERY = 802;

/** Operating state (St) of models 101-103 and 111-113. */
const OPERATING_STATES: Record<number, string> = {
  1: 'Off',
  2: 'Sleeping',
  3: 'Starting',
  4: 'MPPT',
  5: 'Throttled',
  6: 'Shutting down',
  7: 'Fault',
  8: 'Standby',
};

const kWh = (wh: number | null) => (wh === null ? null : round(wh / 1000));
const negate = (value: number | null) => (value === null ? null : -value || 0);
const stateLabel = (st: number | null) => (st === null ? null : (OPERATING_STATES[st] ?? `Unknown (${st})`));

/** Model 1: Mn, Md, Vr and SN as the device's identity. */
export function identityOf(common: ModelData): DeviceIdentity {
  const fields: Array<[keyof DeviceIdentity, string | null]> = [
    ['manufacturer', common.string(0, 16)],
    ['model', common.string(16, 16)],
    ['firmware', common.string(40, 8)],
    ['serial', common.string(48, 16)],
  ];
  const identity: DeviceIdentity = {};
  for (const [key, value] of fields) if (value !== null) identity[key] = value;
  return identity;
}

/** Models 101-103 (integer points with scale factors) and 111-113 (float32 points). */
export function inverterValues(m: ModelData): Values {
  if (FLOAT_INVERTERS.includes(m.id)) {
    return {
      grid_voltage: m.f32(14),
      output_power: m.f32(20),
      grid_frequency: m.f32(22),
      ac_energy_total: kWh(m.f32(30)),
      pv_power: m.f32(36),
      temperature: m.f32(38) ?? m.f32(40),
      device_mode: stateLabel(m.u16(46)),
    };
  }
  return {
    grid_voltage: m.scaled(m.u16(8), 11),
    output_power: m.scaled(m.s16(12), 13),
    grid_frequency: m.scaled(m.u16(14), 15),
    ac_energy_total: kWh(m.scaled(m.acc32(22), 24)),
    pv_power: m.scaled(m.s16(29), 30),
    temperature: m.scaled(m.s16(31), 35) ?? m.scaled(m.s16(32), 35),
    device_mode: stateLabel(m.u16(36)),
  };
}

/** Model 160: how many modules (groups of 20 registers after 8 fixed ones) it reports. */
function moduleCount(m: ModelData): number {
  return Math.max(0, Math.min(m.u16(6) ?? 0, Math.floor((m.words.length - 8) / 20)));
}

/**
 * Fronius GEN24 reports its battery as two model 160 modules, IDStr `StCha 3` (charging W)
 * and `StDisCha 4` (discharging W): they are the battery, not PV inputs.
 */
const STORAGE_MODULE = /^St(Dis)?Cha\b/;

/** Model 160: the modules that are PV inputs (1-based module numbers), storage modules left out. */
function pvModules(m: ModelData): number[] {
  const modules: number[] = [];
  for (let n = 1; n <= moduleCount(m); n++) {
    if (!STORAGE_MODULE.test(m.string(8 + 20 * (n - 1) + 1, 8) ?? '')) modules.push(n);
  }
  return modules;
}

/** Model 160: how many MPPT inputs (PV modules) it reports. */
export function mpptCount(m: ModelData): number {
  return pvModules(m).length;
}

/**
 * Model 160: per-MPPT DC current, voltage and power (pv_*_N), and their sum as pv_power;
 * from storage modules (Fronius `StCha` / `StDisCha`), `storage_power` (+ charging).
 */
export function mpptValues(m: ModelData): Values {
  const values: Values = {};
  let total: number | null = 0;
  pvModules(m).forEach((module, i) => {
    const at = 8 + 20 * (module - 1);
    const n = i + 1;
    const watts = m.scaled(m.u16(at + 11), 2);
    values[`pv_current_${n}`] = m.scaled(m.u16(at + 9), 0);
    values[`pv_voltage_${n}`] = m.scaled(m.u16(at + 10), 1);
    values[`pv_power_${n}`] = watts;
    total = total === null || watts === null ? null : round(total + watts);
  });
  if (mpptCount(m) > 0) values.pv_power = total;
  let charge: number | null = null;
  let discharge: number | null = null;
  for (let n = 1; n <= moduleCount(m); n++) {
    const at = 8 + 20 * (n - 1);
    const id = m.string(at + 1, 8) ?? '';
    if (/^StCha\b/.test(id)) charge = m.scaled(m.u16(at + 11), 2);
    if (/^StDisCha\b/.test(id)) discharge = m.scaled(m.u16(at + 11), 2);
  }
  if (charge !== null || discharge !== null) values.storage_power = round((charge ?? 0) - (discharge ?? 0));
  return values;
}

/** Models 201-204: the meter's total W (+ import) and its lifetime import and export. */
export function meterValues(m: ModelData): Values {
  return {
    grid_power: m.scaled(m.s16(16), 20),
    grid_export_energy_total: kWh(m.scaled(m.acc32(36), 52)),
    grid_import_energy_total: kWh(m.scaled(m.acc32(44), 52)),
  };
}

/**
 * The battery from model 802 (battery base) where present, model 124 (basic storage
 * controls: state of charge and voltage only) otherwise. Power and current + charging.
 */
export function batteryValues(storage: ModelData | undefined, battery: ModelData | undefined): Values {
  const b = battery;
  const cellVolts = (offset: number) => (b ? b.scaled(b.u16(offset), 58) : null);
  return {
    state_of_charge: (b && b.scaled(b.u16(9), 54)) ?? (storage && storage.scaled(storage.u16(6), 20)) ?? null,
    voltage: (b && b.scaled(b.u16(32), 57)) ?? (storage && storage.scaled(storage.u16(8), 22)) ?? null,
    power: b ? negate(b.scaled(b.s16(45), 61)) : null,
    current: b ? negate(b.scaled(b.s16(42), 59)) : null,
    state_of_health: b ? b.scaled(b.u16(11), 56) : null,
    cycles: b ? b.u32(12) : null,
    cell_voltage_max: cellVolts(35),
    cell_voltage_min: cellVolts(38),
    full_capacity: b ? b.scaled(b.u16(0), 50) : null,
  };
}
