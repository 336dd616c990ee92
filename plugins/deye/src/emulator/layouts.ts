/**
 * Where the emulated Deye holds each value, per model: the single-phase hybrid's registers
 * and the three-phase hybrids' (low- and high-voltage), as the public definitions place
 * them, so third-party tools read the emulator as they read the real units.
 */
import { textWords, toWord } from '@heliograph/plugins-sdk/emulator';
import type { DeyeEmulatorModel } from './models.js';
import type { DeyeSettings, Flows } from './site.js';

/** Device type codes in register 0. */
const DEVICE_TYPE: Record<DeyeEmulatorModel, number> = {
  'single-phase': 0x0003,
  'three-phase-lv': 0x0005,
  'three-phase-hv': 0x0006,
};

/** Setting registers of the three-phase units, and the single-phase register each stands for. */
export const THREE_PHASE_SETTINGS = new Map([
  [108, 210],
  [109, 211],
  [128, 230],
  [141, 243],
  [142, 244],
  [143, 245],
]);

/** The single-phase setting register a write to `address` stands for on `model` (-1: none). */
export function singlePhaseAddress(model: DeyeEmulatorModel, address: number): number {
  if (model === 'single-phase') return address;
  return THREE_PHASE_SETTINGS.get(address) ?? -1;
}

/**
 * Where the device's clock is: "Date time" at 22..24 on single-phase units (kellerza/sunsynk
 * `single_phase.py`, ha-solarman `deye_hybrid.yaml`), 62..64 on three-phase ones
 * (`three_phase_common.py`, `deye_p3.yaml`, where 22 is the MPPT and phase count).
 */
export function clockAddress(model: DeyeEmulatorModel): number {
  return model === 'single-phase' ? 22 : 62;
}

/** A wall-clock time as the clock registers hold it: (year − 2000) << 8 | month, day << 8 | hour, minute << 8 | second. */
export function clockWords(time: Date): number[] {
  return [
    ((time.getFullYear() - 2000) << 8) | (time.getMonth() + 1),
    (time.getDate() << 8) | time.getHours(),
    (time.getMinutes() << 8) | time.getSeconds(),
  ];
}

/** The wall-clock time three clock registers hold; null when they hold none. */
export function clockTime(words: readonly number[]): Date | null {
  const [year, month, day, hour, minute, second] = [
    words[0]! >> 8,
    words[0]! & 0xff,
    words[1]! >> 8,
    words[1]! & 0xff,
    words[2]! >> 8,
    words[2]! & 0xff,
  ];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  return new Date(2000 + year, month - 1, day, hour, minute, second);
}

/** What the layouts need besides the flows. */
export interface DeviceState {
  flows: Flows;
  time: Date;
  /** The device's own clock (drifts as the tests set it). */
  clock: Date;
  soc: number;
  settings: DeyeSettings;
  serial: string;
  ratedW: number;
  cycles: number;
  /** Today's energy in tenths of a kWh, by counter name. */
  tenths: (name: 'charge' | 'discharge' | 'import' | 'export' | 'load' | 'pv') => number;
}

const temperature = (celsius: number) => Math.round(1000 + celsius * 10);

/** Values both layouts derive from the flows. */
function common(state: DeviceState) {
  const { flows, time } = state;
  const sun = flows.pv1 + flows.pv2 > 0 ? 1 : 0;
  const wobble = Math.sin(time.getTime() / 60_000);
  const pvVolts = (watts: number) => (watts > 0 ? 3600 + Math.round(200 * wobble) : 0);
  const [pv1V, pv2V] = [pvVolts(flows.pv1), pvVolts(flows.pv2)];
  const pvAmps = (watts: number, volts: number) => (volts > 0 ? Math.round((watts * 100) / volts) : 0);
  return {
    sun,
    wobble,
    pv1V,
    pv2V,
    pv1A: pvAmps(flows.pv1, pv1V),
    pv2A: pvAmps(flows.pv2, pv2V),
    batteryW: flows.discharge - flows.charge, // the device's sign: + discharge
    gridW: flows.gridImport - flows.gridExport, // + import
    gridV: 2300 + Math.round(20 * wobble),
    hz: 5000 + Math.round(3 * wobble),
    rated: [Math.round(state.ratedW * 10) & 0xffff, Math.floor((state.ratedW * 10) / 0x10000)],
  };
}

/** The holding registers of `model` at this moment (unmapped ones read 0). */
export function deyeRegisters(model: DeyeEmulatorModel, state: DeviceState): Map<number, number> {
  const r = model === 'single-phase' ? singlePhase(state) : threePhase(state, model === 'three-phase-hv');
  r.set(0, DEVICE_TYPE[model]);
  r.set(2, 0x0104); // protocol version
  clockWords(state.clock).forEach((word, i) => r.set(clockAddress(model) + i, word));
  textWords(state.serial, 5).forEach((word, i) => r.set(3 + i, word));
  return r;
}

