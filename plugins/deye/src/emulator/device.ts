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
  type ModbusDevice,
} from '@heliograph/plugins-sdk/emulator';
import { deyeRegisters, modelAddress, singlePhaseAddress, type DeyeEmulatorModel } from './layouts.js';
import { applySetting, DEFAULT_SETTINGS, siteFlows, validSetting, type DeyeSettings, type Flows } from './site.js';
import { TouProgram } from './tou.js';

/** Holding registers 0..999 can be read (unmapped ones read 0); beyond is an illegal address. */
const REGISTER_COUNT = 1000;

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
  /** Which model to be: its device type code and register layout; default single-phase. */
  model?: DeyeEmulatorModel;
  /** Rated power in W (registers 16/17, 20/21 on three-phase units); default 5000. */
  ratedW?: number;
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
  /** The time-of-use program (registers 232, 248, 250..279; 130, 146, 148..177 on three-phase units). */
  readonly tou = new TouProgram();
  /** State of charge, % (fractional: the register shows it rounded). */
  soc: number;
  private readonly now: () => Date;
  private readonly day: DayIntegrator;
  private readonly serial: string;
  private readonly peakPvW: number;
  private readonly capacityWh: number;
  readonly model: DeyeEmulatorModel;
  private readonly ratedW: number;

  constructor(options: DeyeDeviceOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.day = new DayIntegrator(this.now);
    this.serial = options.serial ?? '2203140123';
    this.peakPvW = options.peakPvW ?? 6000;
    this.capacityWh = (options.capacityAh ?? 100) * 51.2;
    this.soc = options.soc ?? 60;
    this.model = options.model ?? 'single-phase';
    this.ratedW = options.ratedW ?? 5000;
  }

  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    if (address + count > REGISTER_COUNT) throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
    const registers = this.registers(this.step());
    return Array.from({ length: count }, (_, i) => registers.get(address + i) ?? 0);
  }

  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    // Three-phase units hold the same settings and program at other addresses (max sell power in tens of W on HV units).
    const at = (i: number) => singlePhaseAddress(this.model, address + i);
    const scaled = (i: number, value: number) =>
      this.model === 'three-phase-hv' && at(i) === 245 ? value * 10 : value;
    values.forEach((raw, i) => {
      const value = scaled(i, raw);
      const at_ = at(i);
      const tou = TouProgram.owns(at_);
      if (!tou && !validSetting(at_, 0)) throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
      if (!(tou ? TouProgram.valid(at_, value) : validSetting(at_, value)))
        throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
      if (at_ === 245 && value > this.ratedW) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    });
    this.step();
    values.forEach((raw, i) => {
      if (TouProgram.owns(at(i))) this.tou.write(at(i), raw);
      else applySetting(this.settings, at(i), scaled(i, raw));
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
    const day = this.day;
    const r = deyeRegisters(this.model, {
      flows,
      time: this.now(),
      soc: this.soc,
      settings: this.settings,
      serial: this.serial,
      ratedW: this.ratedW,
      cycles: 120,
      tenths: (name) => Math.round(day.kWh(name) * 10),
    });
    for (const [address, value] of this.tou.registers()) r.set(modelAddress(this.model, address), value);
    return r;
  }
}
