/**
 * An emulated Deye / Sunsynk single-phase hybrid inverter with its battery: the holding
 * registers of the real device (the map in shared/reference/providers.md), recomputed from
 * the site's flows at each request, and its writable settings with the device's checks.
 */
import {
  clamp,
  DayIntegrator,
  ModbusException,
  ModbusExceptionCode,
  textWords,
  toWord,
  type ModbusDevice,
} from '@heliograph/plugins-sdk/emulator';
import { applySetting, DEFAULT_SETTINGS, siteFlows, validSetting, type DeyeSettings, type Flows } from './site.js';
import { TouProgram } from './tou.js';

/** Holding registers 0..599 can be read (unmapped ones read 0); beyond is an illegal address. */
const REGISTER_COUNT = 600;
const SERIAL_ADDRESS = 3;
const SERIAL_LENGTH = 5;

export interface DeyeDeviceOptions {
  /** The device's clock; default the system clock. */
  now?: () => Date;
  /** Ten characters, held in registers 3..7. */
  serial?: string;
  peakPvW?: number;
  /** Battery capacity in Ah at 51.2 V nominal. */
  capacityAh?: number;
  /** Starting state of charge, %. */
  soc?: number;
}

/**
 * A Deye inverter as a {@link ModbusDevice}; several can share one bus on their unit ids.
 *
 * @example
 * const units = new Map([[1, new DeyeDevice({ serial: '2203140001' })], [2, new DeyeDevice({ serial: '2203140002' })]]);
 * await startModbusEmulator({ transport: 'rtu-over-tcp', units });
 */
export class DeyeDevice implements ModbusDevice {
  readonly settings: DeyeSettings = structuredClone(DEFAULT_SETTINGS);
  /** The time-of-use program (registers 232, 248, 250..279). */
  readonly tou = new TouProgram();
  /** State of charge, % (fractional: the register shows it rounded). */
  soc: number;
  private readonly now: () => Date;
  private readonly day: DayIntegrator;
  private readonly serial: string;
  private readonly peakPvW: number;
  private readonly capacityWh: number;

  constructor(options: DeyeDeviceOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.day = new DayIntegrator(this.now);
    this.serial = options.serial ?? '2203140123';
    this.peakPvW = options.peakPvW ?? 6000;
    this.capacityWh = (options.capacityAh ?? 100) * 51.2;
    this.soc = options.soc ?? 60;
  }

  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    if (address + count > REGISTER_COUNT) throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
    const registers = this.registers(this.step());
    return Array.from({ length: count }, (_, i) => registers.get(address + i) ?? 0);
  }

  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    values.forEach((value, i) => {
      const at = address + i;
      const tou = TouProgram.owns(at);
      if (!tou && !validSetting(at, 0)) throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
      if (!(tou ? TouProgram.valid(at, value) : validSetting(at, value)))
        throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    });
    this.step();
    values.forEach((value, i) => {
      if (TouProgram.owns(address + i)) this.tou.write(address + i, value);
      else applySetting(this.settings, address + i, value);
    });
  }

  /** Moves the battery and today's counters on to now; returns the flows now. */
  private step(): Flows {
    const time = this.now();
    const hours = this.day.advance();
    const tou = this.tou.effect(time);
    const flows = siteFlows({ time, soc: this.soc, settings: this.settings, peakPvW: this.peakPvW, tou });
    let soc = clamp(this.soc + ((flows.charge - flows.discharge) * hours * 100) / this.capacityWh, 0, 100);
    // The program's SOC is where discharging, or charging from the grid, stops.
    if (tou && flows.discharge > 0) soc = Math.max(soc, Math.min(this.soc, tou.floorSoc));
    if (tou?.gridChargeToSoc != null && this.soc < tou.gridChargeToSoc) soc = Math.min(soc, tou.gridChargeToSoc);
    this.soc = soc;
    this.day.add('pv', flows.pv1 + flows.pv2, hours);
    this.day.add('import', flows.gridImport, hours);
    this.day.add('export', flows.gridExport, hours);
    this.day.add('charge', flows.charge, hours);
    this.day.add('discharge', flows.discharge, hours);
    this.day.add('load', flows.load, hours);
    return flows;
  }

  private registers(flows: Flows): Map<number, number> {
    const time = this.now();
    const sun = flows.pv1 + flows.pv2 > 0 ? 1 : 0;
    const batteryW = flows.discharge - flows.charge; // the device's sign: + discharge
    const gridW = flows.gridImport - flows.gridExport; // + import
    const tenths = (name: string) => Math.round(this.day.kWh(name) * 10);
    const temperature = (celsius: number) => Math.round(1000 + celsius * 10);
    const wobble = Math.sin(time.getTime() / 60_000);
    const pvVolts = (watts: number) => (watts > 0 ? 3600 + Math.round(200 * wobble) : 0);
    const pvAmps = (watts: number, volts: number) => (volts > 0 ? Math.round((watts * 100) / volts) : 0);
    const [pv1V, pv2V] = [pvVolts(flows.pv1), pvVolts(flows.pv2)];
    const r = new Map<number, number>([
      [0, 0x0003], // device type: single-phase hybrid
      [59, 2], // running state: normal
      [70, tenths('charge')],
      [71, tenths('discharge')],
      [76, tenths('import')],
      [77, tenths('export')],
      [79, 5000 + Math.round(3 * wobble)],
      [84, tenths('load')],
      [90, temperature(30 + 15 * sun)],
      [91, temperature(28 + 12 * sun)],
      [108, tenths('pv')],
      [109, pv1V],
      [110, pvAmps(flows.pv1, pv1V)],
      [111, pv2V],
      [112, pvAmps(flows.pv2, pv2V)],
      [150, 2300 + Math.round(20 * wobble)],
      [169, toWord(gridW)],
      [175, toWord(flows.load - gridW)],
      [178, flows.load],
      [182, temperature(22 + 3 * sun)],
      [183, Math.round(flows.batteryVoltage * 100)],
      [184, Math.round(this.soc)],
      [186, flows.pv1],
      [187, flows.pv2],
      [190, toWord(batteryW)],
      [191, toWord((batteryW * 100) / flows.batteryVoltage)],
      [210, this.settings.maxChargeA],
      [211, this.settings.maxDischargeA],
      [230, this.settings.gridChargeA],
      [243, this.settings.energyPriority],
      [244, this.settings.workMode],
      [245, this.settings.maxSellW],
    ]);
    textWords(this.serial, SERIAL_LENGTH).forEach((word, i) => r.set(SERIAL_ADDRESS + i, word));
    for (const [address, value] of this.tou.registers()) r.set(address, value);
    return r;
  }
}