function singlePhase(state: DeviceState): Map<number, number> {
  const { flows, settings, soc } = state;
  const c = common(state);
  const t = state.tenths;
  const outputW = flows.load - c.gridW;
  return new Map<number, number>([
    [16, c.rated[0]!],
    [17, c.rated[1]!],
    [59, 2], // running state: normal
    [70, t('charge')],
    [71, t('discharge')],
    [76, t('import')],
    [77, t('export')],
    [79, c.hz],
    [84, t('load')],
    [90, temperature(30 + 15 * c.sun)],
    [91, temperature(28 + 12 * c.sun)],
    [95, temperature(24 + 4 * c.sun)],
    [108, t('pv')],
    [109, c.pv1V],
    [110, c.pv1A],
    [111, c.pv2V],
    [112, c.pv2A],
    [150, c.gridV],
    [154, c.gridV - 10], // inverter output voltage
    [160, toWord((c.gridW * 100) / 230)], // grid current L1, 0.01 A
    [164, toWord((outputW * 100) / 230)], // inverter current
    [167, toWord(c.gridW)], // grid L1 (LD) power
    [168, 0], // grid L2
    [169, toWord(c.gridW)],
    [170, toWord(c.gridW)], // external CT L1 power
    [172, toWord(c.gridW)], // external CT total
    [175, toWord(outputW)],
    [176, flows.load], // load L1
    [177, 0], // load L2
    [178, toWord(flows.load)],
    [182, temperature(22 + 3 * c.sun)],
    [183, Math.round(flows.batteryVoltage * 100)],
    [184, Math.round(soc)],
    [186, flows.pv1],
    [187, flows.pv2],
    [190, toWord(c.batteryW)],
    [191, toWord((c.batteryW * 100) / flows.batteryVoltage)],
    [192, c.hz], // load frequency
    [193, c.hz], // inverter frequency
    [194, 1], // grid connected
    [210, settings.maxChargeA],
    [211, settings.maxDischargeA],
    [230, settings.gridChargeA],
    [243, settings.energyPriority],
    [244, settings.workMode],
    [245, settings.maxSellW],
    [603, Math.round(soc)], // BMS 1 state of charge
    [611, state.cycles], // BMS 1 cycles
  ]);
}

function threePhase(state: DeviceState, hv: boolean): Map<number, number> {
  const { flows, settings, soc } = state;
  const c = common(state);
  const t = state.tenths;
  const tens = hv ? 10 : 1;
  const third = (watts: number) => toWord(watts / 3);
  const outputW = flows.load - c.gridW;
  return new Map<number, number>([
    [20, c.rated[0]!],
    [21, c.rated[1]!],
    [22, 0x0203], // 2 MPPTs (mask 0x0f00), 3 phases (mask 0x000f): ha-solarman deye_p3.yaml
    [108, settings.maxChargeA],
    [109, settings.maxDischargeA],
    [128, settings.gridChargeA],
    [141, settings.energyPriority],
    [142, settings.workMode],
    [143, Math.round(settings.maxSellW / tens)],
    [500, 2],
    [514, t('charge')],
    [515, t('discharge')],
    [520, t('import')],
    [521, t('export')],
    [526, t('load')],
    [529, t('pv')],
    [540, temperature(30 + 15 * c.sun)],
    [541, temperature(28 + 12 * c.sun)],
    [586, temperature(22 + 3 * c.sun)],
    [587, Math.round(flows.batteryVoltage * (hv ? 10 : 100))],
    [588, Math.round(soc)],
    [590, toWord(c.batteryW / tens)],
    [591, toWord((c.batteryW * 100) / flows.batteryVoltage)],
    [598, c.gridV],
    [599, c.gridV + 5],
    [600, c.gridV - 5],
    [609, c.hz],
    [616, third(c.gridW)],
    [617, third(c.gridW)],
    [618, third(c.gridW)],
    [619, toWord(c.gridW)],
    [622, third(c.gridW)],
    [623, third(c.gridW)],
    [624, third(c.gridW)],
    [625, toWord(c.gridW)],
    [627, c.gridV - 10],
    [628, c.gridV - 10],
    [629, c.gridV - 10],
    [633, third(outputW)],
    [634, third(outputW)],
    [635, third(outputW)],
    [636, toWord(outputW)],
    [638, c.hz],
    [650, third(flows.load)],
    [651, third(flows.load)],
    [652, third(flows.load)],
    [653, toWord(flows.load)],
    [672, Math.round(flows.pv1 / tens)],
    [673, Math.round(flows.pv2 / tens)],
    [676, c.pv1V],
    [677, c.pv1A],
    [678, c.pv2V],
    [679, c.pv2A],
  ]);
}
