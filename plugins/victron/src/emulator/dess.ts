/**
 * The emulated GX's Dynamic ESS, as victronenergy/dbus-systemcalc-py delegates/dynamicess.py
 * runs it, simplified: the settings of attributes.csv (BatteryCapacity 5420 in tenths of a kWh,
 * FullChargeDuration 5421, FullChargeInterval 5422, Mode 5423, schedule slot 0 at 5424..5430)
 * and the published state on com.victronenergy.system (5400..5407). With Mode 1 or 4, a
 * capacity and a slot whose window (Start..Start+Duration) holds the GX's time, a Target SOC
 * slot charges, discharges or idles at `update_chargerate`'s rate
 * `|Soc - SOC| x capacity x 36000 / seconds left`; outside every window ("No matching
 * schedule", error 3) or with Self-consumption, the regular ESS runs. Restrictions are the
 * delegate's flags: 1 battery to grid, 2 grid to battery.
 */
import { ModbusException, ModbusExceptionCode } from '@heliograph/plugins-sdk/emulator';

/** What the slot makes the battery do now: its power (W, + charging), or null for the regular ESS. */
export interface DessFlow {
  batteryW: number | null;
  /** When the window ends on the GX's clock, ms; null without one. */
  endsAt: number | null;
}

export class DynamicEss {
  capacityTenths = 0;
  fullChargeDuration = 2;
  fullChargeInterval = 14;
  mode = 0;
  feedIn = 0;
  durationS = 0;
  restrictions = 0;
  soc = 0;
  /** Unix seconds; 0: no window. */
  start = 0;
  strategy = 0;
  /** The published state of the last step. */
  private state = { active: 0, errorCode: 0, chargeRateW: 0 };

  /** The window's end (ms) when it holds `nowMs` and Dynamic ESS runs it, else null. */
  windowEnd(nowMs: number): number | null {
    if ((this.mode !== 1 && this.mode !== 4) || this.capacityTenths === 0 || this.start === 0) return null;
    const nowS = nowMs / 1000;
    return nowS >= this.start && nowS <= this.start + this.durationS ? (this.start + this.durationS) * 1000 : null;
  }

  /**
   * The battery's power under the slot at `nowMs` for a SOC, a PV surplus (W, + spare) and the
   * battery's limits; null where the regular ESS decides.
   */
  flow(args: { nowMs: number; soc: number; surplusW: number; maxW: number }): DessFlow {
    const { nowMs, soc, surplusW, maxW } = args;
    const endsAt = this.windowEnd(nowMs);
    const running = this.mode === 1 || this.mode === 4;
    this.state = {
      active: endsAt === null ? 0 : 1,
      errorCode: !running ? 0 : this.capacityTenths === 0 ? 5 : endsAt === null ? 3 : 0,
      chargeRateW: 0,
    };
    if (endsAt === null || this.strategy !== 0) return { batteryW: null, endsAt };
    const capacityKwh = this.capacityTenths / 10;
    const leftS = Math.max(1, (endsAt - nowMs) / 1000);
    const rate = Math.round((Math.abs(this.soc - soc) * capacityKwh * 36000) / leftS);
    // The delegate's hysteresis: 250 Wh of the battery, at most 1 %.
    const hysteresis = Math.min(250 / (capacityKwh * 10), 1);
    this.state.chargeRateW = soc < this.soc ? rate : -rate;
    let batteryW: number | null;
    if (soc < this.soc - hysteresis)
      batteryW = this.restrictions & 2 ? Math.max(0, Math.min(surplusW, rate, maxW)) : Math.min(rate, maxW);
    else if (soc > this.soc + hysteresis)
      batteryW = this.feedIn === 1 && !(this.restrictions & 1) ? -Math.min(rate, maxW) : null;
    else batteryW = Math.max(0, Math.min(surplusW, maxW)); // idle: no discharge, PV may charge
    return { batteryW, endsAt };
  }

  /** Registers 5400..5407 and 5420..5430 as words. */
  words(): Map<number, number> {
    const word = (v: number) => Math.round(v) & 0xffff;
    const s = this.state;
    return new Map([
      [5400, s.active],
      [5401, this.feedIn],
      [5402, 1],
      [5403, word(Math.abs(s.chargeRateW) / 10)], // W, factor 0.1
      [5404, s.errorCode],
      // /DynamicEss/Restrictions on the system, labelled as the delegate's flags (1 battery to grid).
      [5405, this.restrictions],
      [5406, this.strategy],
      [5407, s.active ? this.soc : 0],
      [5420, this.capacityTenths],
      [5421, this.fullChargeDuration],
      [5422, this.fullChargeInterval],
      [5423, this.mode],
      [5424, this.feedIn],
      [5425, this.durationS],
      [5426, this.restrictions],
      [5427, this.soc],
      [5428, (this.start >>> 16) & 0xffff],
      [5429, this.start & 0xffff],
      [5430, this.strategy],
    ]);
  }

  /** Whether `address` is one of the writable settings. */
  static writable(address: number): boolean {
    return address >= 5420 && address <= 5430;
  }

  /**
   * One register of a write request (the GX takes the int32 Start as its two words, high first);
   * values out of the settings' ranges are refused.
   */
  write(address: number, value: number): void {
    const check = (ok: boolean) => {
      if (!ok) throw new ModbusException({ code: ModbusExceptionCode.illegalDataValue });
    };
    if (address === 5420) this.capacityTenths = value;
    else if (address === 5421) this.fullChargeDuration = value;
    else if (address === 5422) this.fullChargeInterval = value;
    else if (address === 5423) {
      check([0, 1, 4].includes(value));
      this.mode = value;
    } else if (address === 5424) {
      check(value <= 1);
      this.feedIn = value;
    } else if (address === 5425) this.durationS = value;
    else if (address === 5426) {
      check(value <= 3);
      this.restrictions = value;
    } else if (address === 5427) {
      check(value <= 100);
      this.soc = value;
    } else if (address === 5428) this.start = ((value << 16) | (this.start & 0xffff)) >>> 0;
    else if (address === 5429) this.start = ((this.start & 0xffff0000) | value) >>> 0;
    else if (address === 5430) {
      check(value <= 3);
      this.strategy = value;
    } else throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
  }
}
