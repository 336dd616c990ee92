/**
 * An emulated SunSpec hybrid inverter: "SunS" at 40000, then models 1, 101, 160 (two
 * MPPTs), 203 (grid meter), 124 and 802 (battery) and the end marker. PV follows the sun,
 * the battery takes the surplus up to WChaMax and covers the deficit down to MinRsvPct;
 * both are writable in model 124, whose revert timeout the device counts down by its own
 * clock (the test's `now`, moved on by `clockOffsetMs`).
 */
import {
  clamp,
  householdLoad,
  ModbusException,
  ModbusExceptionCode,
  sunFraction,
  DayIntegrator,
  type ModbusDevice,
} from '@heliograph/plugins-sdk/emulator';
import {
  batteryModel,
  commonModel,
  inverterModel,
  meterModel,
  mpptModel,
  storageModel,
  type Snapshot,
} from './models.js';
import { StorageControls, WRITABLE_124 } from './storage-control.js';

export const SUNSPEC_BASE = 40000;
const PEAK_PV_W = [2800, 2200];
const CAPACITY_WH = 10240;
const MAX_DISCHARGE_W = 5000;
/** Model 124's data starts two registers after its ID. */
const DATA_OFFSET = 2;

export class SunSpecDevice implements ModbusDevice {
  soc: number;
  /** Model 124's writable points (storage-control.ts). */
  readonly storage = new StorageControls();
  /** Moves the device's clock on from `now` (ms), so a test can let a revert timeout run out. */
  clockOffsetMs = 0;
  private readonly clock: () => Date;
  private readonly day: DayIntegrator;
  /** The device's time of the last step, ms. */
  private stepped: number;
  private readonly lifetime = { ac: 12_345_000, strings: [6_000_000, 5_000_000], import: 3_210_000, export: 4_560_000 };
  private cycles = 215;

  constructor(options: { now?: () => Date; soc?: number } = {}) {
    this.clock = options.now ?? (() => new Date());
    this.day = new DayIntegrator(() => this.now());
    this.stepped = this.now().getTime();
    this.soc = options.soc ?? 50;
  }

  /** The device's clock: the given one plus `clockOffsetMs`. */
  now(): Date {
    return new Date(this.clock().getTime() + this.clockOffsetMs);
  }

  /** Where model 124 starts (its ID register), found by walking the chain as a client does. */
  get storageAddress(): number {
    const image = this.image(this.snapshot());
    let at = 2;
    while (image[at] !== 124) at += 2 + image[at + 1]!;
    return SUNSPEC_BASE + at;
  }

  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    const image = this.image(this.step());
    const from = address - SUNSPEC_BASE;
    if (from < 0 || from + count > image.length)
      throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
    return image.slice(from, from + count);
  }

  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    const storage = this.storageAddress;
    const writes = values.map((value, i) => ({ offset: address + i - storage - DATA_OFFSET, value }));
    for (const { offset, value } of writes) {
      const valid = WRITABLE_124[offset];
      if (!valid) throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
      if (!valid(value)) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    }
    this.step();
    this.storage.write(writes, this.stepped);
  }

  /** Every register from 40000 through the end marker. */
  private image(s: Snapshot): number[] {
    const identity = {
      manufacturer: 'Heliograph',
      model: 'Emulated Hybrid 5K',
      version: '1.4.2',
      serial: 'HG5K-000123',
    };
    return [
      0x5375,
      0x6e53,
      ...commonModel(identity),
      ...inverterModel(s),
      ...mpptModel(s),
      ...meterModel(s),
      ...storageModel(s),
      ...batteryModel(s),
      0xffff,
      0,
    ];
  }

  /**
   * Moves the battery and the lifetime counters on to now: under the controls until the
   * revert timeout ran out (when it did meanwhile), under the defaults after it.
   */
  private step(): Snapshot {
    const hours = this.day.advance();
    const now = this.now().getTime();
    const from = this.stepped;
    this.stepped = now;
    const revertAt = this.storage.revertAt;
    if (revertAt === null || revertAt > now) return this.integrate(hours);
    const forced = now > from ? clamp((revertAt - from) / (now - from), 0, 1) : 0;
    this.integrate(hours * forced);
    this.storage.revert();
    return this.integrate(hours * (1 - forced));
  }

  private integrate(hours: number): Snapshot {
    const s = this.snapshot();
    this.soc = clamp(this.soc - (s.batteryW * hours * 100) / CAPACITY_WH, 0, 100);
    this.lifetime.ac += Math.max(s.acW, 0) * hours;
    s.strings.forEach((string, i) => (this.lifetime.strings[i]! += string.watts * hours));
    this.lifetime.import += Math.max(s.meterW, 0) * hours;
    this.lifetime.export += Math.max(-s.meterW, 0) * hours;
    if (s.batteryW > 0 && this.soc <= this.storage.minReservePct) this.cycles++;
    return s;
  }

  private snapshot(): Snapshot {
    const time = this.now();
    const sun = sunFraction(time);
    const strings = PEAK_PV_W.map((peak, i) => ({
      watts: Math.round(peak * sun),
      volts: sun > 0 ? 320 + 40 * sun + 10 * i : 0,
      lifetimeWh: Math.round(this.lifetime.strings[i]!),
    }));
    const pv = strings.reduce((sum, x) => sum + x.watts, 0);
    const load = householdLoad(time);
    const canCharge = this.soc < 100 ? this.storage.maxChargeW : 0;
    const canDischarge = this.soc > this.storage.minReservePct ? MAX_DISCHARGE_W : 0;
    const batteryW = Math.round(this.storage.batteryW(pv - load, canCharge, canDischarge)) || 0;
    const acW = pv + batteryW;
    return {
      strings,
      acW,
      acLifetimeWh: Math.round(this.lifetime.ac),
      gridVolts: 230.1,
      hz: 50.01,
      meterW: load - acW,
      importWh: Math.round(this.lifetime.import),
      exportWh: Math.round(this.lifetime.export),
      soc: this.soc,
      batteryW,
      batteryVolts: 48 + 0.06 * this.soc,
      controls: this.storage,
      cycles: this.cycles,
    };
  }
}
