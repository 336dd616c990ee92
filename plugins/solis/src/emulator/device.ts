/**
 * An emulated Solis hybrid with its battery. Its registers are placed here from the public
 * sources (ha-solarman `solis_hybrid.yaml`, Pho3niX90/solis_modbus `hybrid_sensors.py`), not
 * from the driver's map, so the two cannot be wrong together: input registers for running
 * data, battery power and current as magnitudes with the direction register (33135: 0
 * charging, 1 discharging), the grid meter's active power + export (33257 phase A and 33263
 * total, one phase). Part of the house hangs on the backup port (33148), which the inverter
 * feeds past its grid port: the AC power (33079) leaves it out while the house load (33147)
 * counts it, so house load − AC power is not what the grid takes; only the meter says that.
 * Holding registers for the clock (43000..43005), the storage control
 * switch (43110) and the remote control (remote-control.ts), whose timeout runs on the
 * inverter's own clock (the given `now` moved on by `clockOffsetMs`).
 */
import {
  clamp,
  DayIntegrator,
  householdLoad,
  imageWords,
  ModbusException,
  ModbusExceptionCode,
  sunFraction,
  toWord,
  wordsOf32,
  type ModbusDevice,
} from '@heliograph/plugins-sdk/emulator';
import { RemoteControl } from './remote-control.js';

const READABLE = { input: [[33000, 33299]], holding: [[43000, 43299]] } as const;
const PEAK_PV_W = 5000;
const CAPACITY_WH = 5000;
const MAX_CHARGE_W = 3000;
const MAX_DISCHARGE_W = 3000;
/** Values of the storage control switch (43110) the emulator takes: ha-solarman's and SolisCloud's. */
const STORAGE_VALUES = new Set([
  0x00, 0x21, 0x22, 0x23, 0x24, 0x28, 0x31, 0x33, 0x60, 0x01, 0x03, 0x11, 0x2b, 0x40, 0x62,
]);
/** 43110 bits: 0 self-use, 2 off-grid, 5 grid charging allowed, 6 feed-in priority. */
const SELF_USE = 0x01 | 0x04 | 0x40;
const GRID_CHARGE = 0x20;
/** What the backup port draws, W (part of the house load). */
const BACKUP_W = 150;
/** Today's energy before the emulator started (kWh), so a fixed clock reads plausible, distinct counters. */
const EARLIER_TODAY = { pv: 8.4, charge: 3.1, discharge: 2.2, import: 1.7, export: 4.6, load: 6.9 } as const;

/** One moment's flows, W: battery + charging, grid + import. */
interface Flows {
  pv: number;
  load: number;
  battery: number;
  grid: number;
}

export class SolisDevice implements ModbusDevice {
  /** State of charge in %. */
  soc: number;
  /** Register value of the storage control switch (43110): Self Use with grid charging allowed. */
  storageMode = 0x21;
  /** Overdischarge SOC (43011), %: the battery is not discharged below it. */
  overdischargeSoc = 20;
  /** The remote control registers (43129, 43135, 43136, 43282). */
  readonly rc = new RemoteControl();
  /** Moves the inverter's clock on from `now` (ms), so a test can let an RC timeout run out. */
  clockOffsetMs = 0;
  private readonly clock: () => Date;
  private readonly day: DayIntegrator;
  private readonly startDay: string;
  /** The inverter's time of the last step, ms. */
  private stepped: number;

  constructor(options: { now?: () => Date; soc?: number } = {}) {
    this.clock = options.now ?? (() => new Date());
    this.day = new DayIntegrator(() => this.now());
    this.stepped = this.now().getTime();
    this.startDay = this.now().toDateString();
    this.soc = options.soc ?? 50;
  }

  /** The inverter's clock: the given one plus `clockOffsetMs`. */
  now(): Date {
    return new Date(this.clock().getTime() + this.clockOffsetMs);
  }

