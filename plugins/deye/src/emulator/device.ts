/**
 * An emulated Deye / Sunsynk hybrid inverter with its battery: the holding registers of the
 * real device (at the addresses of the public definitions the driver's maps cite),
 * recomputed from the site's flows at each request, its writable settings with the device's
 * checks, its clock (settable, and drifting as a test says) and the time-of-use program it
 * runs by that clock.
 */
import {
  clamp,
  DeviceClockSteps,
  ModbusException,
  type DayIntegrator,
  ModbusExceptionCode,
  type ModbusDevice,
} from '@heliograph/plugins-sdk/emulator';
import { clockAddress, clockTime, clockWords, deyeRegisters, singlePhaseAddress } from './layouts.js';
import type { DeyeEmulatorModel } from './models.js';
import { applySetting, DEFAULT_SETTINGS, siteFlows, validSetting, type DeyeSettings, type Flows } from './site.js';
import { TouProgram, type TouEffect } from './tou.js';

/** Holding registers 0..999 can be read (unmapped ones read 0); beyond is an illegal address. */
const REGISTER_COUNT = 1000;

export interface DeyeDeviceOptions {
  /** The true time (the sun, the load, the battery's physics); default the system clock. */
  now?: () => Date;
  /** How far the device's own clock is ahead of `now` (ms, negative: behind); default 0. */
  clockOffsetMs?: number;
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
  /** The time-of-use program, at the model's addresses (tou.ts). */
  readonly tou: TouProgram;
  /** State of charge, % (fractional: the register shows it rounded). */
  soc: number;
  /**
   * How far the device's clock is ahead of the true time (ms). Tests move it to drift the
   * clock or to run a lease out; writing the clock registers sets it, as on the device.
   */
  clockOffsetMs: number;
  readonly model: DeyeEmulatorModel;
  private readonly now: () => Date;
  /** The battery moved on a minute of the device's clock at a time, and today's counters. */
  private readonly steps: DeviceClockSteps;
  private readonly day: DayIntegrator;
  private readonly serial: string;
  private readonly peakPvW: number;
  private readonly capacityWh: number;
  private readonly ratedW: number;

  constructor(options: DeyeDeviceOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.clockOffsetMs = options.clockOffsetMs ?? 0;
    this.steps = new DeviceClockSteps(this.now, () => this.clockOffsetMs);
    this.day = this.steps.day;
    this.serial = options.serial ?? '2203140123';
    this.peakPvW = options.peakPvW ?? 6000;
    this.capacityWh = (options.capacityAh ?? 100) * 51.2;
    this.soc = options.soc ?? 60;
    this.model = options.model ?? 'single-phase';
    this.ratedW = options.ratedW ?? 5000;
    this.tou = new TouProgram(this.model);
  }

  /** The device's own clock now. */
  clock(): Date {
    return new Date(this.now().getTime() + this.clockOffsetMs);
  }

  /** What the time-of-use program does now, by the device's clock; null when it does not run. */
  programNow(): TouEffect | null {
    return this.tou.effect(this.clock());
  }

  /** The site's flows now (the battery brought up to now first). */
  flowsNow(): Flows {
    return this.step();
  }

  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    if (address + count > REGISTER_COUNT) throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
    const registers = this.registers(this.step());
    return Array.from({ length: count }, (_, i) => registers.get(address + i) ?? 0);
  }

  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    const clockAt = clockAddress(this.model);
    const isClock = (at: number) => at >= clockAt && at < clockAt + 3;
    // Three-phase units hold the same settings at other addresses (max sell power in tens of W on HV units).
    const setting = (i: number) => singlePhaseAddress(this.model, address + i);
    const scaled = (i: number, value: number) =>
      this.model === 'three-phase-hv' && setting(i) === 245 ? value * 10 : value;
    const refuse = (code: number): never => {
      throw new ModbusException({ code });
    };
    const clock = clockWords(this.clock());
    values.forEach((raw, i) => {
      const at = address + i;
      if (isClock(at)) clock[at - clockAt] = raw;
      else if (this.tou.owns(at)) {
        if (!this.tou.valid(at, raw)) refuse(ModbusExceptionCode.illegalDataValue);
      } else {
        const s = setting(i);
        if (!validSetting(s, 0)) refuse(ModbusExceptionCode.illegalDataAddress);
        const value = scaled(i, raw);
        if (!validSetting(s, value) || (s === 245 && value > this.ratedW)) refuse(ModbusExceptionCode.illegalDataValue);
      }
    });
    const setClock = values.some((_, i) => isClock(address + i));
    const time = setClock ? clockTime(clock) : null;
    if (setClock && !time) refuse(ModbusExceptionCode.illegalDataValue);
    this.step();
    if (time) this.clockOffsetMs = time.getTime() - this.now().getTime();
    values.forEach((raw, i) => {
      const at = address + i;
      if (this.tou.owns(at)) this.tou.write(at, raw);
      else if (!isClock(at)) applySetting(this.settings, setting(i), scaled(i, raw));
    });
  }

  /**
   * Moves the battery and today's counters on to now, a minute of the device's clock at a time
   * so that the program's slot boundaries take effect when they pass; returns the flows now.
   */
  private step(): Flows {
    return this.flowsAt(this.steps.run((from, hours) => this.integrate(from, hours)));
  }

  private flowsAt(time: Date): Flows {
    const tou = this.tou.effect(new Date(time.getTime() + this.clockOffsetMs));
    return siteFlows({ time, soc: this.soc, settings: this.settings, peakPvW: this.peakPvW, tou });
  }

  /** The battery and the counters for `hours` from `from`, with the flows at `from` (within one minute of the device's clock). */
  private integrate(from: Date, hours: number): void {
    const flows = this.flowsAt(from);
    const tou = this.tou.effect(new Date(from.getTime() + this.clockOffsetMs));
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
  }

  private registers(flows: Flows): Map<number, number> {
    const day = this.day;
    const r = deyeRegisters(this.model, {
      flows,
      time: this.now(),
      clock: this.clock(),
      soc: this.soc,
      settings: this.settings,
      serial: this.serial,
      ratedW: this.ratedW,
      cycles: 120,
      tenths: (name) => Math.round(day.kWh(name) * 10),
    });
    for (const [address, value] of this.tou.registers()) r.set(address, value);
    return r;
  }
}