  readInputRegisters({ address, count }: { address: number; count: number }): number[] {
    return imageWords(READABLE.input, address, count, () => this.inputImage(this.step()));
  }

  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    return imageWords(READABLE.holding, address, count, () => {
      this.step(); // an RC timeout that ran out shows at once
      return this.holdingImage();
    });
  }

  writeRegisters({ address, values }: { address: number; values: number[] }): void {
    this.step();
    values.forEach((value, i) => this.writeOne(address + i, value));
  }

  private writeOne(address: number, value: number): void {
    if (address === 43110) {
      if (!STORAGE_VALUES.has(value)) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
      this.storageMode = value;
    } else if (RemoteControl.holds(address)) this.rc.write(address, value, this.stepped);
    else throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
  }

  /** Moves the battery and today's counters on to now: forced until the RC timeout ran out (when it did meanwhile), normal after. */
  private step(): Flows {
    const hours = this.day.advance();
    const now = this.now().getTime();
    const from = this.stepped;
    this.stepped = now;
    const endsAt = this.rc.endsAt;
    if (endsAt === null || endsAt > now) return this.integrate(hours);
    const forced = now > from ? clamp((endsAt - from) / (now - from), 0, 1) : 0;
    this.integrate(hours * forced);
    this.rc.drop();
    return this.integrate(hours * (1 - forced));
  }

  private integrate(hours: number): Flows {
    const flows = this.flows();
    this.soc = clamp(this.soc + (flows.battery * hours * 100) / CAPACITY_WH, 0, 100);
    for (const [name, watts] of [
      ['pv', flows.pv],
      ['charge', flows.battery],
      ['discharge', -flows.battery],
      ['import', flows.grid],
      ['export', -flows.grid],
      ['load', flows.load],
    ] as const)
      this.day.add(name, watts, hours);
    return flows;
  }

  /** What the battery does now: the remote control's force while it runs, else the storage mode's own self-use. */
  private flows(): Flows {
    const time = this.now();
    const pv = Math.round(PEAK_PV_W * sunFraction(time));
    const load = householdLoad(time);
    const canCharge = this.soc < 100 ? MAX_CHARGE_W : 0;
    const canDischarge = this.soc > this.overdischargeSoc ? MAX_DISCHARGE_W : 0;
    let battery: number;
    if (this.rc.mode === 1) {
      // Force charge: from the grid where the storage mode allows it, else from the PV surplus.
      const source = this.storageMode & GRID_CHARGE ? Infinity : Math.max(pv - load, 0);
      battery = Math.min(this.rc.chargePower * 10, canCharge, source);
    } else if (this.rc.mode === 2) battery = -Math.min(this.rc.dischargePower * 10, canDischarge);
    else if (this.storageMode & SELF_USE) battery = clamp(pv - load, -canDischarge, canCharge);
    else battery = 0;
    battery = Math.round(battery) || 0;
    // The AC the inverter delivers (+) or draws (−) is PV less what the battery takes; the grid the rest.
    return { pv, load, battery, grid: load - (pv - battery) };
  }

  /** Today's counter `name`, kWh. */
  private kWh(name: keyof typeof EARLIER_TODAY): number {
    return this.day.kWh(name) + (this.now().toDateString() === this.startDay ? EARLIER_TODAY[name] : 0);
  }

  private inputImage(flows: Flows): Map<number, number> {
    const { pv, load, battery, grid } = flows;
    const words = new Map<number, number>();
    const u16 = (address: number, value: number) => words.set(address, toWord(value));
    const x32 = (address: number, value: number) => {
      const [high, low] = wordsOf32(value);
      words.set(address, high).set(address + 1, low);
    };
    const tenths = (value: number) => Math.round(value * 10);
    const strings = [
      { volts: 380, watts: Math.round(pv * 0.55) },
      { volts: 370, watts: pv - Math.round(pv * 0.55) },
    ];
    const volts = 48 + 0.08 * this.soc;
    u16(33035, tenths(this.kWh('pv')));
    strings.forEach((s, i) => {
      u16(33049 + 2 * i, pv > 0 ? tenths(s.volts) : 0);
      u16(33050 + 2 * i, pv > 0 ? tenths(s.watts / s.volts) : 0);
    });
    x32(33057, pv);
    u16(33073, 2298); // 229.8 V
    const backup = Math.min(BACKUP_W, load);
    x32(33079, pv - battery - backup); // the grid port's active power, s32
    u16(33093, 382); // 38.2 °C
    u16(33094, 5001); // 50.01 Hz
    u16(33132, this.storageMode); // the storage control switch, read back
    u16(33133, tenths(volts));
    u16(33134, tenths(Math.abs(battery) / volts));
    u16(33135, battery >= 0 ? 0 : 1);
    u16(33139, Math.round(this.soc));
    u16(33140, 99);
    u16(33147, load);
    u16(33148, backup);
    x32(33149, Math.abs(battery));
    u16(33163, tenths(this.kWh('charge')));
    u16(33167, tenths(this.kWh('discharge')));
    u16(33171, tenths(this.kWh('import')));
    u16(33175, tenths(this.kWh('export')));
    u16(33179, tenths(this.kWh('load')));
    // The meter, + export: phase A and the total (a single-phase meter).
    x32(33257, -grid);
    x32(33263, -grid);
    return words;
  }

  private holdingImage(): Map<number, number> {
    const t = this.now();
    const clock = [t.getFullYear() - 2000, t.getMonth() + 1, t.getDate(), t.getHours(), t.getMinutes(), t.getSeconds()];
    const words = new Map<number, number>(clock.map((word, i) => [43000 + i, word]));
    words.set(43011, this.overdischargeSoc);
    words.set(43110, this.storageMode);
    for (const [address, word] of this.rc.words()) words.set(address, word);
    return words;
  }
}
